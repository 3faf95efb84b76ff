import { answerKey } from '../../contract/index.ts';
import {
  type BatchRecord,
  backoffSeconds,
  CANCELLED_DETAIL,
  type CallOutcome,
  parseMessage,
  type RetryPolicy,
  type RowRecord,
  rateLimitDelaySeconds,
  SETTLED_STATES,
  type Settlement,
  type StoredReport,
  type WorkMessage,
  workMessageSchema,
} from '../../domain/batch/index.ts';
import { BureauCallError } from '../../domain/bureau/index.ts';
import { maskDocument } from '../../domain/documents/index.ts';
import type {
  BatchStore,
  BureauGateway,
  BureauResponse,
  ChargeBudget,
  EventPublisher,
  Logger,
  MessageVisibility,
  ObjectStore,
  QueueRecord,
  RateLimiter,
  RowRelease,
  WorkQueue,
} from '../../domain/ports/index.ts';
import { type Bureau, normaliseCreditReport, type ReportArchive } from '../../domain/report/index.ts';
import {
  BUDGET_EXHAUSTED_DETAIL,
  type BudgetScope,
  chargeMonth,
  SPENDING_CAP_ALERT,
} from '../../domain/spend/index.ts';
import { finaliseIfLast } from '../completion/finalise-if-last.ts';
import { CallSlots } from './call-slots.ts';

export interface WorkerSettings {
  readonly retry: RetryPolicy;
  /** How long a claim on a row lasts (a crash frees the row after this). */
  readonly claimLeaseSeconds: number;
  readonly callsPerInvocation: number;
  /** 429s retried inside one invocation (waiting on the shared bucket) before the message goes back to the queue. */
  readonly rateLimitRetriesPerInvocation: number;
  /** How long a worker waits for another worker's token probe before giving its message back. */
  readonly probeWaitSeconds: number;
  /** Timeout of one bureau call; no call starts later than this before the invocation's deadline. */
  readonly bureauTimeoutSeconds: number;
  /** Most queries per bureau per month (null: no cap); the batch's own cap comes with the batch. */
  readonly monthlyChargeCap: Readonly<Record<Bureau, number | null>>;
}

export interface WorkerDependencies {
  readonly store: BatchStore;
  readonly objects: ObjectStore;
  readonly bureau: BureauGateway;
  readonly limiter: RateLimiter;
  readonly budget: ChargeBudget;
  readonly events: EventPublisher;
  readonly queue: WorkQueue;
  readonly visibility: MessageVisibility;
  readonly logger: Logger;
  readonly settings: WorkerSettings;
  readonly now?: () => number;
  readonly random?: () => number;
}

/** What became of one message: done (delete it), or back to the queue after `delaySeconds`. */
type Outcome = { readonly done: true } | { readonly done: false; readonly delaySeconds: number | null };
const DONE: Outcome = { done: true };
const retryAfter = (delaySeconds: number | null): Outcome => ({ done: false, delaySeconds });

const TOKEN_REJECTED = 'not queried: the bureau token was rejected';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Screens the documents of one SQS batch and says which messages must come back (ReportBatchItemFailures).
 *
 * Per message: claim the row (conditional, with a lease), reuse a fresh stored report if there is one, wait for the
 * global rate limit, call the bureau, archive the raw response, and settle the row together with the batch counters.
 * Nothing is charged twice: a duplicate delivery finds the row claimed or settled; a retry after a crash can repeat
 * only a call whose result was never settled.
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

/** What one invocation shares between its messages. */
interface Invocation {
  /** Batch records read once per invocation (most messages of an invocation belong to the same batch). */
  readonly batches: Map<string, Promise<BatchRecord | null>>;
  /** Batches in which this invocation settled rows, to check once at the end whether they are complete. */
  readonly settledBatches: Set<string>;
  /** Bounds the bureau calls in flight in this invocation (`callsPerInvocation`), each behind its token. */
  readonly calls: CallSlots;
}

function describe(error: unknown): Record<string, unknown> {
  if (error instanceof BureauCallError) return error.toJSON();
  return error instanceof Error ? { name: error.name, message: error.message } : { value: String(error) };
}

