import {
  type BatchRecord,
  backoffSeconds,
  CANCELLED_DETAIL,
  CHARGE_UNKNOWN_DETAIL,
  NOT_APPROVED_DETAIL,
  otherEndpointDetail,
  parseMessage,
  SETTLED_STATES,
  type WorkMessage,
  workMessageSchema,
} from '../../domain/batch/index.ts';
import { BureauCallError, continuesAt } from '../../domain/bureau/index.ts';
import type { BureauResponse, QueueRecord } from '../../domain/ports/index.ts';
import {
  BUDGET_EXHAUSTED_DETAIL,
  type BudgetScope,
  chargeMonth,
  SPENDING_CAP_ALERT,
} from '../../domain/spend/index.ts';
import { finaliseIfLast } from '../completion/finalise-if-last.ts';
import { auditBureauRequest } from './audit-trail.ts';
import { CALL_AGAIN, handleBureauFailure } from './bureau-failure-policies.ts';
import { CallSlots, type WrittenAhead } from './call-slots.ts';
import { comeBackLater } from './come-back-later.ts';
import { takePurchase } from './document-purchase.ts';
import {
  DONE,
  describe,
  HeldRow,
  type Invocation,
  logFields,
  type Outcome,
  retryAfter,
  type WorkerDependencies,
} from './held-row.ts';
import { persistAndSettle, recoverInheritedCall, settleChargeUnknown } from './paid-answers.ts';
import { TokenGate, type TokenGateAnswer } from './token-gate.ts';

export type { WorkerDependencies, WorkerSettings } from './held-row.ts';

const TOKEN_REJECTED = 'not queried: the bureau token was rejected';

/**
 * Screens the documents of one SQS batch and says which messages must come back (ReportBatchItemFailures).
 *
 * Per message: claim the row (conditional, with a lease), take its document's purchase (or settle from another
 * batch's, or wait for it), wait for the global rate limit, call the bureau, archive the raw response, and settle the
 * row together with the batch counters. Nothing is charged twice: a duplicate delivery finds the row claimed or
 * settled; another batch finds the document's purchase held or answered; a retry after a crash can repeat only a
 * call whose result was never persisted.
 */
export async function screenDocuments(
  records: readonly QueueRecord[],
  deps: WorkerDependencies,
  signal?: AbortSignal,
): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const failures: { itemIdentifier: string }[] = [];
  // The limit is on bureau calls, not on messages: claims and settles of every message overlap with the calls.
  const invocation: Invocation = {
    batches: new Map(),
    settledBatches: new Set(),
    calls: new CallSlots(deps.settings.callsPerInvocation, (bureau, abort) =>
      deps.limiter.acquire(bureau, abort),
    ),
  };
  await Promise.all(
    records.map((record) =>
      (async () => {
        let outcome: Outcome;
        try {
          outcome = await screenOne(record, deps, invocation, signal);
        } catch (error) {
          deps.logger.error('unexpected failure; the message will be retried', {
            messageId: record.messageId,
            error: describe(error),
          });
          // Soon, but not at once: a fault that persists (storage down) should not spin.
          outcome = retryAfter(backoffSeconds(deps.settings.retry, 1, deps.random));
        }
        if (!outcome.done) {
          failures.push({ itemIdentifier: record.messageId });
          if (outcome.delaySeconds !== null) {
            await deps.visibility
              .delay(record.receiptHandle, outcome.delaySeconds)
              .catch((error: unknown) => {
                deps.logger.warn(
                  'could not delay the message; it returns after the queue visibility timeout',
                  { error: describe(error) },
                );
              });
          }
        }
      })(),
    ),
  );
  // Once per batch touched, not once per row: did this invocation settle a batch's last row?
  for (const batchId of invocation.settledBatches) {
    await finaliseIfLast(batchId, deps).catch((error: unknown) => {
      deps.logger.error('could not check for finalisation; a later settle will', {
        batchId,
        error: describe(error),
      });
    });
  }
  return { batchItemFailures: failures };
}

