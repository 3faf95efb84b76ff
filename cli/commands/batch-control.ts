import { join } from 'node:path';
import type { Command } from 'commander';
import {
  type ApprovalOutcome,
  type BatchStatusView,
  cancelBatch,
  decideBatchApproval,
  statusView,
} from '../../src/application/batch-control/batch-control.ts';
import type { ApprovalDecision, BatchRecord } from '../../src/domain/batch/index.ts';
import { formatBrl } from '../../src/domain/spend/index.ts';
import { resumableNow } from '../batch-bureau.ts';
import { checkBatchId, followAndDownload, print, registerBatchChange, withTarget } from '../batch-change.ts';
import { CliError } from '../cli-error.ts';
import { RESUME_LOOKBACK } from '../local/local-pipeline.ts';
import { addTableAction } from '../option-parsers.ts';
import { type PipelineConnection, withConnection } from '../pipeline-connection.ts';
import { checkResultsDirectoryOption } from '../results-directory.ts';
import { registerRedriveCommand } from './redrive.ts';

/** What a batch has bought so far against its quote: `12 of 290 bought (R$ 783,00 quoted)`. */
function spentOf(view: BatchStatusView): string {
  const quoted = view.quote
    ? ` of ${view.quote.to_buy} (${formatBrl(view.quote.estimated_cost)} quoted)`
    : '';
  return `${view.screened}${quoted} bought`;
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

/** One line per batch for `batches`: id, status, rows, spend, creation time and source. */
function describeBatchLine(view: BatchStatusView): string {
  return `${view.batchId}  ${view.status.padEnd(17)} ${String(view.rows).padStart(8)} rows  ${spentOf(view)}  ${view.createdAt}  ${view.portfolio ? `portfolio ${view.portfolio}` : view.sourceKey}`;
}

/** `batches`: the most recent batches, newest first. */
function registerBatchesCommand(program: Command): void {
  addTableAction(
    program.command('batches').description('List the most recent batches, newest first'),
    'batches',
    async (options) =>
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
  addTableAction(
    program.command('status').description('Show where a batch stands').argument('<batchId>'),
    'status',
    async (options, batchId: string) => {
      checkBatchId(batchId);
      return withConnection(options, async (connection) => {
        const batch = await connection.store.getBatch(batchId);
        if (batch === null) throw new CliError(`no batch ${batchId} in ${connection.where}`);
        const view = statusView(batch);
        print(view, options, () => describeStatus(view, connection.local !== null));
      });
    },
  );
}

/** `cancel <batchId>`: queued documents are settled cancelled without a bureau call. */
function registerCancelCommand(program: Command): void {
  registerBatchChange(
    program
      .command('cancel')
      .description('Cancel a running batch: queued documents are settled cancelled without a bureau call')
      .argument('<batchId>'),
    'cancel',
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
  const path = decision === 'approved' ? 'approve' : 'reject';
  registerBatchChange(
    program
      .command(path)
      .description(
        decision === 'approved'
          ? 'Approve a batch waiting for approval: its documents are bought and screened'
          : 'Reject a batch waiting for approval: nothing is bought, its rows end not_queried',
      )
      .argument('<batchId>'),
    path,
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
          ? `batch ${batchId} approved: ${outcome.rows} documents to buy, sent to the workers in parts by the pipeline`
          : `batch ${batchId} rejected: ${outcome.rows} documents not queried, nothing charged`,
      );
      return true;
    },
  );
}

/** `resume`: finishes the batches an interrupted local run left unfinished, then downloads their results. */
function registerResumeCommand(program: Command): void {
  addTableAction(
    program
      .command('resume')
      .description(
        'Finish the batches an interrupted local run left unfinished (its queues were lost with it), then download their results',
      ),
    'resume',
    async (options) => {
      if (options.stack)
        throw new CliError(
          'resume is for the local state: a deployed stack resumes stuck rows by itself (its sweeper)',
        );
      await checkResultsDirectoryOption(options.out, 'batch folders');
      let unfinished: readonly BatchRecord[] = [];
      const unfinishedOf = async (connection: PipelineConnection) => {
        // As the interrupted run left them: one finalised as this run started is still followed to its results.
        const { resume, later } = resumableNow(
          (await connection.store.listBatches(RESUME_LOOKBACK)).filter(
            (batch) => batch.status === 'running' || batch.status === 'finalising',
          ),
        );
        if (later !== null) process.stderr.write(`${later}\n`);
        unfinished = resume;
        return unfinished;
      };
      return withTarget(options, unfinishedOf, async (connection, startWorkers) => {
        await startWorkers();
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
    },
  );
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
