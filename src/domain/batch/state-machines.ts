import type { BatchStatus, RowState } from './batch-model.ts';

/**
 * The life of a row, as every store must enforce it: each change names the states it may start from. A store
 * applies a change only from one of those (DynamoDB in a condition expression, the in-memory store by a check), so
 * a duplicate delivery, a late worker or a second sweeper finds the row moved on and changes nothing.
 *
 * - `claim`: a worker takes the row to screen it (from `claimed` only once the holder's lease has run out);
 * - `release`: the holder gives it back (transient failure, 429, invocation ending, failed settle);
 * - `settle`: the holder ends it with its outcome;
 * - `abandon`: its message reached the dead-letter queue; `withhold`: settled without a call before any worker
 *   claimed it (the batch was cancelled, or not approved);
 * - `requeue`: a redrive sends a failed row back.
 */
export const ROW_TRANSITIONS = {
  claim: { from: ['queued', 'claimed'], to: ['claimed'] },
  release: { from: ['claimed'], to: ['queued'] },
  settle: { from: ['claimed'], to: ['screened', 'cached', 'failed', 'cancelled', 'not_queried'] },
  abandon: { from: ['queued', 'claimed'], to: ['failed'] },
  withhold: { from: ['queued'], to: ['cancelled', 'not_queried'] },
  requeue: { from: ['failed'], to: ['queued'] },
} as const satisfies Record<string, { from: readonly RowState[]; to: readonly RowState[] }>;
export type RowTransition = keyof typeof ROW_TRANSITIONS;

/**
 * The life of a batch: ingest writes its rows (`ingesting`), workers screen them (`running`), one finaliser writes
 * the results (`finalising`), and it ends `completed` (or `failed` when the file was refused). A batch that would
 * buy more than the approval threshold waits (`awaiting_approval`) until a person approves it (it runs) or rejects
 * it (it runs to its end with every queued row `not_queried`). A redrive puts a completed batch back to `running`
 * under the next revision.
 */
export const BATCH_TRANSITIONS = {
  finishIngest: { from: ['ingesting'], to: ['running', 'awaiting_approval'] },
  decideApproval: { from: ['awaiting_approval'], to: ['running'] },
  failFile: { from: ['ingesting'], to: ['finalising'] },
  claimFinalisation: { from: ['running'], to: ['finalising'] },
  complete: { from: ['finalising'], to: ['completed', 'failed'] },
  reopenForRedrive: { from: ['completed'], to: ['running'] },
} as const satisfies Record<string, { from: readonly BatchStatus[]; to: readonly BatchStatus[] }>;
export type BatchTransition = keyof typeof BATCH_TRANSITIONS;

/** Whether a row in `state` may go through `transition`. */
export const rowMay = (transition: RowTransition, state: RowState): boolean =>
  (ROW_TRANSITIONS[transition].from as readonly RowState[]).includes(state);

/** Whether a batch in `status` may go through `transition`. */
export const batchMay = (transition: BatchTransition, status: BatchStatus): boolean =>
  (BATCH_TRANSITIONS[transition].from as readonly BatchStatus[]).includes(status);