async function screenOne(
  record: QueueRecord,
  deps: WorkerDependencies,
  invocation: Invocation,
  signal?: AbortSignal,
): Promise<Outcome> {
  const { batchRecords, batchRows, logger, settings } = deps;
  const message = parseMessage(workMessageSchema, record.body);
  if (message === null) {
    // Not ours or damaged: let it reach the dead-letter queue and its alarm, never the bureau.
    logger.error('message is not a work message', { messageId: record.messageId });
    return retryAfter(null);
  }
  let cached = invocation.batches.get(message.batchId);
  if (cached === undefined) {
    cached = batchRecords.getBatch(message.batchId);
    invocation.batches.set(message.batchId, cached);
  }
  // A token rejected after this read is still caught: the call that is refused marks the batch, and every later
  // call gets the same refusal (at most one invocation's calls, which the token probe already keeps to one at first).
  const batch = await cached;
  if (batch === null) {
    logger.warn('batch no longer exists (expired); message dropped', logFields(message));
    return DONE;
  }
  // Nothing is bought for a batch a person has not approved yet, whatever sent the message: its approval asks for
  // every row still queued.
  if (batch.status === 'awaiting_approval') {
    logger.warn('batch awaits approval; message dropped', logFields(message));
    return DONE;
  }
  const claim = await batchRows.claimRow(message.batchId, message.row, settings.claimLeaseSeconds);
  if (!claim.claimed) {
    if (claim.row === null || SETTLED_STATES.includes(claim.row.state)) return DONE; // duplicate delivery
    // Another worker holds the row. If it crashed, its lease runs out and this message can take over then.
    return retryAfter(settings.claimLeaseSeconds);
  }
  const held = new HeldRow(
    message,
    batch,
    claim.claimToken,
    claim.row,
    claim.inheritedCall,
    deps,
    invocation,
  );
  try {
    return await screenHeldRow(held, batch, deps, invocation, signal);
  } catch (error) {
    // Our own fault (storage, a bug): the row goes back with what is known of its call, so the next holder does
    // not count a call that was never sent as one that may have been charged. A row already settled or released
    // ignores this (the release is conditional on the claim).
    await held.release({ call: held.call, transientFailure: false }).catch(() => undefined);
    throw error;
  }
}

/**
 * Everything after the claim: a persisted answer first, then the batch's state, the document's purchase, the token
 * probe, the call.
 */
async function screenHeldRow(
  held: HeldRow,
  batch: BatchRecord,
  deps: WorkerDependencies,
  invocation: Invocation,
  signal?: AbortSignal,
): Promise<Outcome> {
  const { message } = held;
  if (held.inheritedCall) {
    const recovered = await recoverInheritedCall(held, deps);
    if (recovered !== null) return recovered;
  }
  if (batch.cancelRequested) return held.settle({ outcome: 'cancelled', reason: CANCELLED_DETAIL });
  // A rejected batch buys nothing: a row its reject left queued (an interrupted reject, then a renewal) ends here.
  if (batch.approval === 'rejected')
    return held.settle({ outcome: 'not_queried', reason: NOT_APPROVED_DETAIL });
  if (batch.tokenState === 'rejected') return held.settle({ outcome: 'failed', reason: TOKEN_REJECTED });
  // Another bureau's answer would be made-up data for this batch's customers: nothing is sent, nothing charged.
  // Here continuesAt is false only for a batch that recorded where it was started (see continuesAt).
  if (!continuesAt(batch, deps.settings.bureauEndpoint))
    return held.settle({
      outcome: 'failed',
      reason: otherEndpointDetail(batch.bureauEndpoint ?? 'another bureau'),
    });
  // One purchase per document across batches: another batch's answer settles this row, or it waits for one.
  const shared = await takePurchase(held, batch, deps);
  if (shared !== null) return shared;

  // Until the token has worked once for this batch, one request at a time: a wrong token costs one request.
  let probing = false;
  if (batch.tokenState === 'unverified') {
    const gate = await waitForToken(message, deps, signal);
    if (gate === 'rejected') return held.settle({ outcome: 'failed', reason: TOKEN_REJECTED });
    if (gate === 'undecided') {
      await held.release({ call: 'not_sent', transientFailure: false });
      return comeBackLater(message, 2, 'token probe', deps);
    }
    probing = gate === 'probe';
  }
  return callBureau(held, deps, invocation, { probing, signal, maxCharges: batch.maxCharges });
}

