import { DEFAULT_SETTINGS } from '../../contract/index.ts';
import type { BatchRecord } from '../../domain/batch/index.ts';
import { type DecisionReason, mapInOrder } from '../../domain/decision/index.ts';
import { maskDocument } from '../../domain/documents/index.ts';
import type { BatchRecords, DecisionOverrides, ObjectStore, ReviewCases } from '../../domain/ports/index.ts';
import { type CasePerson, type ReviewSla, reviewDueAt, slaHoursOf } from '../../domain/review/index.ts';
import { type DecidedRowsDependencies, ReviewRefusal, readReviewLines } from './decided-rows.ts';

/** A row waiting for a person: the policy said `review` and nobody has decided it yet. */
export interface ReviewItem {
  readonly batchId: string;
  readonly row: number;
  /** Masked (`123.***.***-09`): the queue is read on screens and in tickets; the summary has it in full. */
  readonly document: string;
  readonly documentType: 'cpf' | 'cnpj' | null;
  readonly reasons: readonly DecisionReason[];
  readonly risk_band: string | null;
  readonly credit_limit: number | null;
  /** The customer's own columns of the row, by their headers (an id, the amount asked). */
  readonly customer: Readonly<Record<string, string>>;
  /** When the batch was created: the oldest work first. */
  readonly batchCreatedAt: string;
  /** The queue the row waits in: the policy that sent it to review. */
  readonly queue: string;
  /** When a person should have decided it: the batch's completion plus its queue's hours (ISO 8601, UTC). */
  readonly dueAt: string;
}

/** A row in the queue with who works it: its case's assignee and how many comments it has. */
export interface QueuedItem extends ReviewItem {
  readonly assignee: CasePerson | null;
  readonly comments: number;
}

export interface ReviewQueueDependencies extends DecidedRowsDependencies {
  readonly objects: Pick<ObjectStore, 'readTextIfExists' | 'read'>;
  readonly batchRecords: Pick<BatchRecords, 'getBatch' | 'listBatches'>;
  readonly overrides: Pick<DecisionOverrides, 'overridesOf'>;
  /** Who works each row; without it, nobody does (the command line's queue). */
  readonly reviewCases?: Pick<ReviewCases, 'casesOf'>;
  /** How long each queue's rows may wait. @default the settings' default (24 hours for every queue) */
  readonly sla?: ReviewSla;
  /**
   * Each decided batch's rows in review, kept between requests (a process that answers many, as the console's API):
   * reading them parses the batch's whole summary. Kept by the batch's revision and completion, which a redrive
   * changes, and for {@link CACHE_MS} at most: an erasure elsewhere (the command line, another function) rewrites the
   * summary without changing the batch, and what it erased must not stay on screens for long (one in this process
   * empties the cache at once). Overrides and cases are read on every request.
   */
  readonly cache?: ReviewRowsCache;
  /** @default the clock */
  readonly nowMs?: () => number;
}

/** Rows in review by decided batch (see {@link ReviewQueueDependencies.cache}); a Map will do. */
export type ReviewRowsCache = Map<
  string,
  { readonly version: string; readonly items: readonly ReviewItem[]; readonly readAtMs: number }
>;

/** How long a batch's rows in review are kept: an erasure made elsewhere shows in the queue within this. */
const CACHE_MS = 5 * 60_000;

/** A batch to list, with its record as read (null: none, refused in one line when it was named). */
interface Listed {
  readonly batchId: string;
  readonly record: BatchRecord | null;
}

/**
 * Rows in review read of one batch at most: the console lists the oldest 10,000 waiting, and a batch of millions
 * may send hundreds of thousands to people (read in full, they would outgrow a request). Twice that, for the rows
 * overridden among them.
 */
const MOST_ROWS_PER_BATCH = 20_000;

/** Batches read at once: each is a few reads (its record, its overrides, its cases; its summary when not cached). */
const READS_IN_FLIGHT = 8;

/** Batches the cache keeps at most: the queue looks at the most recent ones. */
const CACHED_BATCHES = 400;

/** Batches looked at when no batch is named: the most recent ones (batches are one per upload or run). */
const REVIEW_BATCHES = 200;

/**
 * The rows waiting for a person, for one batch or across the recent finished batches with a policy, oldest batch
 * first and in row order: each once (a duplicate follows its first occurrence), without the rows already
 * overridden. Naming a batch that cannot have decisions is refused in one line; across batches such batches are
 * skipped.
 */
