import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { S3_LAYOUT } from '../../src/contract/index.ts';

/** An object under `incoming/`, as the upload watcher compares listings. */
export interface IncomingObject {
  readonly key: string;
  readonly eTag: string;
  readonly size: number;
}

/** Every object under `incoming/` in the bucket, all pages. */
async function incomingObjects(s3: S3Client, bucket: string): Promise<IncomingObject[]> {
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

/**
 * Polls `incoming/` and hands each new object to `deliver` once, like an S3 `ObjectCreated` notification (fauxqs
 * sends none). What is already there when it starts was handled by earlier runs.
 */
export class UploadWatcher {
  #timer: NodeJS.Timeout | null = null;
  #polling: Promise<void> = Promise.resolve();

  private constructor(
    private readonly list: () => Promise<IncomingObject[]>,
    private readonly deliver: (object: IncomingObject) => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {}

  static async start(
    s3: S3Client,
    bucket: string,
    deliver: (object: IncomingObject) => Promise<unknown>,
    onError: (error: unknown) => void,
  ): Promise<UploadWatcher> {
    const watcher = new UploadWatcher(() => incomingObjects(s3, bucket), deliver, onError);
    const seen = new Set<string>();
    for (const object of await watcher.list()) seen.add(`${object.key}\n${object.eTag}`);
    const poll = async () => {
      try {
        for (const object of await watcher.list()) {
          const id = `${object.key}\n${object.eTag}`;
          if (seen.has(id)) continue;
          seen.add(id);
          await watcher.deliver(object);
        }
      } catch (error) {
        watcher.onError(error);
      }
    };
    const tick = () => {
      watcher.#polling = poll().finally(() => {
        if (watcher.#timer !== null) watcher.#timer = setTimeout(tick, 250);
      });
    };
    watcher.#timer = setTimeout(tick, 250);
    return watcher;
  }

  /** Stops polling, once the poll under way (and the deliveries it started) is over. */
  async stop(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#polling;
  }
}
