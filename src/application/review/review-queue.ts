import type { DecisionReason } from '../../domain/decision/index.ts';
import { maskDocument } from '../../domain/documents/index.ts';
import type { BatchRecords, DecisionOverrides } from '../../domain/ports/index.ts';
import { type DecidedRowsDependencies, ReviewRefusal, readDecidedBatch } from './decided-rows.ts';

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
}

export interface ReviewQueueDependencies extends DecidedRowsDependencies {
  readonly batchRecords: Pick<BatchRecords, 'getBatch' | 'listBatches'>;
  readonly overrides: Pick<DecisionOverrides, 'overridesOf'>;
}

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
): Promise<{ readonly items: ReviewItem[]; readonly batches: number }> {
  const batchIds =
    scope.batchId !== undefined
      ? [scope.batchId]
      : (await deps.batchRecords.listBatches(REVIEW_BATCHES))
          .filter((batch) => batch.status === 'completed' && batch.policy !== null)
          .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
          .map((batch) => batch.batchId);
  const items: ReviewItem[] = [];
  let batches = 0;
  for (const batchId of batchIds) {
    let decided: Awaited<ReturnType<typeof readDecidedBatch>>;
    try {
      decided = await readDecidedBatch(batchId, deps);
    } catch (error) {
      if (scope.batchId !== undefined || !(error instanceof ReviewRefusal)) throw error;
      continue;
    }
    batches++;
    const overridden = new Set((await deps.overrides.overridesOf(batchId)).map((override) => override.row));
    const headers = decided.layout.passThroughHeaders;
    for (const row of decided.rows) {
      if (row.status === 'duplicate' || row.decision?.decision !== 'review' || overridden.has(row.row))
        continue;
      items.push({
        batchId,
        row: row.row,
        document: maskDocument(row.document),
        documentType: row.documentType,
        reasons: row.decision.reasons,
        risk_band: row.decision.risk_band,
        credit_limit: row.decision.credit_limit,
        customer: Object.fromEntries(headers.map((header, index) => [header, row.passThrough[index] ?? ''])),
        batchCreatedAt: decided.batch.createdAt,
      });
    }
  }
  return { items, batches };
}
