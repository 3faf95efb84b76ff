import type { AuditEntry } from '../../domain/audit/index.ts';
import type { ChargeState, WorkMessage } from '../../domain/batch/index.ts';
import type { Decision } from '../../domain/decision/index.ts';
import { describe, type HeldRow } from './held-row.ts';

/**
 * Records what a held row did in the audit log: each request sent to the bureau and the decision made on its
 * report. An entry that cannot be written is logged as an error (the alarm on the worker's errors sees it) and
 * never stands between a paid answer and its settle.
 */
async function record(held: HeldRow, entry: (documentKey: string) => AuditEntry): Promise<void> {
  const { audit, logger } = held.deps;
  if (audit === undefined) return;
  try {
    const documentKey = await audit.documentKeys.keyOf(held.message.document);
    await audit.log.append([entry(documentKey)]);
  } catch (error) {
    logger.error('could not write the audit entry', { ...held.log, error: describe(error) });
  }
}

const nowIso = (held: HeldRow) => new Date((held.deps.now ?? Date.now)()).toISOString();

/** What a bureau request's entry says besides its document's key. */
export interface BureauRequestFacts {
  readonly message: WorkMessage;
  /** ISO 8601: when the answer came, or, for a call that got none, when it was written ahead. */
  readonly at: string;
  readonly charge: ChargeState;
  readonly httpStatus: number | null;
  /** Why the query was made and on what legal ground, as the deployment configures them. */
  readonly basis: { readonly purpose: string; readonly legalBasis: string };
}

/** The audit entry of one request sent to the bureau (the worker's and the dead-letter handler's alike). */
export const bureauRequestEntry = (facts: BureauRequestFacts, documentKey: string): AuditEntry => ({
  kind: 'bureau_request',
  at: facts.at,
  batchId: facts.message.batchId,
  row: facts.message.row,
  documentKey,
  bureau: facts.message.bureau,
  charge: facts.charge,
  httpStatus: facts.httpStatus,
  purpose: facts.basis.purpose,
  legalBasis: facts.basis.legalBasis,
});

/** One request sent to the bureau, with what it may have cost. */
export function auditBureauRequest(
  held: HeldRow,
  outcome: {
    readonly httpStatus: number | null;
    readonly charge: 'charged' | 'not_charged' | 'unknown';
    /**
     * When the answer came (epoch ms). Not given: for a call that got none, when it was written ahead, so that each
     * holder that finds it unanswered records the same entry (kept once); otherwise now.
     */
    readonly atMs?: number;
  },
): Promise<void> {
  const { message, deps } = held;
  const atMs = outcome.atMs ?? (outcome.httpStatus === null ? held.callSentAt : null);
  const at = atMs === null ? nowIso(held) : new Date(atMs).toISOString();
  const charge: ChargeState = outcome.charge === 'unknown' ? 'charge_unknown' : outcome.charge;
  const facts = { message, at, charge, httpStatus: outcome.httpStatus, basis: deps.settings.audit };
  return record(held, (documentKey) => bureauRequestEntry(facts, documentKey));
}

/** The batch policy's decision on the row's report. */
export function auditDecision(held: HeldRow, decision: Decision): Promise<void> {
  const { message, batch } = held;
  if (batch.policy === null) return Promise.resolve();
  const policy = { name: batch.policy.name, sha256: batch.policy.sha256 };
  const at = nowIso(held);
  return record(held, (documentKey) => ({
    kind: 'decision',
    at,
    batchId: message.batchId,
    row: message.row,
    documentKey,
    policy,
    decision: decision.decision,
    reasons: decision.reasons.map((reason) => reason.code),
  }));
}
