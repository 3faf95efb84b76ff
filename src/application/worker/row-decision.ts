import { type Decision, decisionInput } from '../../domain/decision/index.ts';
import type { NormalisedReport } from '../../domain/report/index.ts';
import { BatchPolicies } from '../policies/open-batch-policy.ts';
import { describe, type HeldRow, type WorkerDependencies } from './held-row.ts';

/** One set of compiled policies per worker process (per dependencies: tests run several workers in one process). */
const policiesOf = new WeakMap<WorkerDependencies, BatchPolicies>();

/**
 * What the row's batch policy decides on the report it is about to settle with; null when the batch has no policy,
 * this worker has no engine, or the policy cannot be opened (the finaliser then decides the row and says why).
 *
 * The worker decides because it holds the report already: the finaliser would read it again and evaluate every row
 * of the batch in one invocation. Deciding never stands between a paid answer and its settle: whatever goes wrong
 * here, the row settles undecided.
 */
export async function decideHeldRow(held: HeldRow, report: NormalisedReport): Promise<Decision | null> {
  const { batch, deps, row } = held;
  if (batch.policy === null || deps.policyLoader === undefined) return null;
  try {
    let policies = policiesOf.get(deps);
    if (policies === undefined) {
      policies = new BatchPolicies(deps);
      policiesOf.set(deps, policies);
    }
    const policy = await policies.forBatch(batch);
    if (policy === null || 'failure' in policy) return null;
    return await policy.decide(
      decisionInput(report, batch.layout?.passThroughColumns ?? [], row.passThrough),
    );
  } catch (error) {
    deps.logger.warn('could not decide the row; the finaliser will', { ...held.log, error: describe(error) });
    return null;
  }
}
