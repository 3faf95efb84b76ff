import pLimit from 'p-limit';
import { RENEW_MESSAGES_AFTER_SECONDS } from '../../contract/index.ts';
import {
  awaitsScreening,
  type BatchRecord,
  type ClaimedRow,
  isRedrivable,
  isScreening,
  laneOfBatch,
  messagesNeedRenewal,
  stuckClaimsBefore,
  type WorkMessage,
} from '../../domain/batch/index.ts';
import type { BatchRecords, BatchRows, Logger, WorkQueue } from '../../domain/ports/index.ts';
import { finaliseIfLast } from '../completion/finalise-if-last.ts';

interface SweeperSettings {
  /** How long after its lease ran out a claimed row counts as stuck (see `stuckClaimSeconds`). */
  readonly stuckClaimSeconds: number;
  /**
   * How old a running batch's messages may get before its queued rows are dispatched again.
   * @default RENEW_MESSAGES_AFTER_SECONDS
   */
  readonly renewMessagesAfterSeconds?: number;
  /** How many of the newest batches a sweep looks at. @default 1000 */
  readonly batchesPerSweep?: number;
}

export interface SweeperDependencies {
  readonly batchRecords: BatchRecords;
  readonly batchRows: BatchRows;
  readonly queue: WorkQueue;
  readonly logger: Logger;
  readonly settings: SweeperSettings;
  readonly now?: () => number;
  /**
   * The batches this sweeper may take further: a local run leaves another bureau's batches (and, for a command on
   * one batch, the others) to a run that continues them. Unset in AWS, where every batch must finish (its worker
   * refuses to call another bureau). @default every batch
   */
  readonly continues?: (batch: BatchRecord) => boolean;
}

/** What a sweep did: running batches looked at, rows queued again, and how many of those were claimed. */
export interface SweepReport {
  readonly batches: number;
  readonly requeued: number;
  readonly claimed: number;
  /** Batches whose finalisation was asked for again (a resume only). */
  readonly finalisations: number;
  /** Running batches whose queued rows were dispatched again before their messages could expire. */
  readonly renewed: number;
}

const DEFAULT_BATCHES_PER_SWEEP = 1000;
const SEND_CHUNK = 100;
// Claim releases are one conditional write each; a few at a time.
const PARALLEL_RELEASES = 8;

/** A row to queue again, with the claim to release when a dead worker still holds it. */
interface Requeue {
  readonly row: number;
  readonly document: string;
  readonly claimToken: string | null;
}

/**
 * Queues again the rows whose claim ran out long enough ago that no message is left to take them over (deleted
 * while the claim stayed, or expired), and finalises batches whose last settle never asked for it. Each such row
 * gets a fresh message first and then its claim is released, only if that same claim still holds it (a
 * conditional write): a worker still holding a late claim can no longer settle it, and a worker that took the row
 * over meanwhile keeps it. A message for a row settled meanwhile is harmless: the worker finds it settled and
 * drops it without a bureau call.
 */
export async function sweepStuckRows(deps: SweeperDependencies): Promise<SweepReport> {
  const now = (deps.now ?? Date.now)();
  const before = stuckClaimsBefore(now, deps.settings.stuckClaimSeconds);
  const renewAfter = deps.settings.renewMessagesAfterSeconds ?? RENEW_MESSAGES_AFTER_SECONDS;
  const batches = await recentBatches(deps);
  let renewed = 0;
  const report = await sweep(batches, deps, 'stuck rows queued again', async (batch) => {
    if (messagesNeedRenewal(batch, now, renewAfter) && (await renewMessages(batch, deps))) renewed++;
    return claimsToRequeue(batch, before, deps.batchRows);
  });
  return { ...report, renewed };
}

/**
 * Dispatches a running batch's queued rows again, before SQS deletes the messages they wait on (a batch longer than
 * the queue's retention, one paused for days, a dispatch that dead-lettered): first the dispatch, then the mark, so
 * a crash in between repeats the dispatch (harmless) rather than lose it. The mark is conditional on what was read:
 * of two sweeps at once, one records it.
 */
async function renewMessages(batch: BatchRecord, deps: SweeperDependencies): Promise<boolean> {
  await deps.queue.sendDispatch([{ version: 1, batchId: batch.batchId }]);
  const marked = await deps.batchRecords.renewMessages(batch.batchId, batch.messagesSentAt);
  deps.logger.warn('queued rows dispatched again before their messages expire', {
    batchId: batch.batchId,
    messagesSentAt: batch.messagesSentAt ?? batch.createdAt,
  });
  return marked;
}

async function recentBatches(deps: SweeperDependencies): Promise<BatchRecord[]> {
  const batches = await deps.batchRecords.listBatches(
    deps.settings.batchesPerSweep ?? DEFAULT_BATCHES_PER_SWEEP,
    { unfinishedOnly: true },
  );
  return deps.continues === undefined ? batches : batches.filter(deps.continues);
}

