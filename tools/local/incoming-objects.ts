import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { S3_LAYOUT } from '../../src/contract/index.ts';

/** An object under `incoming/`, as the upload watcher compares listings. */
export interface IncomingObject {
  readonly key: string;
  readonly eTag: string;
  readonly size: number;
}

/** Every object under `incoming/` in the bucket, all pages. */
export async function incomingObjects(s3: S3Client, bucket: string): Promise<IncomingObject[]> {
  const found: IncomingObject[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: S3_LAYOUT.incoming, ContinuationToken: token }),
    );
    for (const object of page.Contents ?? [])
      if (object.Key)
        found.push({
          key: object.Key,
          eTag: (object.ETag ?? '').replaceAll('"', ''),
          size: object.Size ?? 0,
        });
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return found;
}
