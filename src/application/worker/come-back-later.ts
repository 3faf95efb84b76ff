import type { WorkMessage } from '../../domain/batch/index.ts';
import { DONE, logFields, type Outcome, retryAfter, type WorkerDependencies } from './held-row.ts';

/**
 * Most times one row is sent again for a wait; after that its waits come back as failures do, so that a row which
 * can never go on still reaches the dead-letter queue and a final status instead of circling forever.
 */
export const MAX_WAITS_PER_ROW = 60;

/**
 * Gives a row that must wait (its batch's token is still being proven, or the invocation ran out of time before
 * its call left) back as a new message delayed by `delaySeconds`, instead of failing the message.
 *
 * A failed message counts towards the queue's `maxReceiveCount`: on a busy or starved pipeline, rows that only
 * waited their turn reached the dead-letter queue without a single call. A new message starts from zero receives;
 * its `waits` counter carries the bound instead. The caller has released the row (nothing was sent).
 */
export async function comeBackLater(
  message: WorkMessage,
  delaySeconds: number,
  waitingFor: string,
  deps: Pick<WorkerDependencies, 'queue' | 'logger'>,
): Promise<Outcome> {
  const waits = message.waits ?? 0;
  if (waits >= MAX_WAITS_PER_ROW) return retryAfter(delaySeconds);
  await deps.queue.deferWork({ ...message, waits: waits + 1 }, delaySeconds);
  deps.logger.info('the row waits and comes back as a new message', {
    ...logFields(message),
    waitingFor,
    waits: waits + 1,
    delaySeconds,
  });
  return DONE;
}