export async function reviewQueue(
  scope: { readonly batchId?: string },
  deps: ReviewQueueDependencies,
): Promise<{ readonly items: QueuedItem[]; readonly batches: number }> {
  // The records listed are the ones read on: each batch's record is read once a request.
  const listed: Listed[] =
    scope.batchId !== undefined
      ? [{ batchId: scope.batchId, record: await deps.batchRecords.getBatch(scope.batchId) }]
      : (await deps.batchRecords.listBatches(REVIEW_BATCHES))
          .filter((batch) => batch.status === 'completed' && batch.policy !== null)
          .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
          .map((record) => ({ batchId: record.batchId, record }));
  const items: QueuedItem[] = [];
  let batches = 0;
  // Each batch's rows, overrides and cases are reads of their own: a few batches at a time, listed in order.
  for await (const queued of mapInOrder(listed, (batch) => queuedOf(batch, scope, deps), READS_IN_FLIGHT)) {
    if (queued === null) continue;
    batches++;
    items.push(...queued);
  }
  return { items, batches };
}

/** A batch's rows still waiting, with who holds each; null for a batch skipped (across batches, one not decided). */
async function queuedOf(
  batch: Listed,
  scope: { readonly batchId?: string },
  deps: ReviewQueueDependencies,
): Promise<QueuedItem[] | null> {
  const { batchId } = batch;
  let inReview: readonly ReviewItem[];
  try {
    inReview = await rowsInReview(batch, deps);
  } catch (error) {
    if (scope.batchId !== undefined || !(error instanceof ReviewRefusal)) throw error;
    return null;
  }
  const [overrides, cases] = await Promise.all([
    deps.overrides.overridesOf(batchId),
    deps.reviewCases?.casesOf(batchId) ?? [],
  ]);
  const overridden = new Set(overrides.map((override) => override.row));
  const byRow = new Map(cases.map((found) => [found.row, found]));
  return inReview
    .filter((item) => !overridden.has(item.row))
    .map((item) => {
      const found = byRow.get(item.row);
      return { ...item, assignee: found?.assignee ?? null, comments: found?.comments.length ?? 0 };
    });
}

/** A decided batch's rows the policy sent to review, each once (a duplicate follows its first occurrence). */
async function rowsInReview(
  { batchId, record }: Listed,
  deps: ReviewQueueDependencies,
): Promise<readonly ReviewItem[]> {
  const version =
    record === null || !deps.cache ? null : `${record.revision}|${record.completedAt ?? ''}|${record.status}`;
  const cached = version === null ? undefined : deps.cache?.get(batchId);
  const nowMs = (deps.nowMs ?? Date.now)();
  if (cached !== undefined && cached.version === version && nowMs - cached.readAtMs < CACHE_MS)
    return cached.items;
  const { batch: decided, lines } = await readReviewLines(batchId, deps, {
    known: record ?? undefined,
    most: MOST_ROWS_PER_BATCH,
  });
  const queue = decided.policy?.name ?? '';
  const dueAt = reviewDueAt(
    decided.completedAt ?? decided.createdAt,
    slaHoursOf(deps.sla ?? DEFAULT_SETTINGS.reviewSla, queue),
  );
  const items: ReviewItem[] = lines.map((line) => ({
    batchId,
    row: line.row,
    document: maskDocument(line.document),
    documentType: line.documentType,
    reasons: line.reasons,
    risk_band: line.risk_band,
    credit_limit: line.credit_limit,
    customer: line.customer,
    batchCreatedAt: decided.createdAt,
    queue,
    dueAt,
  }));
  if (deps.cache && version !== null) {
    if (deps.cache.size >= CACHED_BATCHES) deps.cache.delete(deps.cache.keys().next().value as string);
    deps.cache.delete(batchId); // kept in the order read: the oldest is the first to go
    deps.cache.set(batchId, { version, items, readAtMs: nowMs });
  }
  return items;
}

/** The row the policy sent to review, as the queue lists it; refused as missing when the policy did not. */
export async function reviewItemOf(
  key: { readonly batchId: string; readonly row: number },
  deps: ReviewQueueDependencies,
): Promise<ReviewItem> {
  const record = await deps.batchRecords.getBatch(key.batchId);
  const found = (await rowsInReview({ batchId: key.batchId, record }, deps)).find(
    (item) => item.row === key.row,
  );
  if (found === undefined)
    throw new ReviewRefusal(`row ${key.row} of batch ${key.batchId} was not sent to review`, 'missing');
  return found;
}
