import type { BatchRecord } from '../../domain/batch/index.ts';
import type { CreditPolicy, CreditPolicyLoader, Logger, ObjectStore } from '../../domain/ports/index.ts';

/** A batch's compiled policy, or why it cannot decide (its rows then go to `review` with `POLICY_ERROR`). */
export type OpenedPolicy = CreditPolicy | { readonly failure: string };

export interface PolicyOpening {
  readonly objects: Pick<ObjectStore, 'readTextIfExists'>;
  readonly policyLoader?: CreditPolicyLoader;
  readonly logger: Logger;
}

/**
 * Compiles the batch's own copy of its policy (the one ingest kept, by its hash): every decision of a batch comes
 * from those bytes, whoever evaluates it. Null for a batch without a policy. A copy that is missing or no longer
 * compiles is logged once here and answered as a failure, never as a policy that approves.
 */
export async function openBatchPolicy(batch: BatchRecord, deps: PolicyOpening): Promise<OpenedPolicy | null> {
  if (batch.policy === null) return null;
  const text = await deps.objects.readTextIfExists(batch.policy.key);
  if (text === null || deps.policyLoader === undefined) {
    const failure = text === null ? 'the batch’s copy of its policy is missing' : 'no policy engine here';
    deps.logger.error('the batch’s policy cannot be used; its rows go to review', {
      batchId: batch.batchId,
      failure,
    });
    return { failure };
  }
  const loaded = await deps.policyLoader.load(batch.policy.name, text);
  if (!loaded.ok) {
    deps.logger.error('the batch’s policy does not compile; its rows go to review', {
      batchId: batch.batchId,
      error: loaded.error,
    });
    return { failure: loaded.error };
  }
  return loaded.policy;
}

/** Batches whose policies one process keeps compiled: a worker sees a handful of batches at a time. */
const POLICIES_KEPT = 16;

/**
 * The compiled policies of the batches a long-lived process (a warm worker) decides for: each batch's copy read and
 * compiled once, the least recently used forgotten beyond {@link POLICIES_KEPT}. A copy that is missing or does not
 * compile stays so (ingest kept it before it queued a row), so that answer is kept too; a read that failed is not.
 */
export class BatchPolicies {
  readonly #opened = new Map<string, Promise<OpenedPolicy | null>>();

  constructor(private readonly deps: PolicyOpening) {}

  forBatch(batch: BatchRecord): Promise<OpenedPolicy | null> {
    const known = this.#opened.get(batch.batchId);
    if (known !== undefined) {
      this.#opened.delete(batch.batchId);
      this.#opened.set(batch.batchId, known);
      return known;
    }
    const opening = openBatchPolicy(batch, this.deps).catch((error: unknown) => {
      // The store failed, not the policy: the next row reads the copy again.
      this.#opened.delete(batch.batchId);
      throw error;
    });
    this.#opened.set(batch.batchId, opening);
    while (this.#opened.size > POLICIES_KEPT) {
      const oldest = this.#opened.keys().next().value as string;
      this.#opened.delete(oldest);
    }
    return opening;
  }
}
