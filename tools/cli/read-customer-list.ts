import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import {
  type CustomerList,
  CustomerListError,
  type CustomerListOptions,
  type CustomerRow,
  openCustomerList,
} from '../../src/domain/intake/index.ts';
import { CliError } from './cli-error.ts';

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
    return await openCustomerList(createReadStream(path), options);
  } catch (error) {
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
