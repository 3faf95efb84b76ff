import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectVersionsCommand,
  PutObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';
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

  async writeStream(
    key: string,
    contentType: string,
    body: AsyncIterable<string | Uint8Array>,
  ): Promise<void> {
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.bucket, Key: key, Body: Readable.from(body), ContentType: contentType },
      // 8 MiB parts, two in flight: a million-row summary streams out in bounded memory.
      partSize: 8 * 1024 * 1024,
      queueSize: 2,
    });
    await upload.done();
  }

  async *list(prefix: string): AsyncIterable<string> {
    for await (const page of paginateListObjectsV2(
      { client: this.#client },
      { Bucket: this.bucket, Prefix: prefix },
    ))
      for (const object of page.Contents ?? []) if (object.Key !== undefined) yield object.Key;
  }

  async rewrite(
    key: string,
    bytes: Uint8Array,
    metadata: Readonly<Record<string, string>> = {},
  ): Promise<void> {
    const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
    await this.#client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: bytes,
        ContentType: head.ContentType,
        Metadata: { ...head.Metadata, ...metadata },
      }),
    );
    await this.#removeVersions(key, { keepLatest: true });
  }

  async remove(key: string): Promise<void> {
    await this.#removeVersions(key, { keepLatest: false });
    // Unversioned (the pipeline's bucket keeps no versions), or an emulator that lists none: a plain delete.
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /**
   * Deletes the versions and delete markers of exactly `key`. The pipeline's bucket is created unversioned
   * (`lib/pipeline/storage.ts`), where this finds the one `null` version; a bucket someone versioned
   * keeps every earlier body of an object until each version is deleted by its id.
   */
  async #removeVersions(key: string, options: { readonly keepLatest: boolean }): Promise<void> {
    let keyMarker: string | undefined;
    let versionMarker: string | undefined;
    do {
      const page = await this.#client.send(
        new ListObjectVersionsCommand({
          Bucket: this.bucket,
          Prefix: key,
          KeyMarker: keyMarker,
          VersionIdMarker: versionMarker,
        }),
      );
      for (const version of [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])]) {
        if (version.Key !== key || version.VersionId === undefined) continue;
        if (options.keepLatest && version.IsLatest) continue;
        await this.#client.send(
          new DeleteObjectCommand({ Bucket: this.bucket, Key: key, VersionId: version.VersionId }),
        );
      }
      const more = page.IsTruncated === true;
      keyMarker = more ? page.NextKeyMarker : undefined;
      versionMarker = more ? page.NextVersionIdMarker : undefined;
    } while (keyMarker !== undefined);
  }
}

/** S3 says "no such object" as NoSuchKey on GET and as a bare 404 (NotFound) on HEAD. */
function isMissing(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata
    ?.httpStatusCode;
  return name === 'NoSuchKey' || name === 'NotFound' || status === 404;
}