async function screenOne(
  record: QueueRecord,
  deps: WorkerDependencies,
  invocation: Invocation,
  signal?: AbortSignal,
): Promise<Outcome> {
  const { store, logger, settings } = deps;
  const message = parseMessage(workMessageSchema, record.body);
  if (message === null) {
    // Not ours or damaged: let it reach the dead-letter queue and its alarm, never the bureau.
    logger.error('message is not a work message', { messageId: record.messageId });
    return retryAfter(null);
  }
  let cached = invocation.batches.get(message.batchId);
  if (cached === undefined) {
    cached = store.getBatch(message.batchId);
    invocation.batches.set(message.batchId, cached);
  }
  // A token rejected after this read is still caught: the call that is refused marks the batch, and every later
  // call gets the same refusal (at most one invocation's calls, which the token probe already keeps to one at first).
  const batch = await cached;
  if (batch === null) {
    logger.warn('batch no longer exists (expired); message dropped', logFields(message));
    return DONE;
  }
  const claim = await store.claimRow(message.batchId, message.row, settings.claimLeaseSeconds);
  if (!claim.claimed) {
    if (claim.row === null || SETTLED_STATES.includes(claim.row.state)) return DONE; // duplicate delivery
    // Another worker holds the row. If it crashed, its lease runs out and this message can take over then.
    return retryAfter(settings.claimLeaseSeconds);
  }
  const held = new HeldRow(message, claim.claimToken, claim.row, claim.inheritedCall, deps, invocation);
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

/** Everything after the claim: a persisted answer first, then the batch's state, the token probe, the call. */
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
  if (batch.tokenState === 'rejected') return held.settle({ outcome: 'failed', reason: TOKEN_REJECTED });

  // Until the token has worked once for this batch, one request at a time: a wrong token costs one request.
  let probing = false;
  if (batch.tokenState === 'unverified') {
    const gate = await waitForToken(message, deps, signal);
    if (gate === 'rejected') return held.settle({ outcome: 'failed', reason: TOKEN_REJECTED });
    if (gate === 'undecided') {
      await held.release({ call: 'not_sent', transientFailure: false });
      return retryAfter(2);
    }
    probing = gate === 'probe';
  }
  return callBureau(held, deps, invocation, { probing, signal, maxCharges: batch.maxCharges });
}

const logFields = (message: WorkMessage) => ({
  batchId: message.batchId,
  row: message.row,
  document: maskDocument(message.document),
});

/** Settles retried within the invocation before the row is given back: a paid answer is never dropped lightly. */
const SETTLE_ATTEMPTS = 4;
const SETTLE_BACKOFF_MS = 100;

/**
 * A row this worker holds: it settles or releases the row under its claim, and remembers what became of its
 * bureau call, so that whatever happens the row's charge evidence stays true.
 */
class HeldRow {
  /**
   * What became of this holder's call so far: `unknown` while an inherited call is unresolved, and once a paid
   * answer is persisted and not yet settled (the next holder must look for it).
   */
  call: CallOutcome;
  uncertainCalls: number;

  constructor(
    readonly message: WorkMessage,
    readonly claimToken: string,
    readonly row: RowRecord,
    /** The previous holder left a call unaccounted for: its answer may be waiting under the row's key. */
    readonly inheritedCall: boolean,
    readonly deps: WorkerDependencies,
    readonly invocation: Invocation,
  ) {
    this.uncertainCalls = row.uncertainCalls;
    this.call = inheritedCall ? 'unknown' : 'not_sent';
  }

  get log() {
    return logFields(this.message);
  }

  /**
   * Settles the row, retrying what fails (a transaction conflict that outlasted the store's own retries, throttling,
   * a 500). If it still fails, the row is given back with what is known of the call: a persisted answer is then
   * found by the next holder, not bought again.
   */
  async settle(settlement: Settlement): Promise<Outcome> {
    const { store, logger } = this.deps;
    for (let attempt = 1; ; attempt++) {
      try {
        const settled = await store.settleRow(
          this.message.batchId,
          this.message.row,
          this.claimToken,
          settlement,
        );
        if (!settled)
          logger.warn(
            'claim lost before settling (lease expired); the other holder settles the row',
            this.log,
          );
        // Checked even when the claim was lost: a settle that went through on an attempt that seemed to fail
        // looks the same, and may have been the batch's last.
        this.invocation.settledBatches.add(this.message.batchId);
        return DONE;
      } catch (error) {
        if (attempt >= SETTLE_ATTEMPTS) {
          logger.error('could not settle the row; it is given back with its call recorded', {
            ...this.log,
            error: describe(error),
          });
          await this.release({ call: this.call, transientFailure: false }).catch(() => undefined);
          return retryAfter(1);
        }
        await sleep(SETTLE_BACKOFF_MS * 2 ** (attempt - 1) * (0.5 + (this.deps.random ?? Math.random)()));
      }
    }
  }

  async release(release: RowRelease): Promise<void> {
    await this.deps.store.releaseRow(this.message.batchId, this.message.row, this.claimToken, release);
  }
}

/**
 * The previous holder of the row left a call unaccounted for (it crashed, ran out of time, or could not settle).
 * If its answer was persisted, the row is settled from it without calling the bureau again; otherwise that call
 * may have been charged, which the row records before going on. Null to go on screening.
 */
