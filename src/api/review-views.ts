import { ReviewRefusal } from '../application/review/decided-rows.ts';
import type { QueuedItem } from '../application/review/review-queue.ts';
import type { ReviewItemView, ReviewQuery } from '../contract/index.ts';

const REFUSAL_STATUS = { forbidden: 403, missing: 404, refused: 409 } as const;

/**
 * What `action` answers, or its one-line refusal with its status: 403 for what the person may not do, 404 for a batch or row that does not exist, 409 for
 * one that cannot be decided now (not finished, no policy, no decision).
 */
export async function refused<T>(
  action: () => Promise<T>,
): Promise<T | { readonly error: string; readonly status: 403 | 404 | 409 }> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof ReviewRefusal) return { error: error.message, status: REFUSAL_STATUS[error.kind] };
    throw error;
  }
}

/** A row in the queue as the console shows it. */
export const queuedItemView = (item: QueuedItem): ReviewItemView => ({
  batchId: item.batchId,
  row: item.row,
  document: item.document,
  documentType: item.documentType,
  reasons: item.reasons,
  riskBand: item.risk_band,
  creditLimit: item.credit_limit,
  customer: item.customer,
  batchCreatedAt: item.batchCreatedAt,
  queue: item.queue,
  dueAt: item.dueAt,
  assignee: item.assignee,
  comments: item.comments,
});

/** Whether a row passes the queue's filters, for the person `me` at `now` (ISO 8601). */
export function keptByFilters(
  item: QueuedItem,
  filters: Pick<ReviewQuery, 'assigned' | 'overdue' | 'queue'>,
  me: string,
  now: string,
): boolean {
  const holder =
    filters.assigned === 'anyone' ||
    (filters.assigned === 'me' ? item.assignee?.subject === me : item.assignee === null);
  return (
    holder &&
    (filters.overdue === 'false' || item.dueAt < now) &&
    (filters.queue ?? item.queue) === item.queue
  );
}
