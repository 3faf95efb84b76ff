import type { AuditEntry } from '../../domain/audit/index.ts';
import type { ChargeState } from '../../domain/batch/index.ts';
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

/** One request sent to the bureau, with what it may have cost. */
export function auditBureauRequest(
  held: HeldRow,
  outcome: {
    readonly httpStatus: number | null;
    readonly charge: 'charged' | 'not_charged' | 'unknown';
    /** When the answer came (epoch ms); now when not given. */
    readonly atMs?: number;
  },
): Promise<void> {
  const { message, deps } = held;
  const at = outcome.atMs === undefined ? nowIso(held) : new Date(outcome.atMs).toISOString();
  const charge: ChargeState = outcome.charge === 'unknown' ? 'charge_unknown' : outcome.charge;
  return record(held, (documentKey) => ({
    kind: 'bureau_request',
    at,
    batchId: message.batchId,
    row: message.row,
    documentKey,
    bureau: message.bureau,
    charge,
    httpStatus: outcome.httpStatus,
    purpose: deps.settings.audit.purpose,
    legalBasis: deps.settings.audit.legalBasis,
  }));
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
