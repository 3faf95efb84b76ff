import { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { ObjectStore } from '../../domain/ports/index.ts';

export interface S3ObjectStoreConfig {
  readonly client: S3Client;
  readonly bucket: string;
}

/** The pipeline bucket. Encryption is the bucket's own (KMS by default); nothing here sets keys per object. */
export class S3ObjectStore implements ObjectStore {
  readonly #client: S3Client;
  readonly bucket: string;

  constructor(config: S3ObjectStoreConfig) {
    if (config.bucket === '') throw new Error('S3ObjectStore needs a bucket name');
    this.#client = config.client;
    this.bucket = config.bucket;
  }

  async *read(key: string): AsyncIterable<Uint8Array> {
    const result = await this.#client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    if (!result.Body) throw new Error(`s3://${this.bucket}/${key} has no body`);
    // In Node the body is a Readable: streamed, never read whole into memory.
    yield* result.Body as AsyncIterable<Uint8Array>;
  }

  async readTextIfExists(key: string): Promise<string | null> {
    try {
      const result = await this.#client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return (await result.Body?.transformToString('utf-8')) ?? '';
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.#client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async metadataOf(key: string): Promise<Readonly<Record<string, string>>> {
    const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
    return head.Metadata ?? {};
  }

  async putJson(key: string, value: unknown): Promise<void> {
    await this.#client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: JSON.stringify(value),
        ContentType: 'application/json; charset=utf-8',
      }),
    );
  }

  async writeStream(key: string, contentType: string, body: AsyncIterable<string>): Promise<void> {
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.bucket, Key: key, Body: Readable.from(body), ContentType: contentType },
      // 8 MiB parts, two in flight: a million-row summary streams out in bounded memory.
      partSize: 8 * 1024 * 1024,
      queueSize: 2,
    });
    await upload.done();
  }
}

/** S3 says "no such object" as NoSuchKey on GET and as a bare 404 (NotFound) on HEAD. */
function isMissing(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata
    ?.httpStatusCode;
  return name === 'NoSuchKey' || name === 'NotFound' || status === 404;
}
