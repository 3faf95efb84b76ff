/**
 * A file a command writes where the user names it (`studio export --out`, `subject --export`, `report --out`):
 * private to its owner, and never over an existing file unless `--force` says so. A typo in a path must not replace
 * someone's file, and what the command writes (an access request's answer, a report) holds personal data.
 */
import { open, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { CliError } from './cli-error.ts';
import {
  fileErrorReason,
  makePrivateDirectory,
  PRIVATE_FILE_MODE,
  writePrivateFile,
} from './local/private-files.ts';
import { printable } from './terminal-text.ts';

/** A file the user named for a command to write. */
export interface NamedFile {
  /** The option that names it, as refusals say it: `--out`, `--export`. */
  readonly option: string;
  readonly path: string;
  /** Replace the file when it exists (`--force`). */
  readonly force: boolean;
  /** Create the folders it goes in (`report`); otherwise a missing folder is refused, as a typo in the path. */
  readonly createFolders?: boolean;
}

const ALREADY_EXISTS = 'already exists (--force replaces it)';

/**
 * Refuses in one line what would keep `file` from being written, or would replace a file without `--force`: a
 * folder, something other than a regular file, an existing file, a missing folder. Called before anything is asked
 * of a service or a state, so that nothing is done (or paid) for a file that cannot be written.
 */
export async function checkNamedFile(file: NamedFile): Promise<void> {
  const where = `${file.option} ${printable(file.path)}`;
  const info = await stat(file.path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw new CliError(`${where}: ${fileErrorReason(error)}`);
  });
  if (info?.isDirectory()) throw new CliError(`${where}: is a folder; name the file to write`);
  if (info !== null && !info.isFile()) throw new CliError(`${where}: not a regular file`);
  if (info !== null && !file.force) throw new CliError(`${where}: ${ALREADY_EXISTS}`);
  if (file.createFolders) return;
  const folder = await stat(dirname(resolve(file.path))).catch(() => null);
  if (!folder?.isDirectory()) throw new CliError(`${where}: no such folder ${printable(dirname(file.path))}`);
}

/**
 * Writes `data` to the file, readable by its owner only: a new file, or with `force` an existing one replaced (and
 * made private). A file that appeared since {@link checkNamedFile} is not replaced either. Refused in one line.
 */
export async function writeNamedFile(file: NamedFile, data: string): Promise<void> {
  try {
    if (file.createFolders) await makePrivateDirectory(dirname(resolve(file.path)));
    if (file.force) await writePrivateFile(file.path, data);
    else {
      // `wx`: created here, or refused.
      const handle = await open(file.path, 'wx', PRIVATE_FILE_MODE);
      try {
        await handle.chmod(PRIVATE_FILE_MODE);
        await handle.writeFile(data);
      } finally {
        await handle.close();
      }
    }
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'EEXIST' ? ALREADY_EXISTS : fileErrorReason(error);
    throw new CliError(`${file.option} ${printable(file.path)}: ${reason}`);
  }
}
