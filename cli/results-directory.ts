import { readdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { resultKeys } from '../src/contract/index.ts';
import { isBatchIdShape } from '../src/domain/batch/index.ts';
import { CliError } from './cli-error.ts';
import { STATE_MARKER } from './local/local-state.ts';
import { assertWritableDirectory, UnwritableDirectoryError } from './local/private-files.ts';
import { printable } from './terminal-text.ts';

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

/**
 * Refuses an `--out` (or the default `out`) that cannot be written, or that holds files other than results,
 * before anything is spent. `holds` says what goes into it: the results themselves, or (the default `out`, and
 * `--out` with several files) one folder of results per batch.
 */
export async function checkResultsDirectoryOption(
  out: string | undefined,
  holds: 'results' | 'batch folders' = out === undefined ? 'batch folders' : 'results',
): Promise<void> {
  const directory = out ?? DEFAULT_RESULTS_PARENT;
  await checkWritableDirectoryOption('--out', directory);
  const foreign = await foreignEntry(resolve(directory), holds === 'batch folders');
  if (foreign !== null)
    throw new CliError(
      `--out ${printable(resolve(directory))} holds ${JSON.stringify(printable(foreign, { maxLength: 60 }))}, which is not a credit-screen result: name an empty or new folder, or one with results only (nothing was screened)`,
    );
}

/** The files a results folder holds: what a batch's results are, and the emulator's counts beside them. */
const RESULT_FILES: ReadonlySet<string> = new Set([
  ...Object.values(resultKeys('batch')).map((key) => basename(key)),
  'emulator-stats.json',
]);

/** Whether `path` is a local state directory (its marker file says so): a run in its own folder keeps it there. */
async function isStateDirectory(path: string): Promise<boolean> {
  return (await stat(join(path, STATE_MARKER)).catch(() => null))?.isFile() === true;
}

/**
 * The first entry of `directory` that is not ours (a result file, a state directory, a check's probe, and with
 * `batchFolders` a batch's folder of results), or null when there is none or no directory. A folder of other
 * files is not one to write results into: `--out /` or `--out ~` would scatter them among the user's files.
 */
async function foreignEntry(directory: string, batchFolders: boolean): Promise<string | null> {
  let entries: string[];
  try {
    entries = await readdir(directory);
  } catch {
    return null;
  }
  for (const entry of entries) {
    if (RESULT_FILES.has(entry) || entry.startsWith('.credit-screen-probe-')) continue;
    const path = join(directory, entry);
    const isFolder = (await stat(path).catch(() => null))?.isDirectory() === true;
    if (isFolder && (await isStateDirectory(path))) continue;
    if (batchFolders && isFolder && isBatchIdShape(entry) && (await foreignEntry(path, false)) === null)
      continue;
    return entry;
  }
  return null;
}
