import { randomUUID } from 'node:crypto';
import { S3_LAYOUT } from '../../lib/pipeline-definition.ts';
import {
  InvalidTokenError,
  RateLimitedError,
  RejectedError,
  ServiceError,
  TransientError,
} from '../adapters/bureau-api/service-errors.ts';
import {
  type BatchRecord,
  backoffSeconds,
  CANCELLED_DETAIL,
  parseMessage,
  type RetryPolicy,
  rateLimitDelaySeconds,
  SETTLED_STATES,
  type Settlement,
  type StoredReport,
  type WorkMessage,
  workMessageSchema,
} from '../core/batch/index.ts';
import { maskDocument } from '../core/documents/index.ts';
import type {
  BatchStore,
  BureauGateway,
  Logger,
  MessageVisibility,
  ObjectStore,
  RateLimiter,
  WorkQueue,
} from '../core/ports/index.ts';
import { normaliseCreditReport, type ReportArchive } from '../core/report/index.ts';
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
}

export interface WorkerDependencies {
  readonly store: BatchStore;
  readonly objects: ObjectStore;
  readonly bureau: BureauGateway;
  readonly limiter: RateLimiter;
  readonly queue: WorkQueue;
  readonly visibility: MessageVisibility;
  readonly logger: Logger;
  readonly settings: WorkerSettings;
  readonly now?: () => number;
  readonly random?: () => number;
}

export interface QueueRecord {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
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
  if (error instanceof ServiceError) return error.toJSON();
  return error instanceof Error ? { name: error.name, message: error.message } : { value: String(error) };
}