/**
 * Resumes the batches of an interrupted run whose messages are all known to be lost (a local run's queues live in
 * memory): every row not settled, queued or claimed, gets a fresh message, whatever its lease says, and claims are
 * released; a batch stopped while finalising is finalised again (the finaliser repeats safely). Only for when no
 * worker can be running (the local state directory is locked to one run).
 */
export async function resumeInterruptedBatches(deps: SweeperDependencies): Promise<SweepReport> {
  const batches = await recentBatches(deps);
  const finalising = batches.filter((batch) => batch.status === 'finalising');
  for (const batch of finalising) await deps.queue.sendFinalise({ version: 1, batchId: batch.batchId });
  const report = await sweep(batches, deps, 'interrupted batch resumed', async (batch) => {
    const claims = new Map(
      (await deps.batchRows.expiredClaims(batch.batchId, Number.MAX_SAFE_INTEGER)).map((claim) => [
        claim.row,
        claim,
      ]),
    );
    const rows: Requeue[] = [];
    for await (const page of deps.batchRows.rows(batch.batchId)) {
      for (const row of page) {
        // A redrive stopped halfway: its remaining failed rows go back too, but only those never possibly charged
        // (what a plain redrive sends). Rows whose charge is unknown are bought again only on the user's word.
        const redriven =
          batch.requeuing && isRedrivable(row, 'not_charged')
            ? await deps.batchRows.requeueFailedRow(batch.batchId, row.row, row)
            : false;
        if (!redriven && !awaitsScreening(row)) continue;
        rows.push({
          row: row.row,
          document: row.document as string,
          claimToken: row.state === 'claimed' ? (claims.get(row.row)?.claimToken ?? null) : null,
        });
      }
    }
    // Every failed row is back in the queue: the redrive's revision may now be finalised.
    if (batch.requeuing) await deps.batchRecords.finishRequeue(batch.batchId);
    return rows;
  });
  return { ...report, finalisations: finalising.length, renewed: 0 };
}

async function claimsToRequeue(
  batch: BatchRecord,
  before: number,
  batchRows: Pick<BatchRows, 'expiredClaims'>,
): Promise<Requeue[]> {
  const claims = await batchRows.expiredClaims(batch.batchId, before);
  return claims.flatMap((claim: ClaimedRow) =>
    claim.document === null
      ? []
      : [{ row: claim.row, document: claim.document, claimToken: claim.claimToken }],
  );
}

async function sweep(
  recent: readonly BatchRecord[],
  deps: SweeperDependencies,
  what: string,
  rowsOf: (batch: BatchRecord) => Promise<Requeue[]>,
): Promise<SweepReport> {
  const batches = recent.filter(isScreening);
  let requeued = 0;
  let claimed = 0;
  const failures: unknown[] = [];
  for (const batch of batches) {
    try {
      const rows = await rowsOf(batch);
      await requeue(batch, rows, deps);
      const heldRows = rows.filter((row) => row.claimToken !== null).length;
      requeued += rows.length;
      claimed += heldRows;
      if (rows.length > 0)
        deps.logger.warn(what, { batchId: batch.batchId, rows: rows.length, claimed: heldRows });
      // The last settle of a batch may have failed before it could ask for the finalisation; nobody else will.
      await finaliseIfLast(batch.batchId, deps);
    } catch (error) {
      // One batch that cannot be swept must not keep the others stuck; the sweep still fails, for its alarm.
      deps.logger.error('could not sweep a batch', { batchId: batch.batchId, error: String(error) });
      failures.push(error);
    }
  }
  if (failures.length > 0)
    throw new AggregateError(failures, `${failures.length} batches could not be swept`);
  return { batches: batches.length, requeued, claimed, finalisations: 0, renewed: 0 };
}

/** Sends the rows' messages first, then releases their claims: a crash in between leaves a message, not a hole. */
async function requeue(
  batch: BatchRecord,
  rows: readonly Requeue[],
  deps: SweeperDependencies,
): Promise<void> {
  const messages: WorkMessage[] = rows.map((row) => ({
    version: 1,
    batchId: batch.batchId,
    row: row.row,
    document: row.document,
    bureau: batch.bureau,
    lane: laneOfBatch(batch),
  }));
  for (let start = 0; start < messages.length; start += SEND_CHUNK)
    await deps.queue.sendWork(messages.slice(start, start + SEND_CHUNK));
  const limit = pLimit(PARALLEL_RELEASES);
  await Promise.all(
    rows.map((row) =>
      row.claimToken === null
        ? undefined
        : limit(() =>
            // The dead holder may have sent a call: the next holder looks for its persisted answer first.
            deps.batchRows.releaseRow(batch.batchId, row.row, row.claimToken as string, {
              call: 'unknown',
              transientFailure: false,
            }),
          ),
    ),
  );
}
