/**
 * How a new policy's decisions compare with the ones a batch was given: rows by previous decision (`none` when the
 * batch had no policy) and new decision, and for each kind of flip the reason codes that caused it most often.
 */
import { DECISION_VALUES, type Decision, type DecisionValue } from '../../domain/decision/index.ts';

/** A row's previous decision: one of the three, or `none` for a batch that had no policy. */
export type PreviousDecision = DecisionValue | 'none';

/** One kind of flip (`approve` → `decline`): its rows and the reasons that caused it, most frequent first. */
export interface Flip {
  readonly from: PreviousDecision;
  readonly to: DecisionValue;
  readonly rows: number;
  /**
   * The reason codes that made the difference, with the rows each did: for a flip to a more severe decision (or
   * from `none`), the codes the new decision gives that the previous one did not; for a flip to a less severe one,
   * the codes the previous decision gave that the new one no longer does. A row whose codes did not change (a rule
   * that kept its code and changed its outcome) counts all of its new codes (its previous ones when it improved).
   */
  readonly reasons: readonly { readonly code: string; readonly rows: number }[];
}

/** What `decide --json` prints. */
export interface FlipSummary {
  readonly counts: Readonly<Record<DecisionValue, number>>;
  readonly flips: readonly Flip[];
}

/** How bad a decision is for the customer: a flip to a higher one is worse. */
export const SEVERITY: Readonly<Record<PreviousDecision, number>> = {
  none: -1,
  approve: 0,
  review: 1,
  decline: 2,
};
const PREVIOUS_ORDER: readonly PreviousDecision[] = [...DECISION_VALUES, 'none'];

/** The flip matrix of a run, counted row by row. */
export class FlipTally {
  readonly #cells = new Map<PreviousDecision, Record<DecisionValue, number>>();
  readonly #reasons = new Map<string, Map<string, number>>();
  /** Whether the batch had been decided before (its matrix has the three previous decisions as rows). */
  readonly #decidedBefore: boolean;

  constructor(decidedBefore: boolean) {
    this.#decidedBefore = decidedBefore;
  }

  /**
   * Counts one row. `previousReasons` are the previous decision's reason codes, or what reads them: read only when
   * the decision flipped.
   */
  add(
    previous: PreviousDecision,
    next: Decision,
    previousReasons: readonly string[] | (() => readonly string[]),
  ): void {
    let row = this.#cells.get(previous);
    if (row === undefined) {
      row = { approve: 0, review: 0, decline: 0 };
      this.#cells.set(previous, row);
    }
    row[next.decision]++;
    if (previous === next.decision) return;
    const kind = `${previous}>${next.decision}`;
    const counts = this.#reasons.get(kind) ?? new Map<string, number>();
    this.#reasons.set(kind, counts);
    const nextCodes = next.reasons.map((reason) => reason.code);
    const previousCodes = typeof previousReasons === 'function' ? previousReasons() : previousReasons;
    const worse = SEVERITY[next.decision] > SEVERITY[previous];
    const [gaining, losing] = worse ? [nextCodes, previousCodes] : [previousCodes, nextCodes];
    const changed = gaining.filter((code) => !losing.includes(code));
    for (const code of changed.length > 0 ? changed : gaining) counts.set(code, (counts.get(code) ?? 0) + 1);
  }

  /** The previous decisions shown as rows: the three when the batch was decided, `none` when any row had none. */
  previousRows(): PreviousDecision[] {
    return PREVIOUS_ORDER.filter((previous) =>
      previous === 'none' ? this.#cells.has('none') : this.#decidedBefore || this.#cells.has(previous),
    );
  }

  cell(previous: PreviousDecision, next: DecisionValue): number {
    return this.#cells.get(previous)?.[next] ?? 0;
  }

  counts(): Record<DecisionValue, number> {
    const counts = { approve: 0, review: 0, decline: 0 };
    for (const row of this.#cells.values()) for (const value of DECISION_VALUES) counts[value] += row[value];
    return counts;
  }

  /** Every kind of flip that happened, the most rows first (ties: from the least severe, then to). */
  flips(): Flip[] {
    const flips: Flip[] = [];
    for (const from of PREVIOUS_ORDER) {
      for (const to of DECISION_VALUES) {
        const rows = this.cell(from, to);
        if (from === to || rows === 0) continue;
        const reasons = [...(this.#reasons.get(`${from}>${to}`) ?? new Map<string, number>())]
          .map(([code, count]) => ({ code, rows: count }))
          .sort((first, second) => second.rows - first.rows || first.code.localeCompare(second.code));
        flips.push({ from, to, rows, reasons });
      }
    }
    return flips.sort(
      (first, second) =>
        second.rows - first.rows ||
        SEVERITY[first.from] - SEVERITY[second.from] ||
        SEVERITY[first.to] - SEVERITY[second.to],
    );
  }

  summary(): FlipSummary {
    return { counts: this.counts(), flips: this.flips() };
  }
}
