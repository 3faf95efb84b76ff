import { setTimeout as sleep } from 'node:timers/promises';
import type { BatchRecord } from '../../src/domain/batch/index.ts';
import { formatDuration } from '../../src/domain/spend/index.ts';
import { type BatchProgress, progressOf } from './batch-results.ts';

/** A batch that cannot reach its end while it is followed; the message says why, and what to do. */
export class BatchStalledError extends Error {
  override readonly name = 'BatchStalledError';
}

export interface FollowOptions {
  readonly onProgress?: (progress: BatchProgress) => void;
  readonly signal?: AbortSignal;
  /** @default 200 */
  readonly pollMs?: number;
  /**
   * How long a batch whose rows are all settled may go unfinalised before its finalisation is run here.
   * @default 10 s, and one more per thousand rows (the finaliser reads every row)
   */
  readonly finaliseGraceMs?: number;
  /** How long no row may settle before following stops, saying so. @default 15 minutes */
  readonly idleLimitMs?: number;
}

/** What following needs of the pipeline: its batch records, and the pipeline's own ways to finalise a batch. */
export interface FollowDependencies {
  getBatch(batchId: string): Promise<BatchRecord | null>;
  /** Claims and queues the finalisation of a running batch whose rows are all settled (`finaliseIfLast`). */
  finaliseIfLast(batchId: string): Promise<void>;
  /** Runs the finaliser on a finalising batch, here and now (`finaliseBatch`; safe to repeat). */
  finalise(batchId: string): Promise<unknown>;
}

const DEFAULT_IDLE_LIMIT_MS = 15 * 60_000;
/** Finalisations run here before following gives up on a batch whose rows are all settled. */
const FINALISE_ATTEMPTS = 3;

/** Every row to screen has its final status, and no redrive is sending rows back: the batch is due to finalise. */
function allSettled(batch: BatchRecord): boolean {
  return (
    (batch.status === 'running' || batch.status === 'finalising') &&
    batch.toScreen !== null &&
    batch.settled >= batch.toScreen &&
    !batch.requeuing
  );
}

/**
 * Finalises a batch whose rows are all settled, as the pipeline would have: a running batch gets its
 * finalisation claimed and queued (what the sweeper does for a last settle that never asked for it), a finalising
 * one is finalised here (its finaliser was killed, or its message lost with a run's in-memory queue; finalising
 * again is safe: the files are rewritten whole and one completion is recorded).
 */
async function finishFinalisation(batch: BatchRecord, deps: FollowDependencies): Promise<void> {
  if (batch.status === 'running') await deps.finaliseIfLast(batch.batchId);
  else await deps.finalise(batch.batchId);
}

/**
 * Follows a batch to its end on the local pipeline and resolves with its last progress once it is completed (or
 * failed as a file). It always ends: a batch whose rows are all settled is finalised whatever interrupted it; one
 * that cannot be (its finaliser fails each time), one waiting for approval, and one where no row settles for
 * `idleLimitMs` end in a {@link BatchStalledError} that says why.
 */
export async function followBatch(
  batchId: string,
  deps: FollowDependencies,
  options: FollowOptions = {},
): Promise<BatchProgress> {
  const idleLimitMs = options.idleLimitMs ?? DEFAULT_IDLE_LIMIT_MS;
  let seen = '';
  let changedAt = Date.now();
  let attempts = 0;
  let lastFailure: string | null = null;
  for (;;) {
    options.signal?.throwIfAborted();
    const batch = await deps.getBatch(batchId);
    if (batch === null) throw new BatchStalledError(`batch ${batchId} does not exist`);
    const progress = progressOf(batch);
    options.onProgress?.(progress);
    if (batch.status === 'completed' || batch.status === 'failed') return progress;
    if (batch.status === 'awaiting_approval')
      throw new BatchStalledError(
        `batch ${batchId} waits for approval: credit-screen approve ${batchId} (or reject ${batchId})`,
      );
    const now = Date.now();
    const state = `${batch.status} ${progress.settledRows}`;
    if (state !== seen) {
      seen = state;
      changedAt = now;
    }
    const idleMs = now - changedAt;
    if (allSettled(batch)) {
      const graceMs = options.finaliseGraceMs ?? 10_000 + batch.rows;
      if (idleMs >= graceMs) {
        if (attempts >= FINALISE_ATTEMPTS)
          throw new BatchStalledError(
            `batch ${batchId}: all ${progress.settledRows} rows are settled, but it could not be finalised` +
              ` (${lastFailure ?? `still ${batch.status}`}); its rows are kept: credit-screen status ${batchId}`,
          );
        attempts++;
        try {
          await finishFinalisation(batch, deps);
        } catch (error) {
          const { name, message } = error as Error;
          lastFailure = `${name}: ${message.replace(/\.$/, '')}`;
        }
        changedAt = Date.now();
      }
    } else if (idleMs >= idleLimitMs) {
      throw new BatchStalledError(
        `no row of batch ${batchId} settled in ${formatDuration(Math.round(idleMs / 1000))} (${progress.settledRows}/${progress.totalRows ?? '?'} rows settled, ${batch.status}): stopped waiting; credit-screen resume takes it up again`,
      );
    }
    await sleep(options.pollMs ?? 200);
  }
}
