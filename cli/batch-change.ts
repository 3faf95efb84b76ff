/** What the commands that change a batch share: its id checked, the bureau that continues it, following it. */

import type { Command } from 'commander';
import { type BatchRecord, isBatchIdShape, MAX_BATCH_ID_LENGTH } from '../src/domain/batch/index.ts';
import { type BatchBureau, openBatchBureau } from './batch-bureau.ts';
import { CliError } from './cli-error.ts';
import { abortOnInterrupt } from './interruption.ts';
import { type BatchProgress, downloadBatchResults, waitForBatch } from './local/batch-results.ts';
import { BatchStalledError } from './local/follow-batch.ts';
import { keepStateBureau } from './local/state-bureau.ts';
import type { WORK_OPTIONS } from './option-groups.ts';
import { addTableAction } from './option-parsers.ts';
import type { CommandOptions, OptionsOf } from './option-types.ts';
import { asLocalStartCliError, type PipelineConnection, withConnection } from './pipeline-connection.ts';
import { ProgressDisplay } from './progress-display.ts';
import { checkResultsDirectoryOption, resultsDirectory } from './results-directory.ts';
import { printable, printableLines } from './terminal-text.ts';

/** The options every command that changes a batch takes (and `resume`). */
type WorkOptions = OptionsOf<typeof WORK_OPTIONS>;

/** The commands that change one batch, by their path in the option table. */
type BatchChangePath = 'cancel' | 'redrive' | 'approve' | 'reject';

/** Prints JSON or text for people; either way keys, ids and messages from the store cannot drive the terminal. */
export function print(value: unknown, options: { readonly json?: boolean }, human: () => string): void {
  process.stdout.write(`${printableLines(options.json ? JSON.stringify(value, null, 2) : human())}\n`);
}

/** Refuses, before any connection is opened, an argument that cannot be a batch id. */
export function checkBatchId(batchId: string): string {
  if (!isBatchIdShape(batchId))
    throw new CliError(
      `not a batch id: ${printable(batchId, { maxLength: MAX_BATCH_ID_LENGTH })} (letters, digits, - and _, at most ${MAX_BATCH_ID_LENGTH})`,
    );
  return batchId;
}

/**
 * Runs a control command. Locally the pipeline's workers and finaliser run for the command's duration, against
 * the bureau the batches it continues were started against (the bundled emulator at `--epoch`, or a `--live`
 * gateway), so a cancel or redrive finishes before the command returns. They start when `body` calls
 * `startWorkers`, after its change is made (a cancel is written before any row is taken further), and take only
 * these batches further.
 */
export async function withTarget<T>(
  options: WorkOptions,
  continued: (connection: PipelineConnection) => Promise<readonly BatchRecord[]>,
  body: (connection: PipelineConnection, startWorkers: () => Promise<void>) => Promise<T>,
  /** Whether the command buys nothing for these batches: a `--live` batch's token is then not needed. */
  buysNothing: (batches: readonly BatchRecord[]) => boolean = () => false,
): Promise<T> {
  if (options.stack) return withConnection(options, (connection) => body(connection, async () => undefined));
  let bureau: BatchBureau | null = null;
  try {
    return await withConnection(options, async (connection) => {
      const batches = await continued(connection);
      const opened = await openBatchBureau(batches, options.epoch, { buysNothing: buysNothing(batches) });
      bureau = opened;
      // Before the change: a command that would buy on a state holding another bureau's reports changes nothing.
      if (connection.local && batches.length > 0 && !buysNothing(batches))
        await keepStateBureau(options.state, opened.target.bureauEndpoint, connection.store, {
          record: false,
        }).catch((error: unknown) => {
          throw asLocalStartCliError(error);
        });
      const startWorkers = async () =>
        connection.local?.startWorkers(opened.target, { batches: batches.map((batch) => batch.batchId) });
      return body(connection, startWorkers);
    });
  } finally {
    // Once the workers have stopped with the connection: none is left calling it.
    await (bureau as BatchBureau | null)?.close();
  }
}

/** The batch a command continues, as a list: empty when there is none (the command then says so). */
async function batchNamed(connection: PipelineConnection, batchId: string): Promise<readonly BatchRecord[]> {
  const batch = await connection.store.getBatch(batchId);
  return batch === null ? [] : [batch];
}

/** Follows a batch with the progress bar until it completes, then downloads its results. */
export async function followAndDownload(
  connection: PipelineConnection,
  batchId: string,
  options: WorkOptions,
): Promise<void> {
  const progress = new ProgressDisplay();
  const interruption = abortOnInterrupt('stopped following; the batch goes on');
  try {
    const following = {
      signal: interruption.signal,
      onProgress: (state: BatchProgress) => progress.update(state.settledRows, state.totalRows, state.status),
    };
    // Locally the batch is followed to its end whatever interrupted it (see LocalPipeline.follow).
    if (connection.local) await connection.local.follow(batchId, following);
    else await waitForBatch(connection.store, batchId, following);
  } catch (error) {
    if (interruption.signal.aborted) throw interruption.signal.reason;
    if (error instanceof BatchStalledError) throw new CliError(error.message);
    throw error;
  } finally {
    progress.stop();
    interruption.release();
  }
  const directory = resultsDirectory(options.out, batchId);
  const manifest = await downloadBatchResults(connection.objects, batchId, directory);
  process.stderr.write(
    `results (revision ${manifest.revision}, ${manifest.status}) in ${printable(directory)}\n`,
  );
}

/**
 * A cancel or a reject never buys; an approve buys only for a batch still waiting for it (any other is refused in
 * its own words, which a missing token must not hide).
 */
function buysNothing(command: BatchChangePath, batches: readonly BatchRecord[]): boolean {
  if (command === 'cancel' || command === 'reject') return true;
  return command === 'approve' && batches.every((batch) => batch.status !== 'awaiting_approval');
}

/**
 * Registers a command that changes one batch: the id and `--out` are checked before anything is opened (a redrive
 * or an approval pays for queries: where the rewritten results go is checked first), then `change` runs against
 * the target and, when it returns true, the workers start and the batch is followed and its results downloaded.
 */
export function registerBatchChange<Path extends BatchChangePath>(
  command: Command,
  path: Path,
  change: (
    batchId: string,
    connection: PipelineConnection,
    options: CommandOptions<Path>,
  ) => Promise<boolean>,
  /** What to say once the batch was followed to its end (locally, or with --wait). */
  followed?: (
    batchId: string,
    connection: PipelineConnection,
    options: CommandOptions<Path>,
  ) => Promise<void>,
): void {
  addTableAction(command, path, async (options, batchId: string) => {
    // Each of these commands takes WORK_OPTIONS, read through this type: TypeScript reads no property of a type
    // indexed by a generic path.
    const work: WorkOptions = options;
    checkBatchId(batchId);
    await checkResultsDirectoryOption(work.out);
    return withTarget(
      work,
      (connection) => batchNamed(connection, batchId),
      async (connection, startWorkers) => {
        const follow = await change(batchId, connection, options);
        if (!follow || !(work.wait || connection.local)) return;
        await startWorkers();
        await followAndDownload(connection, batchId, work);
        await followed?.(batchId, connection, options);
      },
      (batches) => buysNothing(path, batches),
    );
  });
}
