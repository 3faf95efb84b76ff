import { join, resolve } from 'node:path';
import { assertWritableDirectory, UnwritableDirectoryError } from '../local/private-files.ts';
import { CliError } from './cli-error.ts';

/**
 * Refuses, with one line naming the option, a directory that cannot be created or written. Called before a
 * command spends anything, so that results it pays for always have somewhere to go.
 */
export async function checkWritableDirectoryOption(option: string, directory: string): Promise<void> {
  try {
    await assertWritableDirectory(directory);
  } catch (error) {
    if (error instanceof UnwritableDirectoryError)
      throw new CliError(`${option} ${error.message}: nothing was screened`);
    throw error;
  }
}

/** Where results go without `--out`: `out/<batchId>`, so `out` is what can be checked beforehand. */
const DEFAULT_RESULTS_PARENT = 'out';

/** Where a batch's results go: `--out`, or `out/<batchId>`, as an absolute path. */
export function resultsDirectory(out: string | undefined, batchId: string): string {
  return resolve(out ?? join(DEFAULT_RESULTS_PARENT, batchId));
}

/** Refuses an `--out` (or the default `out`) that cannot be written, before anything is spent. */
export function checkResultsDirectoryOption(out: string | undefined): Promise<void> {
  return checkWritableDirectoryOption('--out', out ?? DEFAULT_RESULTS_PARENT);
}