async function callBureau(
  held: HeldRow,
  deps: WorkerDependencies,
  invocation: Invocation,
  options: { readonly probing: boolean; readonly signal?: AbortSignal; readonly maxCharges: number | null },
): Promise<Outcome> {
  const { message } = held;
  const { tokenProbes } = deps;
  const now = deps.now ?? Date.now;
  const budget: BudgetScope = { bureau: message.bureau, batchId: message.batchId, month: chargeMonth(now()) };
  for (let rateLimited = 0; ; rateLimited++) {
    // A unit of budget before the call, never after: no cap can be overrun by workers racing for its last unit.
    if (!(await reserveBudget(held, budget, options.maxCharges, deps))) {
      if (options.probing) await tokenProbes.releaseTokenProbe(message.batchId);
      return held.settle({ outcome: 'not_queried', reason: BUDGET_EXHAUSTED_DETAIL });
    }
    let response: BureauResponse;
    try {
      // The rate-limit token is reserved while the calls ahead are in flight, never long before (see CallSlots).
      // No signal on the call on purpose: a call in flight is never cut (the bureau may have charged it already);
      // it ends by itself within its own timeout, which the invocation's deadline leaves room for.
      response = await invocation.calls.run(
        message.bureau,
        () => deps.bureau.fetchReport(message.bureau, message.document),
        options.signal,
        writeCallAhead(held, deps),
      );
    } catch (error) {
      if (error instanceof ClaimLostBeforeCall) {
        // Another holder took the row over (this one's lease ran out): it is theirs to screen; nothing was sent.
        await giveBackIfUncharged(held, error, budget, deps);
        if (options.probing) await tokenProbes.releaseTokenProbe(message.batchId).catch(() => undefined);
        deps.logger.warn('claim lost before the call; the other holder screens the row', held.log);
        return DONE;
      }
      // Sent, whatever became of it (a call that never started, a rate-limit wait cut short, a connection the bureau
      // refused, is not a request).
      if (error instanceof BureauCallError && error.sent)
        await auditBureauRequest(held, { httpStatus: error.status, charge: error.charge });
      await giveBackIfUncharged(held, error, budget, deps);
      if (!(error instanceof BureauCallError)) return handleOwnFailure(held, error, deps, options);
      held.call = error.answered ? 'answered' : error.sent ? 'unanswered' : 'not_sent';
      const next = await handleBureauFailure(held, error, deps, { probing: options.probing, rateLimited });
      if (next === CALL_AGAIN) continue; // the shared bucket makes us wait
      return next;
    }
    const answeredAt = now();
    // The paid answer is kept and settled first (nothing may fail before it); the token's proof and the audit entry
    // follow. A row given back unsettled is audited by whoever settles it from the persisted answer.
    const outcome = await persistAndSettle(held, response, deps);
    if (options.probing) await tokenProbes.markToken(message.batchId, 'verified');
    if (outcome.done)
      await auditBureauRequest(held, {
        httpStatus: response.httpStatus,
        charge: 'charged',
        atMs: answeredAt,
      });
    return outcome;
  }
}

/**
 * The record of a call about to leave, written while its rate slot comes: if this process dies from then on, the
 * next holder knows the call may have been charged. Withdrawn when no slot could be had after it: the row is then
 * released as never sent (its release clears the mark).
 */
function writeCallAhead(held: HeldRow, deps: WorkerDependencies): WrittenAhead {
  const { message } = held;
  return {
    write: async () => {
      await deps.bureau.prepare?.(); // a token that cannot be read fails here, before anything is written ahead
      const sentAt = (deps.now ?? Date.now)();
      if (!(await deps.batchRows.markCallSent(message.batchId, message.row, held.claimToken, sentAt)))
        throw new ClaimLostBeforeCall();
      held.callSentAt = sentAt;
      held.call = 'unanswered'; // from here on, only an answer (or a withdrawal) says otherwise
    },
    withdraw: async () => {
      held.call = 'not_sent';
      held.callSentAt = null;
    },
  };
}

