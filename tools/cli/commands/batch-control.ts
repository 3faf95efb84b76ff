import { join } from 'node:path';
import type { Command } from 'commander';
import {
  type ApprovalOutcome,
  type BatchStatusView,
  cancelBatch,
  decideBatchApproval,
  redrivableRows,
  redriveBatch,
  statusView,
} from '../../../src/application/batch-control/batch-control.ts';
import { DEFAULT_SETTINGS } from '../../../src/contract/index.ts';
import {
  type ApprovalDecision,
  type BatchRecord,
  isBatchIdShape,
  MAX_BATCH_ID_LENGTH,
  type RedriveSelection,
} from '../../../src/domain/batch/index.ts';
import { formatBrl } from '../../../src/domain/spend/index.ts';
import { ServiceEmulator } from '../../emulator/service-emulator.ts';
import { type BatchProgress, downloadBatchResults, waitForBatch } from '../../local/batch-results.ts';
import { BatchStalledError } from '../../local/follow-batch.ts';
import { askToBuy } from '../approval-prompt.ts';
import { CliError } from '../cli-error.ts';
import { abortOnInterrupt } from '../interruption.ts';
import { addTableOptions } from '../option-parsers.ts';
import { type PipelineConnection, type TargetOptions, withConnection } from '../pipeline-connection.ts';
import { ProgressDisplay } from '../progress-display.ts';
import { checkResultsDirectoryOption, resultsDirectory } from '../results-directory.ts';
import { printable, printableLines } from '../terminal-text.ts';

interface WorkOptions extends TargetOptions {
  readonly wait: boolean;
  readonly out?: string;
  readonly epoch: number;
}

/** Prints JSON or text for people; either way keys, ids and messages from the store cannot drive the terminal. */
function print(value: unknown, options: TargetOptions, human: () => string): void {
  process.stdout.write(`${printableLines(options.json ? JSON.stringify(value, null, 2) : human())}\n`);
}

/** What a batch has bought so far against its quote: `12 of 290 bought (R$ 783,00 quoted)`. */
function spentOf(view: BatchStatusView): string {
  const quoted = view.quote
    ? ` of ${view.quote.to_buy} (${formatBrl(view.quote.estimated_cost)} quoted)`
    : '';
  return `${view.screened}${quoted} bought`;
}

/** Refuses, before any connection is opened, an argument that cannot be a batch id. */
function checkBatchId(batchId: string): string {
  if (!isBatchIdShape(batchId))
    throw new CliError(
      `not a batch id: ${printable(batchId, { maxLength: MAX_BATCH_ID_LENGTH })} (letters, digits, - and _, at most ${MAX_BATCH_ID_LENGTH})`,
    );
  return batchId;
}

function describeStatus(view: BatchStatusView, local: boolean): string {
  const progress =
    view.toScreen === null ? 'ingesting' : `${view.settled}/${view.toScreen} documents settled`;
  return [
    `batch ${view.batchId}: ${view.status}${view.revision > 1 ? ` (revision ${view.revision})` : ''}${view.cancelRequested ? ', cancel requested' : ''}`,
    `  source      ${view.sourceKey}${view.portfolio ? ` (portfolio ${view.portfolio})` : ''}, bureau ${view.bureau.toUpperCase()}`,
    `  created     ${view.createdAt}${view.completedAt ? `, completed ${view.completedAt}` : ''}`,
    `  progress    ${progress}`,
    `  rows        ${view.rows}: screened ${view.screened}, cached ${view.cached}, duplicate ${view.duplicates}, invalid ${view.invalid}, failed ${view.failed}, cancelled ${view.cancelled}, not queried ${view.notQueried}`,
    ...(view.quote
      ? [
          `  quote       ${view.quote.to_buy} to buy of ${view.quote.unique} unique, ${formatBrl(view.quote.estimated_cost)} at ${formatBrl(view.quote.price_per_query)}`,
          `  spent       ${view.screened} queries answered so far, ${formatBrl(view.screened * view.quote.price_per_query)}${view.maxCharges === null ? '' : ` (cap ${view.maxCharges})`}`,
        ]
      : []),
    ...(view.status === 'awaiting_approval'
      ? [`  approval    waiting: credit-screen approve ${view.batchId} (or reject)`]
      : view.approval
        ? [`  approval    ${view.approval}`]
        : []),
    ...(view.failure ? [`  refused     ${view.failure.message}`] : []),
    ...(local && (view.status === 'running' || view.status === 'finalising')
      ? [`  resume      if the run that started it was interrupted: credit-screen resume`]
      : []),
    ...(view.tokenState === 'rejected' ? ['  token       rejected by the bureau'] : []),
  ].join('\n');
}

