import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalStateDirectory } from '../../../cli/local/local-state.ts';
import { writeBucketThrough } from '../../../cli/local/write-through-bucket.ts';

const BUCKET = 'credit-screen-local';

interface Opened {
  readonly fauxqs: FauxqsServer;
  readonly client: S3Client;
  readonly state: LocalStateDirectory;
}

const opened: Opened[] = [];
afterEach(async () => {
  for (const { fauxqs, client, state } of opened.splice(0)) {
    client.destroy();
    await fauxqs.stop();
    await state.release();
  }
});

function s3Client(port: number): S3Client {
  return new S3Client({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    forcePathStyle: true,
  });
}

/** A bucket in fauxqs and a state directory, with a client whose puts are written through to the state. */
async function bucketWrittenThrough(): Promise<Opened & { readonly plain: S3Client }> {
  const fauxqs = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false });
  const client = s3Client(fauxqs.port);
  const plain = s3Client(fauxqs.port);
  const state = await LocalStateDirectory.open(await mkdtemp(join(tmpdir(), 'credit-screen-state-')));
  opened.push({ fauxqs, client, state }, { fauxqs, client: plain, state });
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  writeBucketThrough(client, plain, BUCKET, state);
  return { fauxqs, client, plain, state };
}

async function objectText(client: S3Client, key: string): Promise<string> {
  const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return (await object.Body?.transformToString()) ?? '';
}

describe('the local bucket written through to the state directory', () => {
  it('has a paid answer on disk, private, by the time its put returns', async () => {
    const { client, state } = await bucketWrittenThrough();
    const key = 'raw/a/batch-1/7.json';

    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: '{"paid":true}' }));
    const path = join(state.objectsPath, 'raw', 'a', 'batch-1', '7.json');

    expect(await readFile(path, 'utf8')).toBe('{"paid":true}');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    for (const directory of ['', 'raw', 'raw/a', 'raw/a/batch-1'])
      expect((await stat(join(state.objectsPath, directory))).mode & 0o777).toBe(0o700);
  });

  it('keeps an upload sent as a stream (the SDK’s Upload) and a put whose body is a stream, read back whole', async () => {
    const { client, state } = await bucketWrittenThrough();
    const list = `cpf\n${'52998224725\n'.repeat(2000)}`;

    await new Upload({
      client,
      params: { Bucket: BUCKET, Key: 'incoming/a/list.csv', Body: Readable.from([list]) },
    }).done();
    await client.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: 'results/batch-1/summary.csv',
        Body: Readable.from([Buffer.from('row,status\n1,screened\n')]),
        ContentLength: 22,
      }),
    );

    expect(await readFile(join(state.objectsPath, 'incoming', 'a', 'list.csv'), 'utf8')).toBe(list);
    expect(await readFile(join(state.objectsPath, 'results', 'batch-1', 'summary.csv'), 'utf8')).toBe(
      'row,status\n1,screened\n',
    );
  });

  it('ends with the object’s last content when puts of one key race', async () => {
    const { client, state } = await bucketWrittenThrough();
    const key = 'work/batch-1/duplicate-targets.json';

    await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: `[${index}]` })),
      ),
    );

    expect(await readFile(join(state.objectsPath, ...key.split('/')), 'utf8')).toBe(
      await objectText(client, key),
    );
    expect(await readdir(join(state.directory, 's3.partial'))).toEqual([]);
  });

  it('fails the put, saying why, when its object cannot be kept on disk, so that its caller retries', async () => {
    const { client, state } = await bucketWrittenThrough();
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'results/batch-1', Body: 'a file' }));

    await expect(
      client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'results/batch-1/summary.csv', Body: 'x' })),
    ).rejects.toThrow(
      `s3://${BUCKET}/results/batch-1/summary.csv was written but could not be kept in ${state.directory}`,
    );
  });

  it('never keeps a key that would climb out of the copy', async () => {
    const { client, state } = await bucketWrittenThrough();

    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'results/../../escaped', Body: 'x' }));

    expect(await readdir(state.directory)).not.toContain('escaped');
    expect(await readdir(join(state.directory, '..'))).not.toContain('escaped');
  });

  it('saves at stop what other clients put, and drops the files of objects no longer in the bucket', async () => {
    const { client, plain, state } = await bucketWrittenThrough();
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'raw/a/batch-1/1.json', Body: '{}' }));
    await plain.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'incoming/a/other.csv', Body: 'cpf\n' }));
    await writeFile(join(state.objectsPath, 'stale.json'), 'gone from the bucket');

    const saved = await state.saveObjects(plain, BUCKET);

    expect(saved).toBe(2);
    expect(await readFile(join(state.objectsPath, 'incoming', 'a', 'other.csv'), 'utf8')).toBe('cpf\n');
    expect(await readFile(join(state.objectsPath, 'raw', 'a', 'batch-1', '1.json'), 'utf8')).toBe('{}');
    expect(await readdir(state.objectsPath)).not.toContain('stale.json');
  });
});