/** Reserves the query's unit of budget; false when a cap is reached. Alerts at 80 % and 100 % of a cap. */
async function reserveBudget(
  held: HeldRow,
  scope: BudgetScope,
  maxCharges: number | null,
  deps: WorkerDependencies,
): Promise<boolean> {
  const caps = { batch: maxCharges, monthly: deps.settings.monthlyChargeCap[scope.bureau] };
  const reservation = await deps.budget.reserve(scope, caps);
  if (!reservation.reserved) {
    deps.logger.warn('spending cap reached; the row is not queried', {
      ...held.log,
      cap: reservation.exhausted,
    });
    return false;
  }
  for (const alert of reservation.alerts) {
    // The alarm on the worker's log group reads this line (its message and `percent`).
    deps.logger.warn(SPENDING_CAP_ALERT, { ...alert, bureau: scope.bureau, batchId: scope.batchId });
    await deps.events.budgetExhausted({ ...alert, ...scope }).catch((error: unknown) => {
      deps.logger.error('could not publish the budget alert', { error: describe(error) });
    });
  }
  return true;
}

/**
 * Gives the query's unit back when the bureau did not charge it: it answered without a report (429, 5xx, a
 * refusal, a rejected token), or the call never left. A call that got no answer may have been charged: its unit
 * stays spent, as does an answer too large to read.
 */
/** The row's claim was taken over before its call could be written ahead: nothing may be sent. */
class ClaimLostBeforeCall extends Error {
  override readonly name = 'ClaimLostBeforeCall';
}

async function giveBackIfUncharged(
  held: HeldRow,
  error: unknown,
  scope: BudgetScope,
  deps: WorkerDependencies,
): Promise<void> {
  const sent = held.call !== 'not_sent';
  const notCharged = error instanceof BureauCallError && error.charge === 'not_charged';
  if (sent && !notCharged) return;
  await deps.budget.giveBack(scope).catch((giveBackError: unknown) => {
    deps.logger.error('could not give a budget unit back; the cap counts it as spent', {
      ...held.log,
      error: describe(giveBackError),
    });
  });
}

/** The invocation ending before the call, or our own fault (storage, a bug, a token that could not be read). */
async function handleOwnFailure(
  held: HeldRow,
  error: unknown,
  deps: WorkerDependencies,
  options: { readonly probing: boolean; readonly signal?: AbortSignal },
): Promise<Outcome> {
  if (options.probing) await deps.tokenProbes.releaseTokenProbe(held.message.batchId).catch(() => undefined);
  // A request that left is audited whatever became of it.
  if (held.call === 'unanswered') await auditBureauRequest(held, { httpStatus: null, charge: 'unknown' });
  // The call left and its answer is lost to our own failure: it may have been charged, so unless the customer
  // buys such rows again, the row settles failed, charge unknown, as after a crash.
  if (held.call === 'unanswered' && !deps.settings.rebuyChargeUnknown) {
    deps.logger.error('our own failure after the call left; not bought again', {
      ...held.log,
      error: describe(error),
    });
    return settleChargeUnknown(held, CHARGE_UNKNOWN_DETAIL);
  }
  // Give the row back with what is known of the call, and let SQS retry. No bureau call was cut off on the way.
  await held.release({ call: held.call, transientFailure: false }).catch(() => undefined);
  // Out of time before the call left (waiting for a call slot or the rate limit): a wait, not a failure.
  if (options.signal?.aborted) return comeBackLater(held.message, 1, 'rate limit', deps);
  throw error;
}

// One gate per worker's dependencies, i.e. per worker process (the local runner has one for all its workers).
const tokenGates = new WeakMap<WorkerDependencies, TokenGate>();

/** Waits until the batch's token is proven, or becomes the probe that proves it. */
function waitForToken(
  message: WorkMessage,
  deps: WorkerDependencies,
  signal?: AbortSignal,
): Promise<TokenGateAnswer> {
  let gate = tokenGates.get(deps);
  if (gate === undefined) {
    gate = new TokenGate(deps, { leaseSeconds: deps.settings.claimLeaseSeconds, now: deps.now });
    tokenGates.set(deps, gate);
  }
  const deadline = (deps.now ?? Date.now)() + deps.settings.probeWaitSeconds * 1000;
  return gate.wait(message.batchId, deadline, signal);
}
