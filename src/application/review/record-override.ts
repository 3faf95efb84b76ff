import { auditTextProblem } from '../../domain/audit/index.ts';
import {
  type DecisionOverride,
  type OverrideRequest,
  type OverrideValue,
  overrideRequestProblem,
} from '../../domain/decision/index.ts';
import type {
  AuditLog,
  DecisionOverrides,
  DocumentKeys,
  EventPublisher,
  Logger,
} from '../../domain/ports/index.ts';
import {
  type DecidedRowsDependencies,
  duplicateTarget,
  ReviewRefusal,
  readDecidedBatch,
} from './decided-rows.ts';

export interface RecordOverrideDependencies extends DecidedRowsDependencies {
  readonly overrides: DecisionOverrides;
  readonly events: Pick<EventPublisher, 'overrideRecorded'>;
  readonly logger: Logger;
  /** Where the override is recorded for the auditors, its document named by its keyed hash. */
  readonly audit?: { readonly log: AuditLog; readonly documentKeys: DocumentKeys };
  readonly now?: () => Date;
}

/**
 * Records a person's final decision on a decided row, beside the batch: the policy's decision stays as it was in
 * every stored file, and the override joins the others (a later one corrects an earlier one; none is erased).
 * Refused in one line, before anything is written: an invalid request (a line break or a control character in
 * the reason or the name among them: the audit log keeps each on one line), an unknown or unfinished batch, a batch
 * without a policy, an unknown row, a row without a decision (no report), a duplicate (its first occurrence is the
 * customer to decide). Announced with an `OverrideRecorded` event; an event that cannot be sent is logged, and the
 * override stays recorded.
 */
export async function recordOverride(
  target: { readonly batchId: string; readonly row: number },
  request: OverrideRequest,
  deps: RecordOverrideDependencies,
): Promise<DecisionOverride> {
  const problem =
    overrideRequestProblem(request) ??
    auditTextProblem('--by', request.by) ??
    auditTextProblem('--reason', request.reason);
  if (problem !== null) throw new ReviewRefusal(problem);
  const decided = await readDecidedBatch(target.batchId, deps);
  const row = decided.rows.find((candidate) => candidate.row === target.row);
  if (row === undefined)
    throw new ReviewRefusal(
      `batch ${target.batchId} has no row ${target.row} (rows 1 to ${decided.rows.length})`,
      'missing',
    );
  const repeated = duplicateTarget(row);
  if (repeated !== null)
    throw new ReviewRefusal(
      `row ${target.row} repeats row ${repeated} of the list: override row ${repeated}, which decides both`,
    );
  if (!row.decision)
    throw new ReviewRefusal(`row ${target.row} has no decision (${row.status}: no report to decide on)`);
  const override: DecisionOverride = {
    batchId: target.batchId,
    row: target.row,
    decision: request.decision as OverrideValue,
    credit_limit: request.decision === 'decline' ? 0 : request.creditLimit,
    reason: request.reason.trim(),
    by: request.by.trim(),
    at: (deps.now ?? (() => new Date()))().toISOString(),
    previous: row.decision.decision,
  };
  await deps.overrides.recordOverride(override);
  await deps.audit?.log.append([
    {
      kind: 'override',
      at: override.at,
      batchId: override.batchId,
      row: override.row,
      documentKey: await deps.audit.documentKeys.keyOf(row.document),
      decision: override.decision,
      previous: override.previous,
      by: override.by,
      reason: override.reason,
    },
  ]);
  await deps.events
    .overrideRecorded({
      batchId: override.batchId,
      row: override.row,
      decision: override.decision,
      previousDecision: override.previous,
      creditLimit: override.credit_limit,
      by: override.by,
      at: override.at,
      policy: decided.batch.policy?.name ?? null,
    })
    .catch((error: unknown) => {
      deps.logger.error('override recorded; its event could not be sent', {
        batchId: override.batchId,
        row: override.row,
        error: error instanceof Error ? error.message : String(error),
      });
    });
  return override;
}
