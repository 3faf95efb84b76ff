import type { DecisionTally } from '../../contract/index.ts';
import type { BatchRecord, RowRecord } from '../../domain/batch/index.ts';
import { reportKeyId } from '../../domain/batch/index.ts';
import {
  DECISION_VALUES,
  type Decision,
  type DecisionValue,
  decisionInput,
  policyError,
} from '../../domain/decision/index.ts';
import type {
  CreditPolicy,
  CreditPolicyLoader,
  Logger,
  ObjectStore,
  ReportHistory,
} from '../../domain/ports/index.ts';
import type { NormalisedReport } from '../../domain/report/index.ts';

/** Rows of a page decided at a time: the engine is fast, but a policy answers asynchronously. */
const DECISIONS_IN_FLIGHT = 50;

/**
 * Decides the rows of a batch with the policy it was ingested with, in the finaliser: every row with a report
 * (`screened`, `cached`) once, a duplicate with its first occurrence's decision. The finaliser is where every row's
 * report and the customer's columns are read anyway, and deciding there costs one engine evaluation per row, no
 * bureau request and no change to the worker's paid path; `decide` does the same over stored results.
 *
 * A policy copy that cannot be read or no longer compiles decides every row `review` with `POLICY_ERROR`, never
 * `approve`, and says why in the detail.
 */
export class BatchDecisions {
  readonly #decided = new Map<number, Decision>();
  readonly #counts = Object.fromEntries(DECISION_VALUES.map((value) => [value, 0])) as Record<
    DecisionValue,
    number
  >;
  readonly #reasons = new Map<string, { text: string; rows: number }>();

  private constructor(
    readonly batch: BatchRecord,
    readonly policy: CreditPolicy | { readonly failure: string },
  ) {}

  /** The batch's decider; null for a batch ingested without a policy (it gets no decision columns). */
  static async open(
    batch: BatchRecord,
    deps: {
      readonly objects: Pick<ObjectStore, 'readTextIfExists'>;
      readonly policyLoader?: CreditPolicyLoader;
      readonly logger: Logger;
    },
  ): Promise<BatchDecisions | null> {
    if (batch.policy === null) return null;
    const text = await deps.objects.readTextIfExists(batch.policy.key);
    if (text === null || deps.policyLoader === undefined) {
      const failure = text === null ? 'the batch’s copy of its policy is missing' : 'no policy engine here';
      deps.logger.error('the batch’s policy cannot be used; its rows go to review', {
        batchId: batch.batchId,
        failure,
      });
      return new BatchDecisions(batch, { failure });
    }
    const loaded = deps.policyLoader.load(batch.policy.name, text);
    if (!loaded.ok) {
      deps.logger.error('the batch’s policy does not compile; its rows go to review', {
        batchId: batch.batchId,
        error: loaded.error,
      });
      return new BatchDecisions(batch, { failure: loaded.error });
    }
    return new BatchDecisions(batch, loaded.policy);
  }

  /** Decides the page's rows that have a report; the decisions are kept for {@link decisionOf}. */
  async decidePage(page: readonly RowRecord[], reports: Pick<ReportHistory, 'getReports'>): Promise<void> {
    const withReports = page.filter(
      (row) => row.reportKey !== null && (row.state === 'screened' || row.state === 'cached'),
    );
    if (withReports.length === 0) return;
    const stored = await reports.getReports(
      withReports.map((row) => row.reportKey as NonNullable<typeof row.reportKey>),
    );
    const headers = this.batch.layout?.passThroughColumns ?? [];
    for (let start = 0; start < withReports.length; start += DECISIONS_IN_FLIGHT) {
      const slice = withReports.slice(start, start + DECISIONS_IN_FLIGHT);
      const decisions = await Promise.all(
        slice.map((row) => {
          const report = stored.get(reportKeyId(row.reportKey as NonNullable<typeof row.reportKey>));
          if (report === undefined) return policyError('the row’s stored report is missing');
          if ('failure' in this.policy) return policyError(this.policy.failure);
          return this.policy.decide(decisionInput(report.report, headers, row.passThrough));
        }),
      );
      slice.forEach((row, index) => {
        this.#decided.set(row.row, decisions[index] as Decision);
      });
    }
  }

  /** Decides another report of a row's document (its previous one, for a re-screen's decision changes). */
  async decideReport(report: NormalisedReport, row: RowRecord): Promise<Decision> {
    if ('failure' in this.policy) return policyError(this.policy.failure);
    return this.policy.decide(
      decisionInput(report, this.batch.layout?.passThroughColumns ?? [], row.passThrough),
    );
  }

  /** A row's decision (a duplicate's is its first occurrence's); null for a row without a report. */
  decisionOf(row: RowRecord): Decision | null {
    const own =
      row.state === 'duplicate' ? this.#decided.get(row.duplicateOf ?? 0) : this.#decided.get(row.row);
    return own ?? null;
  }

  /** Counts a summary row's decision (duplicates included: each is a customer decided). */
  count(decision: Decision | null): void {
    if (decision === null) return;
    this.#counts[decision.decision]++;
    for (const reason of decision.reasons) {
      const seen = this.#reasons.get(reason.code) ?? { text: reason.text, rows: 0 };
      seen.rows++;
      this.#reasons.set(reason.code, seen);
    }
  }

  /**
   * Forgets a row's decision once the result files that need it have it: the reports pass comes last, but for a
   * re-screen, whose change report reads the decisions after it.
   */
  forget(row: number): void {
    if (this.batch.portfolio === null) this.#decided.delete(row);
  }

  tally(): DecisionTally {
    return {
      counts: { ...this.#counts },
      reasons: [...this.#reasons]
        .map(([code, { text, rows }]) => ({ code, text, rows }))
        .sort((first, second) => second.rows - first.rows || first.code.localeCompare(second.code)),
    };
  }
}
