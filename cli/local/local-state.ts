import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, lstat, open, readdir, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  fileErrorReason,
  makePrivateDirectory,
  PRIVATE_DIRECTORY_MODE,
  PRIVATE_FILE_MODE,
  writePrivateFile,
} from './private-files.ts';

/** Where a local run keeps its data between runs, unless told otherwise. */
export const DEFAULT_STATE_DIRECTORY = '.credit-screen';

/**
 * The file that makes a directory a state directory. It is written when the state directory is created, and
 * only a directory carrying it (or an empty one) is ever emptied by `--fresh`.
 */
export const STATE_MARKER = '.credit-screen-state';
const MARKER_TEXT =
  'This directory holds the local state of credit-screen (personal data: keep it private).\n' +
  '`credit-screen screen --fresh` empties it; deleting the directory forgets everything.\n';
const LOCK = 'lock';
/** Objects being written: each is complete here before it is renamed into `s3/`, so `s3/` never holds half a file. */
const PARTIAL_OBJECTS = 's3.partial';
/** The file that names the one bureau endpoint a state's reports came from (see `keepStateBureau`). */
export const STATE_BUREAU_FILE = 'bureau-endpoint';
/**
 * What a state directory holds besides its marker: `--fresh` deletes these and nothing else (`s3.next`: older runs).
 */
const STATE_ENTRIES = ['dynamodb', 's3', 's3.next', PARTIAL_OBJECTS, LOCK, STATE_BUREAU_FILE] as const;

// S3 sets LastModified on every PUT, so the first upload time travels in metadata and survives restores.
const CREATED_METADATA = 'credit-screen-created';
const DAY_MS = 86_400_000;
const RECLAIM_WAIT_MS = 5000;

export class LocalStateError extends Error {
  override readonly name = 'LocalStateError';
}

