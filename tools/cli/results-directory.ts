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
export const DEFAULT_RESULTS_PARENT = 'out';