/**
 * Runs a control command. Locally the pipeline's workers and finaliser run for the command's duration, against
 * the bundled emulator (at `--epoch`), so a cancel or redrive finishes before the command returns.
 */
function withTarget<T>(
  options: WorkOptions,
  body: (connection: PipelineConnection) => Promise<T>,
): Promise<T> {
  if (options.stack) return withConnection(options, body);
  return (async () => {
    const emulator = await ServiceEmulator.start({ epoch: options.epoch });
    try {
      return await withConnection(options, body, { bureauBaseUrl: emulator.url, token: emulator.token });
    } finally {
      await emulator.close();
    }
  })();
}

/** Follows a batch with the progress bar until it completes, then downloads its results. */
async function followAndDownload(
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

/** The options of the commands that change a batch: where to act, whether to wait, where the results go. */
function addWorkOptions(command: Command): Command {
  return addTableOptions(command, command.name() as 'cancel' | 'redrive' | 'approve' | 'reject' | 'resume');
}

/** One line per batch for `batches`: id, status, rows, spend, creation time and source. */
function describeBatchLine(view: BatchStatusView): string {
  return `${view.batchId}  ${view.status.padEnd(17)} ${String(view.rows).padStart(8)} rows  ${spentOf(view)}  ${view.createdAt}  ${view.portfolio ? `portfolio ${view.portfolio}` : view.sourceKey}`;
}

/** `batches`: the most recent batches, newest first. */
function registerBatchesCommand(program: Command): void {
  addTableOptions(
    program.command('batches').description('List the most recent batches, newest first'),
    'batches',
  ).action(async (options: TargetOptions & { limit: number }) =>
    withConnection(options, async (connection) => {
      const batches = (await connection.store.listBatches(options.limit)).map(statusView);
      print(batches, options, () =>
        batches.length === 0
          ? `no batches in ${connection.where}`
          : batches.map(describeBatchLine).join('\n'),
      );
    }),
  );
}

/** `status <batchId>`: where one batch stands. */
function registerStatusCommand(program: Command): void {
  addTableOptions(
    program.command('status').description('Show where a batch stands').argument('<batchId>'),
    'status',
  ).action(async (batchId: string, options: TargetOptions) => {
    checkBatchId(batchId);
    return withConnection(options, async (connection) => {
      const batch = await connection.store.getBatch(batchId);
      if (batch === null) throw new CliError(`no batch ${batchId} in ${connection.where}`);
      const view = statusView(batch);
      print(view, options, () => describeStatus(view, connection.local !== null));
    });
  });
}

/**
 * Registers a command that changes one batch: the id and `--out` are checked before anything is opened (a redrive
 * or an approval pays for queries: where the rewritten results go is checked first), then `change` runs against
 * the target and, when it returns true, the batch is followed and its results downloaded.
 */
function registerBatchChange(
  command: Command,
  change: (batchId: string, connection: PipelineConnection, options: WorkOptions) => Promise<boolean>,
  /** What to say once the batch was followed to its end (locally, or with --wait). */
  followed?: (batchId: string, connection: PipelineConnection, options: WorkOptions) => Promise<void>,
): void {
  addWorkOptions(command).action(async (batchId: string, options: WorkOptions) => {
    checkBatchId(batchId);
    await checkResultsDirectoryOption(options.out);
    return withTarget(options, async (connection) => {
      const follow = await change(batchId, connection, options);
      if (!follow || !(options.wait || connection.local)) return;
      await followAndDownload(connection, batchId, options);
      await followed?.(batchId, connection, options);
    });
  });
}

/** `cancel <batchId>`: queued documents are settled cancelled without a bureau call. */
function registerCancelCommand(program: Command): void {
  registerBatchChange(
    program
      .command('cancel')
      .description('Cancel a running batch: queued documents are settled cancelled without a bureau call')
      .argument('<batchId>'),
    async (batchId, connection, options) => {
      const outcome = await cancelBatch(batchId, connection);
      if (outcome.outcome !== 'cancelled') {
        throw new CliError(
          {
            not_found: `no batch ${batchId} in ${connection.where}`,
            still_ingesting: `batch ${batchId} is still being ingested; cancel it again in a moment`,
            already_finished: `batch ${batchId} has already finished`,
          }[outcome.outcome],
        );
      }
      const { cancelledRows } = outcome;
      // Rows a worker held (or a killed run left claimed) are settled cancelled as they come back: followed to its
      // end, the batch's own count is said too, since it is the one its results show.
      const followed = options.wait || connection.local !== null;
      if (!options.json || !followed)
        print(outcome, options, () =>
          followed
            ? `batch ${batchId}: cancel requested, ${cancelledRows} queued documents cancelled at once; the rows in flight follow`
            : `batch ${batchId}: ${cancelledRows} queued documents cancelled`,
        );
      return true;
    },
    async (batchId, connection, options) => {
      const batch = await connection.store.getBatch(batchId);
      if (batch === null) return;
      const view = statusView(batch);
      const final = { outcome: 'cancelled', batchId, cancelledRows: view.cancelled, screened: view.screened };
      print(
        final,
        options,
        () =>
          `batch ${batchId}: ${view.cancelled} rows cancelled in all, ${view.screened} screened before the cancel`,
      );
    },
  );
}

interface RedriveOptions extends WorkOptions {
  readonly chargeUnknown?: boolean;
  readonly yes?: boolean;
}

/** The price of one more query of a batch's bureau: its quote's, or the list price. */
function pricePerQueryOf(batch: BatchRecord): number {
  return batch.quote?.price_per_query ?? DEFAULT_SETTINGS.bureaus[batch.bureau].pricePerQuery;
}

/**
 * Rows whose earlier call may have been charged are bought again only on the user's word: the quote is shown,
 * then `--yes`, or a yes at the terminal. False when the user said no; a CliError, with nothing bought, when
 * no one could be asked.
 */
async function agreeToBuyAgain(
  batchId: string,
  connection: PipelineConnection,
  options: RedriveOptions,
): Promise<boolean> {
  const batch = await connection.store.getBatch(batchId);
  // Anything but a completed batch is for redriveBatch to answer (an interrupted redrive goes on unasked).
  if (batch === null || batch.status !== 'completed') return true;
  const rows = (await redrivableRows(batchId, connection)).charge_unknown;
  if (rows === 0) return true;
  const price = pricePerQueryOf(batch);
  const offer = `batch ${batchId}: ${rows} rows whose earlier call may have been charged would be bought again for ${formatBrl(rows * price)} (${formatBrl(price)} each, possibly paid twice)`;
  if (options.yes) return true;
  if (!(process.stdin.isTTY && process.stdout.isTTY))
    throw new CliError(`${offer}: nothing was bought. Rerun with --yes to buy them`);
  const interruption = abortOnInterrupt('interrupted: nothing was bought');
  try {
    if (await askToBuy(offer, interruption)) return true;
  } finally {
    interruption.release();
  }
  process.stderr.write(`batch ${batchId}: nothing was bought\n`);
  return false;
}

/** What a redrive left behind: the failed rows the other kind of redrive would send back. */
function leftBehind(batchId: string, selection: RedriveSelection, left: number): string {
  if (left === 0) return '';
  return selection === 'not_charged'
    ? `; ${left} rows whose earlier call may have been charged are left: credit-screen redrive ${batchId} --charge-unknown quotes them and buys them again`
    : `; ${left} other failed rows are left: credit-screen redrive ${batchId} sends them back`;
}

/** `redrive <batchId>`: a completed batch's failed documents go back to the queue. */
function registerRedriveCommand(program: Command): void {
  registerBatchChange(
    program
      .command('redrive')
      .description(
        "Send a completed batch's failed documents back to the queue and rewrite its results; --charge-unknown buys again, once agreed, those whose call may have been charged",
      )
      .argument('<batchId>'),
    async (batchId, connection, options: RedriveOptions) => {
      const selection: RedriveSelection = options.chargeUnknown ? 'charge_unknown' : 'not_charged';
      if (selection === 'charge_unknown' && !(await agreeToBuyAgain(batchId, connection, options)))
        return false;
      const outcome = await redriveBatch(batchId, connection, selection);
      if (outcome.outcome === 'nothing_to_redrive') {
        const what =
          selection === 'charge_unknown' ? 'no rows whose charge is unknown' : 'no failed documents';
        print(
          outcome,
          options,
          () =>
            `batch ${batchId} has ${what} to send back: nothing to redrive${leftBehind(batchId, selection, outcome.left)}`,
        );
        return false;
      }
      if (outcome.outcome !== 'redriven') {
        throw new CliError(
          outcome.outcome === 'not_found'
            ? `no batch ${batchId} in ${connection.where}`
            : `batch ${batchId} is not completed: only a completed batch can be redriven`,
        );
      }
      const { requeued, revision, left } = outcome;
      const what = selection === 'charge_unknown' ? 'rows whose charge was unknown' : 'failed documents';
      print(
        outcome,
        options,
        () =>
          `batch ${batchId}: ${requeued} ${what} sent back (revision ${revision})${leftBehind(batchId, selection, left)}`,
      );
      return true;
    },
  );
}

/**
 * Why a batch can no longer be approved or rejected, in one line: an earlier decision says more than the status
 * it led to (a rejected batch completes with nothing bought; "it is completed" would hide that it was rejected).
 */
function notAwaitingApproval(
  outcome: Extract<ApprovalOutcome, { outcome: 'not_awaiting_approval' }>,
  decision: ApprovalDecision,
): string {
  const { batchId, status, approval } = outcome;
  if (approval === 'rejected')
    return decision === 'rejected'
      ? `batch ${batchId} was already rejected: nothing was bought`
      : `batch ${batchId} was rejected: nothing was bought, and a rejected batch cannot be approved (screen the list again to buy it)`;
  if (approval === 'approved')
    return decision === 'approved'
      ? `batch ${batchId} was already approved (it is ${status})`
      : `batch ${batchId} was approved: too late to reject it (it is ${status})${status === 'running' ? `; credit-screen cancel ${batchId} stops what is still queued` : ''}`;
  return `batch ${batchId} is not awaiting approval (it is ${status})`;
}

/** `approve <batchId>` or `reject <batchId>`: decides a batch waiting for approval. */
function registerApprovalCommand(program: Command, decision: ApprovalDecision): void {
  registerBatchChange(
    program
      .command(decision === 'approved' ? 'approve' : 'reject')
      .description(
        decision === 'approved'
          ? 'Approve a batch waiting for approval: its documents are bought and screened'
          : 'Reject a batch waiting for approval: nothing is bought, its rows end not_queried',
      )
      .argument('<batchId>'),
    async (batchId, connection, options) => {
      const outcome = await decideBatchApproval(batchId, decision, connection);
      if (outcome.outcome === 'not_found') throw new CliError(`no batch ${batchId} in ${connection.where}`);
      if (outcome.outcome === 'not_awaiting_approval')
        throw new CliError(notAwaitingApproval(outcome, decision));
      if (outcome.outcome !== decision)
        throw new CliError(
          `batch ${batchId} was already ${decision} (${outcome.rows} rows taken care of again)`,
        );
      print(outcome, options, () =>
        decision === 'approved'
          ? `batch ${batchId} approved: ${outcome.rows} documents sent to be screened`
          : `batch ${batchId} rejected: ${outcome.rows} documents not queried, nothing charged`,
      );
      return true;
    },
  );
}

/** `resume`: finishes the batches an interrupted local run left unfinished, then downloads their results. */
function registerResumeCommand(program: Command): void {
  addWorkOptions(
    program
      .command('resume')
      .description(
        'Finish the batches an interrupted local run left unfinished (its queues were lost with it), then download their results',
      ),
  ).action(async (options: WorkOptions) => {
    if (options.stack)
      throw new CliError(
        'resume is for the local state: a deployed stack resumes stuck rows by itself (its sweeper)',
      );
    await checkResultsDirectoryOption(options.out, 'batch folders');
    return withTarget(options, async (connection) => {
      // As the interrupted run left them: one finalised as this run started is still followed to its results.
      const unfinished = (connection.local?.unfinishedBatches ?? []).filter(
        (batch) => batch.status === 'running' || batch.status === 'finalising',
      );
      const resumed = connection.local?.resumed;
      print({ batches: unfinished.map((batch) => batch.batchId), resumed }, options, () =>
        unfinished.length === 0
          ? `nothing to resume in ${connection.where}`
          : `resuming ${unfinished.length === 1 ? '1 batch' : `${unfinished.length} batches`} (${resumed?.requeued ?? 0} documents queued again)`,
      );
      // Each batch's results go to a folder of their own, <--out or out>/<batchId>.
      for (const batch of unfinished)
        await followAndDownload(connection, batch.batchId, {
          ...options,
          out: options.out === undefined ? undefined : join(options.out, batch.batchId),
        });
    });
  });
}

/** Registers the commands that list, inspect and change batches: batches, status, cancel, redrive, approve, reject, resume. */
export function registerBatchControlCommands(program: Command): void {
  registerBatchesCommand(program);
  registerStatusCommand(program);
  registerCancelCommand(program);
  registerRedriveCommand(program);
  for (const decision of ['approved', 'rejected'] as const) registerApprovalCommand(program, decision);
  registerResumeCommand(program);
}