/** The lock file's content: the run holding the directory and the processes it started on the database. */
interface LockRecord {
  readonly pid: number;
  /** Processes the run started that use the state (DynamoDB Local), which may outlive a run killed with -9. */
  readonly children: readonly number[];
  /** The run ended, its server parked for its process's next run (`kept-dynamodb-local.ts`): not held. */
  readonly parked?: boolean;
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock of a directory, or null. A lock written before children were recorded holds a bare pid. */
async function readLock(directory: string): Promise<LockRecord | null> {
  const text = await readFile(join(directory, LOCK), 'utf8').catch(() => null);
  if (text === null) return null;
  if (/^\d+$/.test(text.trim())) return { pid: Number(text.trim()), children: [] };
  try {
    const parsed = JSON.parse(text) as Partial<LockRecord>;
    const pids = (values: unknown) =>
      Array.isArray(values) ? values.filter((value): value is number => Number.isSafeInteger(value)) : [];
    if (!Number.isSafeInteger(parsed.pid)) return null;
    return { pid: parsed.pid as number, children: pids(parsed.children), parked: parsed.parked === true };
  } catch {
    return null;
  }
}

function inUse(directory: string, pid: number): LocalStateError {
  return new LocalStateError(
    `${directory} is in use by another credit-screen run (pid ${pid}): try again when it has finished, or name another state directory with --state`,
  );
}

/** The command line of a live process (`ps` works on Linux and macOS alike), or null. */
async function commandLineOf(pid: number): Promise<string | null> {
  try {
    const { stdout } = await promisify(execFile)('ps', ['-ww', '-o', 'args=', '-p', String(pid)]);
    return stdout.trim() || null;
  } catch {
    return null;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (processIsAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

/** Whether a lock is held by a live run (a parked lock is not: its run has ended). */
const isHeld = (lock: LockRecord) => !lock.parked && processIsAlive(lock.pid);

/**
 * Fails when a live run holds the directory. A lock left by a run that died does not count, but the database
 * server that run started may still be running on the directory's database (a `kill -9` leaves children
 * behind): such a process, recognised by its command line naming this directory's database, is stopped, so that
 * two servers never share one database file. So is a parked server, unless `parkedHere` says this process parked it
 * and will take it back. Returns the pids stopped of a killed run.
 */
async function reclaimUnlessHeld(
  directory: string,
  databasePath: string,
  parkedHere: (pid: number) => boolean,
): Promise<number[]> {
  const lock = await readLock(directory);
  if (lock === null) return [];
  if (lock.parked && lock.children.length > 0 && lock.children.every(parkedHere)) return [];
  if (isHeld(lock)) throw inUse(directory, lock.pid);
  const stopped: number[] = [];
  for (const child of lock.children) {
    if (!processIsAlive(child)) continue;
    // A pid can be reused by an unrelated process: only one running on this database is ours to stop.
    if (!(await commandLineOf(child))?.includes(databasePath)) continue;
    process.kill(child, 'SIGTERM');
    if (!(await waitForExit(child, RECLAIM_WAIT_MS))) {
      process.kill(child, 'SIGKILL');
      if (!(await waitForExit(child, RECLAIM_WAIT_MS)))
        throw new LocalStateError(
          `${directory}: DynamoDB Local (pid ${child}) left by a run that was killed still holds the database; stop it first`,
        );
    }
    stopped.push(child);
  }
  return lock.parked ? [] : stopped;
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

/** What is in a directory about to become (or be emptied as) a state directory, or null if it does not exist. */
async function entriesOf(directory: string): Promise<string[] | null> {
  try {
    if (!(await stat(directory)).isDirectory()) throw new LocalStateError(`${directory}: not a directory`);
    return await readdir(directory);
  } catch (error) {
    if (error instanceof LocalStateError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new LocalStateError(`${directory}: ${fileErrorReason(error)}`);
  }
}

/**
 * Whether a directory may be used (and emptied) as a state directory: it carries the marker, is empty, or holds
 * only what a state directory made before the marker existed holds.
 */
async function isStateDirectory(directory: string, entries: readonly string[]): Promise<boolean> {
  if (entries.includes(STATE_MARKER))
    return (await lstat(join(directory, STATE_MARKER)).catch(() => null))?.isFile() === true;
  return entries.every((entry) => (STATE_ENTRIES as readonly string[]).includes(entry));
}

/**
 * A local run's data directory: DynamoDB Local's database file (`dynamodb/`) and a copy of the bucket (`s3/`,
 * one file per object), so reports, portfolios and results outlive the run as they would in AWS. fauxqs keeps S3
 * in memory only, so the bucket is restored into it at start; while the run goes, what the pipeline writes is
 * written through to `s3/` before the write returns ({@link keepObject}, see `write-through-bucket.ts`), so a run
 * killed with -9 loses no upload and no paid answer; at stop the copy is made equal to the bucket. One run at a time: a lock
 * file holds the owner's pid and those of the processes it started on the database. Retention applies here too:
 * objects and items older than the retention period are dropped when the directory is opened.
 *
 * It holds personal data, so it is private: directories 0700, files 0600. It carries a marker file
 * ({@link STATE_MARKER}); a directory holding anything else is never used, so `fresh` can only ever delete
 * what a state directory holds.
 */
export class LocalStateDirectory {
  #children: number[] = [];
  /** Keys of the objects whose file is known to hold them: restored at start, or kept since. */
  readonly #onDisk = new Set<string>();

  private constructor(
    readonly directory: string,
    /** Processes a killed run left on the database, stopped when the directory was opened. */
    readonly reclaimed: readonly number[],
  ) {}

  /**
   * Fails, with the reason, unless `directory` could be opened now: it is missing, empty, or a state directory
   * (see {@link STATE_MARKER}), and no live run holds it. Checks only; changes nothing.
   */
  static async check(directory: string): Promise<void> {
    const absolute = resolve(directory);
    const entries = await LocalStateDirectory.#entriesOfStateDirectory(absolute);
    const lock = entries === null ? null : await readLock(absolute);
    if (lock !== null && isHeld(lock)) throw inUse(absolute, lock.pid);
  }

  /**
   * Whether `directory` holds a state (a missing or empty directory does not); fails, with the reason, for a
   * directory that holds other files. Reads only: for the commands that must not make a state where there is none.
   */
  static async exists(directory: string): Promise<boolean> {
    const entries = await LocalStateDirectory.#entriesOfStateDirectory(resolve(directory));
    return entries !== null && entries.length > 0;
  }

  /** The entries of a directory that may be used as a state directory, or null if it does not exist. */
  static async #entriesOfStateDirectory(absolute: string): Promise<string[] | null> {
    const entries = await entriesOf(absolute);
    if (entries !== null && !(await isStateDirectory(absolute, entries))) {
      const foreign = entries.find((entry) => !(STATE_ENTRIES as readonly string[]).includes(entry));
      throw new LocalStateError(
        `${absolute} is not a credit-screen state directory (it holds other files, such as ${JSON.stringify(foreign)}); name an empty or new directory`,
      );
    }
    return entries;
  }

  /**
   * Opens (creating) the directory and takes its lock; `fresh` empties it first. Only a directory that is
   * missing, empty or a state directory is used or emptied; anything else is refused.
   */
  static async open(
    directory: string,
    options: {
      readonly fresh?: boolean;
      /** Whether this process parked server `pid` to take it back (not with `fresh`). @default none is */
      readonly parkedHere?: (pid: number) => boolean;
    } = {},
  ): Promise<LocalStateDirectory> {
    const absolute = resolve(directory);
    const entries = await LocalStateDirectory.#entriesOfStateDirectory(absolute);
    const databasePath = join(absolute, 'dynamodb');
    const parkedHere = (!options.fresh && options.parkedHere) || (() => false);
    const reclaimed = entries === null ? [] : await reclaimUnlessHeld(absolute, databasePath, parkedHere);
    if (options.fresh && entries !== null)
      for (const entry of STATE_ENTRIES) await rm(join(absolute, entry), { recursive: true, force: true });
    // Half-written objects of a run that was killed were never in `s3/`: nothing there refers to them.
    for (const leftover of ['s3.next', PARTIAL_OBJECTS])
      await rm(join(absolute, leftover), { recursive: true, force: true });
    try {
      await makePrivateDirectory(absolute);
      // A state directory made before its files were private is made private now.
      await chmod(absolute, PRIVATE_DIRECTORY_MODE);
      await makePrivateDirectory(databasePath);
      await chmod(databasePath, PRIVATE_DIRECTORY_MODE);
      for await (const path of files(databasePath)) await chmod(path, PRIVATE_FILE_MODE);
      await writePrivateFile(join(absolute, STATE_MARKER), MARKER_TEXT);
    } catch (error) {
      throw new LocalStateError(`${absolute}: ${fileErrorReason(error)}`);
    }
    const state = new LocalStateDirectory(absolute, reclaimed);
    await state.#lock(parkedHere);
    return state;
  }

  get dynamoDbPath(): string {
    return join(this.directory, 'dynamodb');
  }

  get objectsPath(): string {
    return join(this.directory, 's3');
  }

  /**
   * Records a process started on the state's database (DynamoDB Local) in the lock, so that a later run can stop
   * it if this one is killed without stopping it.
   */
  async recordChild(pid: number): Promise<void> {
    this.#children.push(pid);
    await this.#writeLock();
  }

  async #writeLock(parked = false): Promise<void> {
    const path = join(this.directory, LOCK);
    const next = `${path}.${process.pid}`;
    const lock: LockRecord = { pid: process.pid, children: this.#children, ...(parked && { parked }) };
    await writePrivateFile(next, JSON.stringify(lock));
    await rename(next, path);
  }

  async #lock(parkedHere: (pid: number) => boolean): Promise<void> {
    const path = join(this.directory, LOCK);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const handle = await open(path, 'wx', PRIVATE_FILE_MODE);
        await handle.writeFile(JSON.stringify({ pid: process.pid, children: [] }));
        await handle.close();
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        await reclaimUnlessHeld(this.directory, this.dynamoDbPath, parkedHere);
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
      this.#onDisk.add(key);
      restored++;
    }
    return { restored, expired };
  }

  /**
   * Makes the copy on disk equal to the bucket: objects not kept yet (put by other clients, such as those that
   * talk to the local services as to a deployed one) are kept, one file at a time, each replaced whole (a run killed
   * meanwhile leaves every file complete), and files of objects no longer in the bucket go.
   */
  async saveObjects(s3: S3Client, bucket: string): Promise<number> {
    const kept = new Set<string>();
    let token: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        const key = object.Key;
        const path = key === undefined ? null : this.#pathOf(key);
        if (key === undefined || path === null) continue;
        kept.add(path);
        // Restored at start or written through since, and the same size: the file is this object already.
        if (this.#onDisk.has(key) && (await stat(path).catch(() => null))?.size === object.Size) continue;
        const result = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        const created =
          Date.parse(result.Metadata?.[CREATED_METADATA] ?? '') ||
          object.LastModified?.getTime() ||
          Date.now();
        await this.keepObject(
          key,
          await (result.Body?.transformToByteArray() ?? Promise.resolve(new Uint8Array())),
          created,
        );
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    for await (const path of files(this.objectsPath)) if (!kept.has(path)) await rm(path, { force: true });
    return kept.size;
  }

  /**
   * The file that keeps the object `key`, or null for a key that could climb out of the directory (`..`, `.`, an
   * empty segment) or names a folder: such a key is never kept.
   */
  #pathOf(key: string): string | null {
    if (
      key === '' ||
      key.endsWith('/') ||
      key.split('/').some((part) => part === '..' || part === '.' || part === '')
    )
      return null;
    return join(this.objectsPath, ...key.split('/'));
  }

  /** Deletes the file that keeps `key` (the object was deleted from the bucket); nothing when there is none. */
  async forgetObject(key: string): Promise<void> {
    const path = this.#pathOf(key);
    if (path === null) return;
    await rm(path, { force: true });
    this.#onDisk.delete(key);
  }

  /**
   * Keeps one object of the bucket on disk: written in full (and flushed) beside the copy, then renamed over its
   * file, so the copy holds either the old object or the new one, never part of one. `created` (epoch ms) becomes
   * the file's time, which retention counts from; by default now, as S3's LastModified. Returns false for a key
   * that cannot be kept (see {@link #pathOf}).
   */
  async keepObject(key: string, body: string | Uint8Array, created?: number): Promise<boolean> {
    const path = this.#pathOf(key);
    if (path === null) return false;
    const partials = join(this.directory, PARTIAL_OBJECTS);
    await makePrivateDirectory(partials);
    const partial = join(partials, randomBytes(12).toString('hex'));
    try {
      const handle = await open(partial, 'wx', PRIVATE_FILE_MODE);
      try {
        // The mode above passes through the umask; this one is exact.
        await handle.chmod(PRIVATE_FILE_MODE);
        await handle.writeFile(body);
        await handle.datasync();
      } finally {
        await handle.close();
      }
      if (created !== undefined) await utimes(partial, new Date(created), new Date(created));
      await makePrivateDirectory(dirname(path));
      await rename(partial, path);
      this.#onDisk.add(key);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return true;
  }

  /**
   * Lets the directory go. With `parkedServer`, the run's DynamoDB Local is left running on it for this process's
   * next run (see `kept-dynamodb-local.ts`): the lock stays, marked parked, naming that server for whoever opens the
   * directory next to stop it.
   */
  async release(parkedServer?: number): Promise<void> {
    if (parkedServer === undefined) {
      await rm(join(this.directory, 'lock'), { force: true });
      return;
    }
    this.#children = [parkedServer];
    await this.#writeLock(true);
  }
}
