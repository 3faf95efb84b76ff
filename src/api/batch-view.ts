import type { BatchView } from '../contract/index.ts';
import type { BatchRecord } from '../domain/batch/index.ts';
import { costOf } from '../domain/spend/index.ts';

/** A batch record as the console shows it (see {@link BatchView}): no source key, no ingest bookkeeping. */
export function batchViewOf(batch: BatchRecord): BatchView {
  const { quote } = batch;
  return {
    batchId: batch.batchId,
    status: batch.status,
    sourceName: batch.sourceName ?? null,
    portfolio: batch.portfolio,
    bureau: batch.bureau,
    createdAt: batch.createdAt,
    completedAt: batch.completedAt,
    revision: batch.revision,
    rows: batch.rows,
    toScreen: batch.toScreen,
    settled: batch.settled,
    screened: batch.screened,
    cached: batch.cached,
    failed: batch.failed,
    invalid: batch.invalid,
    duplicates: batch.duplicates,
    cancelled: batch.cancelled,
    notQueried: batch.notQueried,
    maxCharges: batch.maxCharges,
    quote:
      quote === null
        ? null
        : {
            unique: quote.unique,
            reusable: quote.reusable,
            toBuy: quote.to_buy,
            pricePerQuery: quote.price_per_query,
            estimatedCost: quote.estimated_cost,
            estimatedSeconds: quote.estimated_seconds,
          },
    // Every answered query was bought at the quote's price (a redrive's too: it quotes at the batch's price).
    spent: quote === null ? null : costOf(batch.screened, quote.price_per_query),
    approval: batch.approval,
    approvalBy: batch.approvalBy,
    cancelRequested: batch.cancelRequested,
    policy: batch.policy === null ? null : { name: batch.policy.name, sha256: batch.policy.sha256 },
    failure: batch.failure === null ? null : { code: batch.failure.code, message: batch.failure.message },
  };
}
