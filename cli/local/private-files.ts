import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/**
 * Modes of everything this project writes on the user's machine: reports, raw responses and results hold
 * personal data (names, mothers' names, debts), so only the owner may read them (LGPD).
 */
export const PRIVATE_DIRECTORY_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** A directory that cannot be created or written, with the reason in words. */
export class UnwritableDirectoryError extends Error {
  override readonly name = 'UnwritableDirectoryError';
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

const REASONS: Readonly<Record<string, string>> = {
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  EEXIST: 'not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENOENT: 'cannot be created there',
  ENAMETOOLONG: 'name too long',
  ELOOP: 'too many symbolic links',
};

/** A file-system error said in words (`not a directory`, `permission denied`…), for one-line messages. */
export function fileErrorReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return (code !== undefined && REASONS[code]) || (error as Error | undefined)?.message || String(error);
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * `mkdir -p` that creates each missing directory 0700 and returns the first one it created (undefined if the
 * directory was there). It creates one level at a time instead of using Node's recursive mkdir, which on a path
 * the kernel refuses to create (`/proc/x`) retries forever at full CPU without ever returning.
 */
export async function makePrivateDirectory(path: string): Promise<string | undefined> {
  const missing: string[] = [];
  for (let current = resolve(path); ; current = dirname(current)) {
    try {
      if (!(await stat(current)).isDirectory())
        throw Object.assign(new Error(`${current} is not a directory`), { code: 'ENOTDIR' });
      break;
    } catch (error) {
      if (codeOf(error) !== 'ENOENT' || dirname(current) === current) throw error;
      missing.unshift(current);
    }
  }
  for (const directory of missing) {
    try {
      await mkdir(directory, { mode: PRIVATE_DIRECTORY_MODE });
      // The mode above passes through the umask; this one is exact.
      await chmod(directory, PRIVATE_DIRECTORY_MODE);
    } catch (error) {
      // Created meanwhile by someone else is as good, if it is a directory.
      if (codeOf(error) !== 'EEXIST' || !(await stat(directory)).isDirectory()) throw error;
    }
  }
  return missing[0];
}

/**
 * Writes `data` to `path` readable by its owner only, also when the file was there before with a wider mode;
 * `append` adds to what the file holds.
 */
export async function writePrivateFile(
  path: string,
  data: string | Uint8Array,
  options: { readonly append?: boolean } = {},
): Promise<void> {
  const handle = await open(path, options.append ? 'a' : 'w', PRIVATE_FILE_MODE);
  try {
    await handle.chmod(PRIVATE_FILE_MODE);
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
}

/**
 * Fails with an {@link UnwritableDirectoryError} unless `path` is, or can be made, a directory this process can
 * write: it is created (as it would be later) and a probe file written in it, then whatever was created for the
 * check is removed again. Used before anything is bought, so that results always have somewhere to go.
 */
export async function assertWritableDirectory(path: string): Promise<void> {
  const absolute = resolve(path);
  let created: string | undefined;
  try {
    created = await makePrivateDirectory(absolute);
    const probe = join(absolute, `.credit-screen-probe-${randomBytes(6).toString('hex')}`);
    const handle = await open(probe, 'wx', PRIVATE_FILE_MODE);
    await handle.close();
    await rm(probe, { force: true });
  } catch (error) {
    throw new UnwritableDirectoryError(absolute, fileErrorReason(error));
  } finally {
    if (created !== undefined) await removeCreated(absolute, created);
  }
}

/** Removes the empty directories from `deepest` up to `top`, which the check created; never anything else. */
async function removeCreated(deepest: string, top: string): Promise<void> {
  for (let current = deepest; current.startsWith(top); current = dirname(current)) {
    await rmdir(current).catch(() => undefined);
    if (current === top) return;
  }
}

/** A small file's text, trimmed, or null when it is not there. */
export async function readIfThere(path: string): Promise<string | null> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Writes a private file only if it is not there yet (two runs starting on one state agree on the first one's). */
export async function writeOnce(path: string, text: string): Promise<void> {
  try {
    await writeFile(path, text, { flag: 'wx', mode: PRIVATE_FILE_MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
