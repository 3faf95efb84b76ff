/**
 * A person's final decision on a row the policy decided: recorded beside the batch, never over the policy's own
 * decision, so both stay explainable (which policy said what, who changed it, when and why).
 */
import type { DecisionValue } from './decision.ts';

/** What a reviewer may decide: a `review` ends as an approval or a decline (or a policy's decision is reversed). */
export const OVERRIDE_VALUES = ['approve', 'decline'] as const satisfies readonly DecisionValue[];
export type OverrideValue = (typeof OVERRIDE_VALUES)[number];

/** Longest reason and reviewer name kept: enough for a sentence and a name or e-mail, not for a document dump. */
export const MAX_OVERRIDE_REASON = 500;
export const MAX_OVERRIDE_BY = 120;

export interface DecisionOverride {
  readonly batchId: string;
  readonly row: number;
  readonly decision: OverrideValue;
  /** In reais; null when the reviewer gives none (an approval keeps no limit, a decline has 0). */
  readonly credit_limit: number | null;
  /** Why, in the reviewer's words. */
  readonly reason: string;
  /** Who decided: a name or an e-mail, as the reviewer's organisation identifies people. */
  readonly by: string;
  /** When it was recorded (ISO 8601, UTC). */
  readonly at: string;
  /** The policy's decision the person overrode, as it stood then. */
  readonly previous: DecisionValue;
}

/** What a reviewer gives; the batch, row, time and previous decision come from the pipeline. */
export interface OverrideRequest {
  readonly decision: string;
  readonly creditLimit: number | null;
  readonly reason: string;
  readonly by: string;
}

/** Why an override request cannot be recorded, in one line; null when it can. */
export function overrideRequestProblem(request: OverrideRequest): string | null {
  if (!(OVERRIDE_VALUES as readonly string[]).includes(request.decision))
    return `--decision must be ${OVERRIDE_VALUES.join(' or ')}, not ${JSON.stringify(request.decision.slice(0, 40))}`;
  if (request.by.trim() === '') return '--by must say who decides (a name or an e-mail)';
  if (request.reason.trim() === '') return '--reason must say why the decision is changed';
  if (request.by.length > MAX_OVERRIDE_BY) return `--by is longer than ${MAX_OVERRIDE_BY} characters`;
  if (request.reason.length > MAX_OVERRIDE_REASON)
    return `--reason is longer than ${MAX_OVERRIDE_REASON} characters`;
  if (request.creditLimit !== null) {
    if (!Number.isFinite(request.creditLimit) || request.creditLimit < 0)
      return '--limit must be an amount in reais, 0 or more';
    if (request.decision === 'decline' && request.creditLimit > 0)
      return '--limit is for an approval: a decline has no limit';
  }
  return null;
}

/**
 * The final decision of each overridden row of a batch: the latest override of each row wins (a reviewer may
 * correct an earlier override; every one is kept).
 */
export function finalOverrides(overrides: readonly DecisionOverride[]): Map<number, DecisionOverride> {
  const latest = new Map<number, DecisionOverride>();
  for (const override of overrides) {
    const known = latest.get(override.row);
    if (known === undefined || known.at <= override.at) latest.set(override.row, override);
  }
  return latest;
}