async function recoverInheritedCall(held: HeldRow, deps: WorkerDependencies): Promise<Outcome | null> {
  const { message } = held;
  const text = await deps.objects.readTextIfExists(answerKey(message.bureau, message.batchId, message.row));
  if (text !== null) {
    const archive = JSON.parse(text) as ReportArchive;
    deps.logger.info('settling from the answer a previous attempt persisted; no new bureau call', held.log);
    held.call = 'unknown';
    return settleAnswer(held, {
      body: archive.response as Record<string, unknown>,
      httpStatus: archive.httpStatus,
      receivedAt: archive.fetchedAt,
    });
  }
  if (!(await deps.store.recordUncertainCall(message.batchId, message.row, held.claimToken))) return DONE;
  held.uncertainCalls++;
  held.call = 'not_sent'; // the inherited call is accounted for; this holder has sent nothing yet
  deps.logger.warn('a previous attempt may have been charged without an answer we kept', held.log);
  return null;
}

async function callBureau(
  held: HeldRow,
  deps: WorkerDependencies,
  invocation: Invocation,
  options: { readonly probing: boolean; readonly signal?: AbortSignal; readonly maxCharges: number | null },
): Promise<Outcome> {
  const { message } = held;
  const { store } = deps;
  const now = deps.now ?? Date.now;
  const budget: BudgetScope = { bureau: message.bureau, batchId: message.batchId, month: chargeMonth(now()) };
  for (let rateLimited = 0; ; rateLimited++) {
    // A unit of budget before the call, never after: no cap can be overrun by workers racing for its last unit.
    if (!(await reserveBudget(held, budget, options.maxCharges, deps))) {
      if (options.probing) await store.releaseTokenProbe(message.batchId);
      return held.settle({ outcome: 'not_queried', reason: BUDGET_EXHAUSTED_DETAIL });
    }
    let response: BureauResponse;
    try {
      // The rate-limit token is reserved while the calls ahead are in flight, never long before (see CallSlots).
      // No signal on the call on purpose: a call in flight is never cut (the bureau may have charged it already);
      // it ends by itself within its own timeout, which the invocation's deadline leaves room for.
      response = await invocation.calls.run(
        message.bureau,
        () => {
          held.call = 'unanswered'; // from here on, only an answer says otherwise
          return deps.bureau.fetchReport(message.bureau, message.document);
        },
        options.signal,
      );
    } catch (error) {
      await giveBackIfUncharged(held, error, budget, deps);
      if (!(error instanceof BureauCallError)) return handleOwnFailure(held, error, deps, options);
      held.call = error.answered ? 'answered' : 'unanswered';
      const next = await handleBureauFailure(held, error, deps, { probing: options.probing, rateLimited });
      if (next === CALL_AGAIN) continue; // the shared bucket makes us wait
      return next;
    }
    if (options.probing) await store.markToken(message.batchId, 'verified');
    return persistAndSettle(held, response, deps);
  }
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

/** Said by a failure handler when the call may be tried again in this invocation (after a 429, within bounds). */
const CALL_AGAIN = Symbol('call again');

/** What the worker does with each kind of bureau failure. */
async function handleBureauFailure(
  held: HeldRow,
  error: BureauCallError,
  deps: WorkerDependencies,
  context: { readonly probing: boolean; readonly rateLimited: number },
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

/** A 429: every worker pauses; this one waits on the shared bucket a few times, then gives the message back. */
async function handleRateLimited(
  held: HeldRow,
  error: BureauCallError,
  deps: WorkerDependencies,
  context: { readonly probing: boolean; readonly rateLimited: number },
): Promise<Outcome | typeof CALL_AGAIN> {
  const { message } = held;
  const now = deps.now ?? Date.now;
  await deps.limiter.pauseUntil(message.bureau, now() + (error.retryAfterSeconds ?? 1) * 1000);
  if (context.rateLimited < deps.settings.rateLimitRetriesPerInvocation) return CALL_AGAIN;
  if (context.probing) await deps.store.releaseTokenProbe(message.batchId);
  await held.release({ call: 'answered', transientFailure: false });
  return retryAfter(rateLimitDelaySeconds(error.retryAfterSeconds, deps.random));
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
  await deps.store.markToken(held.message.batchId, 'rejected');
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
  if (probing) await deps.store.releaseTokenProbe(held.message.batchId);
  deps.logger.warn('bureau rejected the query', { ...held.log, error: error.toJSON() });
  return held.settle({
    outcome: 'failed',
    reason: `rejected by the bureau: ${error.serviceMessage ?? error.message}`,
  });
}

/** 5xx, a timeout, a network failure: back off and retry, up to the policy's attempts, then fail the row. */
async function handleTransient(
  held: HeldRow,
  error: BureauCallError,
  deps: WorkerDependencies,
  probing: boolean,
): Promise<Outcome> {
  const { message } = held;
  const { settings } = deps;
  if (probing) await deps.store.releaseTokenProbe(message.batchId);
  const attempt = held.row.transientFailures + 1;
  if (attempt < settings.retry.maxAttempts) {
    await held.release({ call: held.call, transientFailure: true });
    return retryAfter(backoffSeconds(settings.retry, attempt, deps.random));
  }
  deps.logger.warn('giving up after repeated transient failures', {
    ...held.log,
    attempt,
    error: error.toJSON(),
  });
  if (held.call === 'unanswered') {
    // This last call got no answer: it counts as uncertain on the row like the earlier ones.
    await deps.store.recordUncertainCall(message.batchId, message.row, held.claimToken);
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
  if (probing) await deps.store.markToken(held.message.batchId, 'verified');
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

/** The invocation ending before the call, or our own fault (storage, a bug, a token that could not be read). */
async function handleOwnFailure(
  held: HeldRow,
  error: unknown,
  deps: WorkerDependencies,
  options: { readonly probing: boolean; readonly signal?: AbortSignal },
): Promise<Outcome> {
  // Give the row back with what is known of the call, and let SQS retry. No bureau call was cut off on the way.
  if (options.probing) await deps.store.releaseTokenProbe(held.message.batchId).catch(() => undefined);
  await held.release({ call: held.call, transientFailure: false }).catch(() => undefined);
  if (options.signal?.aborted) return retryAfter(1);
  throw error;
}

/** Waits until the batch's token is proven, or becomes the probe that proves it. */
async function waitForToken(
  message: WorkMessage,
  deps: WorkerDependencies,
  signal?: AbortSignal,
): Promise<'probe' | 'verified' | 'rejected' | 'undecided'> {
  const deadline = (deps.now ?? Date.now)() + deps.settings.probeWaitSeconds * 1000;
  for (;;) {
    if (await deps.store.acquireTokenProbe(message.batchId, deps.settings.claimLeaseSeconds)) return 'probe';
    const batch = await deps.store.getBatch(message.batchId);
    if (batch?.tokenState === 'verified') return 'verified';
    if (batch?.tokenState === 'rejected') return 'rejected';
    if ((deps.now ?? Date.now)() > deadline || signal?.aborted) return 'undecided';
    await sleep(100);
  }
}

const ANSWER_PERSIST_ATTEMPTS = 3;

/**
 * A paid answer: persisted first, under the row's own key, before anything can fail on our side; then normalised
 * and settled. If the persist itself keeps failing, the answer is still settled (its normalised report kept in
 * DynamoDB) and only the raw archive is missing; a settle that keeps failing leaves the answer to the next holder.
 */
async function persistAndSettle(
  held: HeldRow,
  response: BureauResponse,
  deps: WorkerDependencies,
): Promise<Outcome> {
  const { message } = held;
  const key = answerKey(message.bureau, message.batchId, message.row);
  const archive: ReportArchive = {
    archiveVersion: 1,
    bureau: message.bureau,
    document: message.document,
    fetchedAt: response.receivedAt,
    httpStatus: response.httpStatus,
    response: response.body,
  };
  for (let attempt = 1; ; attempt++) {
    try {
      await deps.objects.putJson(key, archive);
      held.call = 'unknown'; // the answer waits under its key for whoever holds the row next
      break;
    } catch (error) {
      if (attempt >= ANSWER_PERSIST_ATTEMPTS) {
        deps.logger.error('raw answer not persisted; settling from memory', {
          ...held.log,
          error: describe(error),
        });
        break;
      }
      await sleep(SETTLE_BACKOFF_MS * attempt);
    }
  }
  return settleAnswer(held, response);
}

/** Normalises a paid answer and settles the row with its report. */
async function settleAnswer(held: HeldRow, response: BureauResponse): Promise<Outcome> {
  const { message, deps } = held;
  const report = normaliseCreditReport(response.body, {
    bureau: message.bureau,
    document: message.document,
    fetchedAt: response.receivedAt,
  });
  if (report.warnings.length > 0) {
    deps.logger.warn('report normalised with warnings', {
      batchId: message.batchId,
      row: message.row,
      warnings: report.warnings.slice(0, 10),
    });
  }
  const stored: StoredReport = {
    key: { bureau: message.bureau, document: message.document, fetchedAt: response.receivedAt },
    report,
    rawKey: answerKey(message.bureau, message.batchId, message.row),
  };
  return held.settle({ outcome: 'screened', report: stored });
}
