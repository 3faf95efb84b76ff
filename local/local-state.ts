import { mkdir, open, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/** Where a local run keeps its data between runs, unless told otherwise. */
export const DEFAULT_STATE_DIRECTORY = '.credit-screen';

// S3 sets LastModified on every PUT, so the first upload time travels in metadata and survives restores.
const CREATED_METADATA = 'credit-screen-created';
const DAY_MS = 86_400_000;

export class LocalStateError extends Error {
  override readonly name = 'LocalStateError';
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Fails when a live process holds the directory's lock (a lock left by a dead one does not count). */
async function refuseIfHeld(directory: string): Promise<void> {
  const owner = Number(await readFile(join(directory, 'lock'), 'utf8').catch(() => 'NaN'));
  if (Number.isInteger(owner) && processIsAlive(owner))
    throw new LocalStateError(
      `${directory} is in use by another run (pid ${owner}); wait for it or use --state`,
    );
}

async function* files(directory: string): AsyncGenerator<string> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile()) yield path;
  }
}

/**
 * A local run's data directory: DynamoDB Local's database file (`dynamodb/`) and a copy of the bucket (`s3/`,
 * one file per object), so reports, portfolios and results outlive the run as they would in AWS. fauxqs keeps S3
 * in memory only, so the bucket is restored into it at start and saved back at stop. One run at a time: a lock
 * file holds the owner's pid. Retention applies here too: objects and items older than the retention period are
 * dropped when the directory is opened.
 */
export class LocalStateDirectory {
  private constructor(readonly directory: string) {}

  /** Opens (creating) the directory and takes its lock; `fresh` empties it first. */
  static async open(
    directory: string,
    options: { readonly fresh?: boolean } = {},
  ): Promise<LocalStateDirectory> {
    const absolute = resolve(directory);
    if (options.fresh) await LocalStateDirectory.#emptyUnlessLocked(absolute);
    await mkdir(join(absolute, 'dynamodb'), { recursive: true });
    const state = new LocalStateDirectory(absolute);
    await state.#lock();
    return state;
  }

  static async #emptyUnlessLocked(directory: string): Promise<void> {
    await refuseIfHeld(directory);
    await rm(directory, { recursive: true, force: true });
  }

  get dynamoDbPath(): string {
    return join(this.directory, 'dynamodb');
  }

  get objectsPath(): string {
    return join(this.directory, 's3');
  }

  async #lock(): Promise<void> {
    const path = join(this.directory, 'lock');
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const handle = await open(path, 'wx');
        await handle.writeFile(String(process.pid));
        await handle.close();
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        await refuseIfHeld(this.directory);
        // Left behind by a run that died: take it over.
        await rm(path, { force: true });
      }
    }
    throw new LocalStateError(`could not lock ${this.directory}`);
  }

  /** Puts the saved objects back into the bucket, dropping those older than `retentionDays`. */
  async restoreObjects(
    s3: S3Client,
    bucket: string,
    retentionDays: number,
  ): Promise<{ restored: number; expired: number }> {
    const oldest = Date.now() - retentionDays * DAY_MS;
    let restored = 0;
    let expired = 0;
    for await (const path of files(this.objectsPath)) {
      const created = (await stat(path)).mtimeMs;
      if (created < oldest) {
        await rm(path);
        expired++;
        continue;
      }
      const key = relative(this.objectsPath, path).split(sep).join('/');
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: await readFile(path),
          Metadata: { [CREATED_METADATA]: new Date(created).toISOString() },
        }),
      );
      restored++;
    }
    return { restored, expired };
  }

  /** Saves every object of the bucket (replacing the previous copy whole, so deleted objects stay deleted). */
  async saveObjects(s3: S3Client, bucket: string): Promise<number> {
    const next = `${this.objectsPath}.next`;
    await rm(next, { recursive: true, force: true });
    await mkdir(next, { recursive: true });
    let saved = 0;
    let token: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        const key = object.Key;
        // Keys become paths: anything that could climb out of the directory is not saved.
        if (
          !key ||
          key.endsWith('/') ||
          key.split('/').some((part) => part === '..' || part === '.' || part === '')
        )
          continue;
        const result = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        const path = join(next, ...key.split('/'));
        await mkdir(dirname(path), { recursive: true });
        await writeFile(
          path,
          await (result.Body?.transformToByteArray() ?? Promise.resolve(new Uint8Array())),
        );
        const created =
          Date.parse(result.Metadata?.[CREATED_METADATA] ?? '') ||
          object.LastModified?.getTime() ||
          Date.now();
        await utimes(path, new Date(created), new Date(created));
        saved++;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    await rm(this.objectsPath, { recursive: true, force: true });
    await rename(next, this.objectsPath);
    return saved;
  }

  async release(): Promise<void> {
    await rm(join(this.directory, 'lock'), { force: true });
  }
}
