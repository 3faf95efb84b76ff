import type { BatchRecord, RowRecord } from './batch-model.ts';

/** A row a worker holds, as the sweeper reads it: enough to queue it again and to release exactly that claim. */
export interface ClaimedRow {
  readonly row: number;
  readonly document: string | null;
  readonly claimToken: string;
}

/** The batches whose rows are being screened, the only ones a row can be stuck in. */
export const isScreening = (batch: BatchRecord): boolean => batch.status === 'running';

/**
 * Whether a running batch's work messages are old enough that those still queued may expire before a worker takes
 * them (`renewAfterSeconds`, see `renewMessagesAfterSeconds`): its queued rows are then dispatched again.
 */
export const messagesNeedRenewal = (batch: BatchRecord, now: number, renewAfterSeconds: number): boolean =>
  isScreening(batch) && now - Date.parse(batch.messagesSentAt ?? batch.createdAt) >= renewAfterSeconds * 1000;

/**
 * Epoch milliseconds before which a claim must have run out for its row to be stuck: a message still in the queue
 * would have come back by then and taken the row over, so no message is left to do it.
 */
export const stuckClaimsBefore = (now: number, stuckClaimSeconds: number): number =>
  now - stuckClaimSeconds * 1000;

/**
 * A row still waiting for its document to be screened. When every message is known to be lost (the in-memory
 * queues of an interrupted local run), each such row needs a new one.
 */
export const awaitsScreening = (row: RowRecord): boolean =>
  (row.state === 'queued' || row.state === 'claimed') && row.document !== null;
