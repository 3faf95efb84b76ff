import { answerKey } from '../../contract/index.ts';
import type { BatchRecord } from '../../domain/batch/index.ts';
import { DONE, type HeldRow, type Outcome, type WorkerDependencies } from './held-row.ts';
import { settleFromPersistedAnswer } from './paid-answers.ts';

/**
 * How long a row waits before it looks again at another batch's purchase of its document, at most. A purchase is
 * one bureau call (a second or so), so waiting for the whole lease would slow the second batch for nothing; the
 * row comes back sooner when the lease ends sooner.
 */
export const PURCHASE_POLL_SECONDS = 2;

/**
 * Takes the purchase of the row's document before anything is bought for it: one bureau request in flight per
 * bureau and document, whatever the batches, files, reruns and workers.
 *
 * - held: this row buys (null: go on). A holder whose lease ran out may have persisted a paid answer before it
 *   died: that answer settles this row instead.
 * - answered: a purchase recent enough for this batch is paid for: the row settles `cached` from it.
 * - busy: another batch's row is buying it: this row is given back and comes again as a new message after a short
 *   delay (so its waits never reach the queue's `maxReceiveCount`), and takes over only once that lease ran out.
 */
export async function takePurchase(
  held: HeldRow,
  batch: BatchRecord,
  deps: WorkerDependencies,
): Promise<Outcome | null> {
  const { message } = held;
  const now = (deps.now ?? Date.now)();
  const since = acceptAnswersSince(batch, now);
  const claim = await deps.purchases.claim(message.bureau, message.document, held.purchaseHolder, {
    leaseSeconds: deps.settings.claimLeaseSeconds,
    answerKey: answerKey(message.bureau, message.batchId, message.row),
    acceptAnswersSince: since,
  });
  if (claim.kind === 'held') {
    if (claim.abandonedAnswerKey !== null) {
      const settled = await settleFromPersistedAnswer(held, claim.abandonedAnswerKey, deps, since);
      if (settled !== null) {
        // The dead holder's answer is this purchase's answer now: every other waiting batch uses it too.
        await deps.purchases
          .recordAnswer(message.bureau, message.document, held.purchaseHolder, {
            answerKey: claim.abandonedAnswerKey,
            fetchedAt: settled.fetchedAt,
          })
          .catch(() => undefined);
        return settled.outcome;
      }
    }
    held.holdsPurchase = true;
    return null;
  }
  if (claim.kind === 'answered') {
    const settled = await settleFromPersistedAnswer(held, claim.answerKey, deps);
    if (settled !== null) return settled.outcome;
    // The answer is recorded but cannot be read (erased, or its object lost): it answers no one, so it is
    // replaced by a purchase of this row's own.
    deps.logger.warn('the recorded answer of this document cannot be read; buying it again', held.log);
    const newer = new Date(Date.parse(claim.fetchedAt) + 1).toISOString();
    return takePurchase(held, { ...batch, createdAt: newer, freshnessHours: 0 }, deps);
  }
  await held.release({ call: held.call, transientFailure: false });
  const delaySeconds = Math.min(
    PURCHASE_POLL_SECONDS,
    Math.max(1, Math.ceil((claim.leaseUntil - now) / 1000)),
  );
  await deps.queue.deferWork(message, delaySeconds);
  deps.logger.info('another batch is buying this document; this row waits for its answer', {
    ...held.log,
    buyingBatchId: claim.holder.batchId,
    delaySeconds,
  });
  return DONE;
}

/**
 * The oldest purchase this batch may reuse: one made since the batch was created (it is as fresh as the batch's
 * own would be), or within the batch's freshness window when it has one.
 */
export function acceptAnswersSince(batch: BatchRecord, nowMs: number): string {
  if (batch.freshnessHours <= 0) return batch.createdAt;
  const window = new Date(nowMs - batch.freshnessHours * 3_600_000).toISOString();
  return window < batch.createdAt ? window : batch.createdAt;
}
