import { type DecisionValue, mostSevere } from '../decision/index.ts';
import type { NormalisedReport } from '../report/index.ts';

/** The kinds of change a re-screen reports, in the order they are listed. */
export const CHANGE_KINDS = [
  'decision_worsened',
  'decision_improved',
  'new_protest',
  'protest_cleared',
  'new_pending_debt',
  'pending_debt_cleared',
  'bounced_cheques_up',
  'score_drop',
  'score_rise',
  'status_change',
  'first_screening',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** How large a move must be to count as a change. */
export interface ChangeThresholds {
  /**
   * Smallest score move (up or down) reported; smaller moves are noise.
   * @default 50
   */
  readonly scorePoints: number;
}

export const DEFAULT_CHANGE_THRESHOLDS: ChangeThresholds = { scorePoints: 50 };

/**
 * One change of one document between two reports. `before` and `after` are the compared values as text (counts,
 * scores, registration statuses); `delta` is the signed difference for numbers and empty otherwise.
 */
export interface ReportChange {
  readonly kind: ChangeKind;
  readonly before: string;
  readonly after: string;
  readonly delta: string;
}

const signed = (value: number): string => (value > 0 ? `+${value}` : String(value));

function numberChange(kind: ChangeKind, before: number, after: number): ReportChange {
  return { kind, before: String(before), after: String(after), delta: signed(after - before) };
}

/** Up and down moves of a count, as their two kinds. */
function countChanges(
  before: number,
  after: number,
  up: ChangeKind,
  down: ChangeKind | null,
): ReportChange[] {
  if (after > before) return [numberChange(up, before, after)];
  if (after < before && down !== null) return [numberChange(down, before, after)];
  return [];
}

/**
 * How a document's decision moved between its previous report and the current one, both decided by the batch's
 * policy (so a change says the customer's situation moved, not that the policy did): `decision_worsened` towards
 * decline, `decision_improved` towards approve; null when it stayed.
 */
export function decisionChange(before: DecisionValue, after: DecisionValue): ReportChange | null {
  if (before === after) return null;
  const kind = mostSevere([before, after]) === after ? 'decision_worsened' : 'decision_improved';
  return { kind, before, after, delta: '' };
}

/**
 * What changed in a document's situation between its previous report and the current one (same bureau). A
 * document with no previous report is a `first_screening`. Counts compare the reports' totals, which the bureaus
 * give even when they list no items; a score move counts from `thresholds.scorePoints` up, and only when both
 * reports have a score; the registration status counts only when both reports state one (bureau B's company
 * reports carry no registration data, which is not a change).
 */
export function detectChanges(
  previous: NormalisedReport | null,
  current: NormalisedReport,
  thresholds: ChangeThresholds = DEFAULT_CHANGE_THRESHOLDS,
): ReportChange[] {
  if (previous === null) {
    const score = current.score?.value;
    return [{ kind: 'first_screening', before: '', after: score == null ? '' : String(score), delta: '' }];
  }
  const changes = [
    ...countChanges(previous.protests.count, current.protests.count, 'new_protest', 'protest_cleared'),
    ...countChanges(
      previous.pendingDebts.count,
      current.pendingDebts.count,
      'new_pending_debt',
      'pending_debt_cleared',
    ),
    ...countChanges(previous.bouncedCheques.count, current.bouncedCheques.count, 'bounced_cheques_up', null),
  ];
  const scoreBefore = previous.score?.value ?? null;
  const scoreAfter = current.score?.value ?? null;
  if (scoreBefore !== null && scoreAfter !== null) {
    const move = scoreAfter - scoreBefore;
    if (move <= -thresholds.scorePoints) changes.push(numberChange('score_drop', scoreBefore, scoreAfter));
    if (move >= thresholds.scorePoints) changes.push(numberChange('score_rise', scoreBefore, scoreAfter));
  }
  const statusBefore = previous.subject?.status ?? null;
  const statusAfter = current.subject?.status ?? null;
  if (statusBefore !== null && statusAfter !== null && statusBefore !== statusAfter) {
    changes.push({ kind: 'status_change', before: statusBefore, after: statusAfter, delta: '' });
  }
  return changes;
}

/** Counts per change kind, every kind present (zero when it did not occur), for events and printouts. */
export type ChangeCounts = Record<ChangeKind, number>;

export function emptyChangeCounts(): ChangeCounts {
  return Object.fromEntries(CHANGE_KINDS.map((kind) => [kind, 0])) as ChangeCounts;
}