async function screenOne(
  record: QueueRecord,
  deps: WorkerDependencies,
  invocation: Invocation,
  signal?: AbortSignal,
): Promise<Outcome> {
  const { store, logger, settings } = deps;
  const now = deps.now ?? Date.now;
  const message = parseMessage(workMessageSchema, record.body);
  if (message === null) {
    // Not ours or damaged: let it reach the dead-letter queue and its alarm, never the bureau.
    logger.error('message is not a work message', { messageId: record.messageId });
    return retryAfter(null);
  }
  const log = { batchId: message.batchId, row: message.row, document: maskDocument(message.document) };

  let cached = invocation.batches.get(message.batchId);
  if (cached === undefined) {
    cached = store.getBatch(message.batchId);
    invocation.batches.set(message.batchId, cached);
  }
  // A token rejected after this read is still caught: the call that is refused marks the batch, and every later
  // call gets the same refusal (at most one invocation's calls, which the token probe already keeps to one at first).
  const batch = await cached;
  if (batch === null) {
    logger.warn('batch no longer exists (expired); message dropped', log);
    return DONE;
  }
  const claim = await store.claimRow(message.batchId, message.row, settings.claimLeaseSeconds);
  if (!claim.claimed) {
    if (claim.row === null || SETTLED_STATES.includes(claim.row.state)) return DONE; // duplicate delivery
    // Another worker holds the row. If it crashed, its lease runs out and this message can take over then.
    return retryAfter(settings.claimLeaseSeconds);
  }
  const { claimToken, row } = claim;
  const settle = async (settlement: Settlement): Promise<Outcome> => {
    const settled = await store.settleRow(message.batchId, message.row, claimToken, settlement);
    if (!settled)
      logger.warn('claim lost before settling (lease expired); the other holder settles the row', log);
    else invocation.settledBatches.add(message.batchId);
    return DONE;
  };

  if (batch.cancelRequested) return settle({ outcome: 'cancelled', reason: CANCELLED_DETAIL });
  if (batch.tokenState === 'rejected') return settle({ outcome: 'failed', reason: TOKEN_REJECTED });

  // Until the token has worked once for this batch, one request at a time: a wrong token costs one request.
  let probing = false;
  if (batch.tokenState === 'unverified') {
    const gate = await waitForToken(message, deps, signal);
    if (gate === 'rejected') return settle({ outcome: 'failed', reason: TOKEN_REJECTED });
    if (gate === 'undecided') {
      await store.releaseRow(message.batchId, message.row, claimToken, false);
      return retryAfter(2);
    }
    probing = gate === 'probe';
  }

  for (let rateLimited = 0; ; rateLimited++) {
    try {
      // The rate-limit token is reserved while the calls ahead are in flight, never long before (see CallSlots).
      // No signal on the call on purpose: a call in flight is never cut (the bureau may have charged it already);
      // it ends by itself within its own timeout, which the invocation's deadline leaves room for.
      const response = await invocation.calls.run(
        message.bureau,
        () => deps.bureau.fetchReport(message.bureau, message.document),
        signal,
      );
      if (probing) await store.markToken(message.batchId, 'verified');
      return await settleAndArchive(message, response, deps, settle);
    } catch (error) {
      if (error instanceof RateLimitedError) {
        const delay = rateLimitDelaySeconds(error.retryAfterSeconds, deps.random);
        await deps.limiter.pauseUntil(message.bureau, now() + (error.retryAfterSeconds ?? 1) * 1000);
        if (rateLimited < settings.rateLimitRetriesPerInvocation) continue; // the shared bucket makes us wait
        if (probing) await store.releaseTokenProbe(message.batchId);
        await store.releaseRow(message.batchId, message.row, claimToken, false);
        return retryAfter(delay);
      }
      if (error instanceof InvalidTokenError) {
        logger.error('bureau token rejected; the batch stops querying', { ...log, error: error.toJSON() });
        await store.markToken(message.batchId, 'rejected');
        return settle({
          outcome: 'failed',
          reason: `bureau token rejected: ${error.serviceMessage ?? `HTTP ${error.status}`}`,
        });
      }
      if (probing && (error instanceof RejectedError || error instanceof TransientError)) {
        await store.releaseTokenProbe(message.batchId);
      }
      if (error instanceof RejectedError) {
        logger.warn('bureau rejected the query', { ...log, error: error.toJSON() });
        return settle({
          outcome: 'failed',
          reason: `rejected by the bureau: ${error.serviceMessage ?? error.message}`,
        });
      }
      if (error instanceof TransientError) {
        const attempt = row.transientFailures + 1;
        if (attempt >= settings.retry.maxAttempts) {
          logger.warn('giving up after repeated transient failures', {
            ...log,
            attempt,
            error: error.toJSON(),
          });
          return settle({
            outcome: 'failed',
            reason: `bureau unavailable after ${attempt} attempts: ${error.message}`,
          });
        }
        await store.releaseRow(message.batchId, message.row, claimToken, true);
        return retryAfter(backoffSeconds(settings.retry, attempt, deps.random));
      }
      // The invocation is ending before the call could start, or our own fault (storage, a bug): give the row
      // back untouched and let SQS retry. No bureau call was cut off on the way.
      if (probing) await store.releaseTokenProbe(message.batchId).catch(() => undefined);
      await store.releaseRow(message.batchId, message.row, claimToken, false).catch(() => undefined);
      if (signal?.aborted) return retryAfter(1);
      throw error;
    }
  }
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

/**
 * Settles a paid answer and archives the raw response, at the same time. The settle is what matters: the answer was
 * paid for, so a failed archive never sends the document back to the queue (a retry would pay again); it is logged
 * as an error, and the normalised report is kept in DynamoDB all the same.
 */
async function settleAndArchive(
  message: WorkMessage,
  response: { body: Readonly<Record<string, unknown>>; httpStatus: number; receivedAt: string },
  deps: WorkerDependencies,
  settle: (settlement: Settlement) => Promise<Outcome>,
): Promise<Outcome> {
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
  // Keys carry no document: S3 keys end up in access logs and listings.
  const rawKey = `${S3_LAYOUT.raw}${message.bureau}/${response.receivedAt.slice(0, 10)}/${randomUUID()}.json`;
  const archived: ReportArchive = {
    archiveVersion: 1,
    bureau: message.bureau,
    document: message.document,
    fetchedAt: response.receivedAt,
    httpStatus: response.httpStatus,
    response: response.body,
  };
  const stored: StoredReport = {
    key: { bureau: message.bureau, document: message.document, fetchedAt: response.receivedAt },
    report,
    rawKey,
  };
  const [archive, settled] = await Promise.allSettled([
    deps.objects.putJson(rawKey, archived),
    settle({ outcome: 'screened', report: stored }),
  ]);
  if (archive.status === 'rejected') {
    deps.logger.error('raw response not archived; the normalised report is kept', {
      batchId: message.batchId,
      row: message.row,
      rawKey,
      error: describe(archive.reason),
    });
  }
  if (settled.status === 'rejected') throw settled.reason;
  return settled.value;
}

/** After a settle: if that was the batch's last row, exactly one caller wins the finalisation and queues it. */
export async function finaliseIfLast(
  batchId: string,
  deps: { store: BatchStore; queue: WorkQueue },
): Promise<void> {
  const batch = await deps.store.getBatch(batchId);
  if (batch?.status !== 'running' || batch.toScreen === null || batch.settled < batch.toScreen) return;
  if (await deps.store.claimFinalisation(batchId)) await deps.queue.sendFinalise({ version: 1, batchId });
}
