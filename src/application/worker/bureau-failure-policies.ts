import { backoffSeconds, noAnswerDetail, rateLimitDelaySeconds } from '../../domain/batch/index.ts';
import type { BureauCallError } from '../../domain/bureau/index.ts';
import { type HeldRow, type Outcome, retryAfter, type WorkerDependencies } from './held-row.ts';
import { settleChargeUnknown } from './paid-answers.ts';

/** Said by a failure handler when the call may be tried again in this invocation (after a 429, within bounds). */
export const CALL_AGAIN = Symbol('call again');

/** Where the call stood when it failed. */
export interface FailureContext {
  /** This call is the batch's token probe. */
  readonly probing: boolean;
  /** 429s seen by this row in this invocation so far. */
  readonly rateLimited: number;
}

/** What the worker does with each kind of bureau failure: one policy per kind. */
export async function handleBureauFailure(
  held: HeldRow,
  error: BureauCallError,
  deps: WorkerDependencies,
  context: FailureContext,
): Promise<Outcome | typeof CALL_AGAIN> {
  switch (error.kind) {
    case 'rate_limited':
      return handleRateLimited(held, error, deps, context);
    case 'invalid_token':
      return handleInvalidToken(held, error, deps);
    case 'rejected':
      return handleRejected(held, error, deps, context.probing);
    case 'transient':
      return handleTransient(held, error, deps, context.probing);
    case 'oversized':
      return handleOversized(held, error, deps, context.probing);
    default: {
      const unhandled: never = error.kind;
      throw new Error(`unhandled bureau failure: ${String(unhandled)}`);
    }
  }
}

/**
 * A 429: every worker pauses; this one waits on the shared bucket a few times, then gives the message back, keeping
 * its document's purchase meanwhile (no other batch buys the document while this row waits).
 */
async function handleRateLimited(
  held: HeldRow,
  error: BureauCallError,
  deps: WorkerDependencies,
  context: FailureContext,
): Promise<Outcome | typeof CALL_AGAIN> {
  const { message } = held;
  const now = deps.now ?? Date.now;
  await deps.limiter.pauseUntil(message.bureau, now() + (error.retryAfterSeconds ?? 1) * 1000);
  if (context.rateLimited < deps.settings.rateLimitRetriesPerInvocation) return CALL_AGAIN;
  if (context.probing) await deps.tokenProbes.releaseTokenProbe(message.batchId);
  const delaySeconds = rateLimitDelaySeconds(error.retryAfterSeconds, deps.random);
  await held.keepPurchaseFor(delaySeconds);
  await held.release({ call: 'answered', transientFailure: false });
  return retryAfter(delaySeconds);
}

/** The token was refused: the batch stops querying, and this row fails. */
async function handleInvalidToken(
  held: HeldRow,
  error: BureauCallError,
  deps: WorkerDependencies,
): Promise<Outcome> {
  deps.logger.error('bureau token rejected; the batch stops querying', {
    ...held.log,
    error: error.toJSON(),
  });
  await deps.tokenProbes.markToken(held.message.batchId, 'rejected');
  return held.settle({
    outcome: 'failed',
    reason: `bureau token rejected: ${error.serviceMessage ?? `HTTP ${error.status}`}`,
  });
}

/** The bureau refused this query: asking again will not help. */
async function handleRejected(
  held: HeldRow,
  error: BureauCallError,
  deps: WorkerDependencies,
  probing: boolean,
): Promise<Outcome> {
  if (probing) await deps.tokenProbes.releaseTokenProbe(held.message.batchId);
  deps.logger.warn('bureau rejected the query', { ...held.log, error: error.toJSON() });
  return held.settle({
    outcome: 'failed',
    reason: `rejected by the bureau: ${error.serviceMessage ?? error.message}`,
  });
}

/**
 * 5xx, a timeout, a network failure: back off and retry, up to the policy's attempts, then fail the row. A call
 * that left and got no answer (a timeout) may have been charged: the row settles failed, charge unknown, unless the
 * customer buys such rows again (`rebuyChargeUnknown`). The document's purchase is kept through the back-off: a
 * timeout may have been charged, and its answer may yet be the one every batch uses.
 */
async function handleTransient(
  held: HeldRow,
  error: BureauCallError,
  deps: WorkerDependencies,
  probing: boolean,
): Promise<Outcome> {
  const { message } = held;
  const { settings } = deps;
  if (probing) await deps.tokenProbes.releaseTokenProbe(message.batchId);
  if (held.call === 'unanswered' && !settings.rebuyChargeUnknown) {
    deps.logger.warn('no answer to a call that left; not bought again', {
      ...held.log,
      error: error.toJSON(),
    });
    return settleChargeUnknown(held, noAnswerDetail(error.message));
  }
  const attempt = held.row.transientFailures + 1;
  if (attempt < settings.retry.maxAttempts) {
    const delaySeconds = backoffSeconds(settings.retry, attempt, deps.random);
    await held.keepPurchaseFor(delaySeconds);
    await held.release({ call: held.call, transientFailure: true });
    return retryAfter(delaySeconds);
  }
  deps.logger.warn('giving up after repeated transient failures', {
    ...held.log,
    attempt,
    error: error.toJSON(),
  });
  if (held.call === 'unanswered') {
    // This last call got no answer: it counts as uncertain on the row like the earlier ones.
    await deps.batchRows.recordUncertainCall(message.batchId, message.row, held.claimToken);
  }
  return held.settle({
    outcome: 'failed',
    reason: `bureau unavailable after ${attempt} attempts: ${error.message}`,
  });
}

/** An answer too large to read: it was a report (the token works), it was charged, and it cannot be used. */
async function handleOversized(
  held: HeldRow,
  error: BureauCallError,
  deps: WorkerDependencies,
  probing: boolean,
): Promise<Outcome> {
  if (probing) await deps.tokenProbes.markToken(held.message.batchId, 'verified');
  deps.logger.error('bureau answer too large to read; settled as failed, and it was charged', {
    ...held.log,
    error: error.toJSON(),
  });
  return held.settle({
    outcome: 'failed',
    reason: `the bureau's answer is larger than ${error.maxBytes} bytes and was not read (it was charged)`,
    answered: true,
  });
}
