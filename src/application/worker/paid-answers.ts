import { setTimeout as sleep } from 'node:timers/promises';
import { answerKey } from '../../contract/index.ts';
import { CHARGE_UNKNOWN_DETAIL, type StoredReport } from '../../domain/batch/index.ts';
import type { BureauResponse } from '../../domain/ports/index.ts';
import { isReportArchive, normaliseCreditReport, type ReportArchive } from '../../domain/report/index.ts';
import { auditBureauRequest, auditDecision } from './audit-trail.ts';
import {
  DONE,
  describe,
  type HeldRow,
  type Outcome,
  SETTLE_BACKOFF_MS,
  type WorkerDependencies,
} from './held-row.ts';
import { decideHeldRow } from './row-decision.ts';

const ANSWER_PERSIST_ATTEMPTS = 3;

/**
 * The previous holder of the row left a call unaccounted for (it crashed, ran out of time, or could not settle).
 * If its answer was persisted, the row is settled from it without calling the bureau again; otherwise that call
 * may have been charged: the row records it and settles `failed` (charge unknown), never buying the document again
 * by itself ({@link CHARGE_UNKNOWN_DETAIL}), unless the customer buys such rows again (`rebuyChargeUnknown`). A
 * call was pending only if it was written ahead (`markCallSent`), so a holder that died before its call left
 * passes nothing on, and the row is simply screened. Null to go on.
 */
export async function recoverInheritedCall(held: HeldRow, deps: WorkerDependencies): Promise<Outcome | null> {
  const { message } = held;
  const key = answerKey(message.bureau, message.batchId, message.row);
  const archive = await readArchive(key, held, deps);
  if (archive !== null) {
    deps.logger.info('settling from the answer a previous attempt persisted; no new bureau call', held.log);
    held.call = 'unknown';
    const outcome = await settleAnswer(held, responseOf(archive), { outcome: 'screened', rawKey: key });
    // Its holder audits a request once its answer is settled, so one that stopped before had not yet.
    if (outcome.done)
      await auditBureauRequest(held, {
        httpStatus: archive.httpStatus,
        charge: 'charged',
        atMs: Date.parse(archive.fetchedAt),
      });
    return outcome;
  }
  // That request left and was never audited (its holder died waiting for the answer): the audit counts it now.
  await auditBureauRequest(held, { httpStatus: null, charge: 'unknown' });
  if (deps.settings.rebuyChargeUnknown) {
    if (!(await deps.batchRows.recordUncertainCall(message.batchId, message.row, held.claimToken)))
      return DONE;
    held.uncertainCalls++;
    held.call = 'not_sent'; // the lost call is recorded; this holder's own call starts afresh
    deps.logger.warn(
      'a previous call may have been charged and its answer was lost; bought again, as configured',
      held.log,
    );
    return null;
  }
  deps.logger.warn(
    'a previous call may have been charged and its answer was lost; not bought again',
    held.log,
  );
  return settleChargeUnknown(held, CHARGE_UNKNOWN_DETAIL);
}

/**
 * Settles `failed`, charge unknown, a row whose call left and whose answer is lost: the call is recorded as
 * uncertain first, and stays pending until the settle goes through, so that a holder who takes the row over
 * settles it the same way instead of buying the document again.
 */
export async function settleChargeUnknown(held: HeldRow, reason: string): Promise<Outcome> {
  const { message, deps } = held;
  if (!(await deps.batchRows.recordUncertainCall(message.batchId, message.row, held.claimToken))) return DONE;
  held.uncertainCalls++;
  held.call = 'unknown';
  return held.settle({ outcome: 'failed', reason });
}

/**
 * Settles the row from a paid answer persisted under `rawKey`: another batch's purchase of the same document
 * (`cached`, nothing bought for this row), or this row's own (`screened`). Null when that answer cannot be read
 * (never persisted, or erased) or is older than `notBefore`.
 */
export async function settleFromPersistedAnswer(
  held: HeldRow,
  rawKey: string,
  deps: WorkerDependencies,
  /** An answer older than this (ISO 8601) is not used. */
  notBefore = '',
): Promise<{ readonly outcome: Outcome; readonly fetchedAt: string } | null> {
  const archive = await readArchive(rawKey, held, deps);
  if (archive === null || archive.fetchedAt < notBefore) return null;
  const { message } = held;
  const own = rawKey === answerKey(message.bureau, message.batchId, message.row);
  if (!own)
    deps.logger.info("settling from another batch's purchase of the same document; no bureau call", held.log);
  const outcome = await settleAnswer(held, responseOf(archive), {
    outcome: own ? 'screened' : 'cached',
    rawKey,
  });
  return { outcome, fetchedAt: archive.fetchedAt };
}

/**
 * A paid answer: persisted first, under the row's own key, before anything can fail on our side; then recorded on
 * the document's purchase (from then on it answers every batch), normalised and settled. If the persist itself
 * keeps failing, the answer is still settled (its normalised report kept in DynamoDB) and only the raw archive is
 * missing; a settle that keeps failing leaves the answer to the next holder.
 */
export async function persistAndSettle(
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
      await shareAnswer(held, { answerKey: key, fetchedAt: response.receivedAt }, deps);
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
  return settleAnswer(held, response, { outcome: 'screened', rawKey: key });
}

/** Records a persisted answer on the document's purchase; a failure only delays the other batches (lease). */
async function shareAnswer(
  held: HeldRow,
  answer: { readonly answerKey: string; readonly fetchedAt: string },
  deps: WorkerDependencies,
): Promise<void> {
  if (!held.holdsPurchase) return;
  const { message } = held;
  try {
    held.answerShared = await deps.purchases.recordAnswer(
      message.bureau,
      message.document,
      held.purchaseHolder,
      answer,
    );
  } catch (error) {
    // A row that waits for it takes the purchase over when the lease runs out, and finds this answer then.
    deps.logger.warn('could not record the answer on the document purchase', {
      ...held.log,
      error: describe(error),
    });
  }
}

/** Normalises a paid answer and settles the row with its report: its own purchase, or another batch's. */
async function settleAnswer(
  held: HeldRow,
  response: BureauResponse,
  settled: { readonly outcome: 'screened' | 'cached'; readonly rawKey: string },
): Promise<Outcome> {
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
    rawKey: settled.rawKey,
  };
  const decision = await decideHeldRow(held, report);
  const outcome = await held.settle({ outcome: settled.outcome, report: stored, decision });
  // Recorded once the paid answer is settled: an audit write never stands before keeping what was paid for.
  if (decision !== null) await auditDecision(held, decision);
  return outcome;
}

/** A persisted answer for this row's bureau and document, or null (none there, or not what it should be). */
async function readArchive(
  key: string,
  held: HeldRow,
  deps: WorkerDependencies,
): Promise<ReportArchive | null> {
  const text = await deps.objects.readTextIfExists(key);
  if (text === null) return null;
  const archive: unknown = JSON.parse(text);
  const { message } = held;
  if (
    !isReportArchive(archive) ||
    archive.bureau !== message.bureau ||
    archive.document !== message.document
  ) {
    // Never settle a row from someone else's answer: a damaged or foreign object is not an answer for it.
    deps.logger.error('a persisted answer is not for this document; it is not used', { ...held.log, key });
    return null;
  }
  return archive;
}

const responseOf = (archive: ReportArchive): BureauResponse => ({
  body: archive.response as Record<string, unknown>,
  httpStatus: archive.httpStatus,
  receivedAt: archive.fetchedAt,
});
