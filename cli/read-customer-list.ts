import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import {
  type CustomerList,
  CustomerListError,
  type CustomerListOptions,
  type CustomerRow,
  openCustomerList,
} from '../src/domain/intake/index.ts';
import { CliError } from './cli-error.ts';
import { fileErrorReason } from './local/private-files.ts';

const FILE_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
};

/** Turns file-system and file-level list errors into one-line CLI errors that name the file. */
export function asCliError(path: string, error: unknown): unknown {
  if (error instanceof CustomerListError) return new CliError(`${path}: ${error.message}`);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && code in FILE_ERRORS)
    return new CliError(`cannot read ${path}: ${FILE_ERRORS[code]}`);
  // Any other refusal of the file system (a symbolic link loop, a name too long, a path through a file).
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code))
    return new CliError(`cannot read ${path}: ${fileErrorReason(error)}`);
  return error;
}

/** Opens a customer list from a local file, with one-line errors for a missing or unusable file. */
export async function readCustomerListFile(
  path: string,
  options: CustomerListOptions = {},
): Promise<CustomerList> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw Object.assign(new Error('directory'), { code: 'EISDIR' });
    // A pipe or a device (a FIFO, /dev/zero) would be waited on, or read, forever.
    if (!info.isFile()) throw new CliError(`cannot read ${path}: not a regular file`);
    return await openCustomerList(createReadStream(path), options);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw asCliError(path, error);
  }
}

/** Iterates the rows of a list, turning a file-level failure mid-way into a one-line CLI error. */
export async function* rowsOf(path: string, list: CustomerList): AsyncGenerator<CustomerRow> {
  try {
    yield* list.rows;
  } catch (error) {
    throw asCliError(path, error);
  }
}

/**
 * Reads a whole list as ingest's first pass does (no duplicate table), so that a file ingest would refuse is refused
 * here, in one line naming it, before a run starts: with several files, before the first one's documents are bought.
 */
export async function checkWholeListFile(path: string, maxRows: number): Promise<void> {
  const list = await readCustomerListFile(path, { maxRows, detectDuplicates: false });
  for await (const _row of rowsOf(path, list)) {
    // Read to the end: a file is usable only if every row parses within the limits.
  }
}
