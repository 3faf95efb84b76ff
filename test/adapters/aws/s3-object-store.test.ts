import {
  DeleteObjectCommand,
  HeadObjectCommand,
  ListObjectVersionsCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { S3ObjectStore } from '../../../src/adapters/aws/s3-object-store.ts';

/**
 * A versioned bucket as S3 documents it (ListObjectVersions lists every version and delete marker of the keys under
 * a prefix, `IsLatest` on the current one): fauxqs keeps no versions, so what an erasure does with them is checked
 * here against the commands the store sends.
 */
function versionedBucket() {
  const sent: { name: string; input: Record<string, unknown> }[] = [];
  const client = {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      sent.push({ name: command.constructor.name, input: command.input });
      if (command instanceof HeadObjectCommand)
        return { ContentType: 'text/csv; charset=windows-1252', Metadata: { 'max-charges': '10' } };
      if (command instanceof ListObjectVersionsCommand)
        return {
          IsTruncated: false,
          Versions: [
            { Key: 'incoming/a/list.csv', VersionId: 'v3', IsLatest: true },
            { Key: 'incoming/a/list.csv', VersionId: 'v1', IsLatest: false },
            // Another key under the same prefix is never touched.
            { Key: 'incoming/a/list.csv.bak', VersionId: 'x1', IsLatest: true },
          ],
          DeleteMarkers: [{ Key: 'incoming/a/list.csv', VersionId: 'm2', IsLatest: false }],
        };
      return {};
    },
  } as unknown as S3Client;
  return { store: new S3ObjectStore({ client, bucket: 'pipeline' }), sent };
}

const deletedVersions = (sent: ReturnType<typeof versionedBucket>['sent']) =>
  sent
    .filter((command) => command.name === DeleteObjectCommand.name)
    .map((command) => command.input.VersionId);

describe('S3ObjectStore on a versioned bucket', () => {
  it('removes every version and delete marker of the key, then the key', async () => {
    const { store, sent } = versionedBucket();

    await store.remove('incoming/a/list.csv');

    expect(deletedVersions(sent)).toEqual(['v3', 'v1', 'm2', undefined]);
    expect(sent.every((command) => command.input.Key !== 'incoming/a/list.csv.bak')).toBe(true);
  });

  it('rewrites an object with its content type and metadata, and leaves no earlier version', async () => {
    const { store, sent } = versionedBucket();

    await store.rewrite('incoming/a/list.csv', Buffer.from('cpf\n'), { 'credit-screen-erased': 'now' });

    const put = sent.find((command) => command.name === PutObjectCommand.name)?.input;
    expect(put).toMatchObject({
      ContentType: 'text/csv; charset=windows-1252',
      Metadata: { 'max-charges': '10', 'credit-screen-erased': 'now' },
    });
    // The new body is the latest version (v3 in the listing that follows the put); only earlier ones go.
    expect(deletedVersions(sent)).toEqual(['v1', 'm2']);
  });
});
