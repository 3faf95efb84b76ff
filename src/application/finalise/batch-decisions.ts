import type { DecisionTally } from '../../contract/index.ts';
import type { AuditEntry } from '../../domain/audit/index.ts';
import type { BatchRecord, RowRecord } from '../../domain/batch/index.ts';
import { reportKeyId } from '../../domain/batch/index.ts';
import {
  DECISION_VALUES,
  type Decision,
  type DecisionValue,
  decisionInput,
  policyError,
} from '../../domain/decision/index.ts';
import type { AuditLog, DocumentKeys, ReportHistory } from '../../domain/ports/index.ts';
import type { NormalisedReport } from '../../domain/report/index.ts';
import { type OpenedPolicy, openBatchPolicy, type PolicyOpening } from '../policies/open-batch-policy.ts';

/** Rows of a page decided at a time: the engine is fast, but a policy answers asynchronously. */
const DECISIONS_IN_FLIGHT = 50;

/** What the decider needs: the policy's copy and engine, and the audit log its decisions are recorded in. */
interface DecisionsDependencies extends PolicyOpening {
  readonly audit?: { readonly log: AuditLog; readonly documentKeys: DocumentKeys };
}

/**
 * The decisions of a batch's rows, for the finaliser's files: every row with a report (`screened`, `cached`) once,
 * a duplicate with its first occurrence's decision. The workers decide the rows they settle (they hold the report
 * then); this takes their decisions as stored and evaluates the batch's policy only for the rest: rows reused at
 * ingest, rows settled while the policy could not be opened, and a re-screen's previous reports. `decide` does the
 * same over stored results.
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
    readonly policy: OpenedPolicy,
    private readonly deps: DecisionsDependencies,
  ) {}

  /** The batch's decider; null for a batch ingested without a policy (it gets no decision columns). */
  static async open(batch: BatchRecord, deps: DecisionsDependencies): Promise<BatchDecisions | null> {
    const policy = await openBatchPolicy(batch, deps);
    return policy === null ? null : new BatchDecisions(batch, policy, deps);
  }

  /**
   * Decides the page's rows that have a report; the decisions are kept for {@link decisionOf}. A row the worker
   * decided when it settled keeps that decision (the same policy copy decided it); only the others are evaluated
   * here: rows reused at ingest, rows settled while the policy could not be opened. Not `audited`: rows another
   * part of the batch decides and records (a duplicate's first occurrence, read back for its decision).
   */
  async decidePage(
    page: readonly RowRecord[],
    reports: Pick<ReportHistory, 'getReports'>,
    { audited = true }: { readonly audited?: boolean } = {},
  ): Promise<void> {
    const withReports: RowRecord[] = [];
    for (const row of page) {
      if (row.reportKey === null || (row.state !== 'screened' && row.state !== 'cached')) continue;
      if (row.decision) this.#decided.set(row.row, row.decision);
      else withReports.push(row);
    }
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
      if (audited) await this.#audit(slice, decisions);
    }
  }

  /** Records the decisions made here in the audit log (the workers record theirs). */
  async #audit(rows: readonly RowRecord[], decisions: readonly Decision[]): Promise<void> {
    const { audit, logger } = this.deps;
    const policy = this.batch.policy;
    if (audit === undefined || policy === null) return;
    const at = new Date().toISOString();
    try {
      const entries: AuditEntry[] = await Promise.all(
        rows.map(async (row, index) => ({
          kind: 'decision' as const,
          at,
          batchId: this.batch.batchId,
          row: row.row,
          documentKey: await audit.documentKeys.keyOf(row.document ?? ''),
          policy: { name: policy.name, sha256: policy.sha256 },
          decision: (decisions[index] as Decision).decision,
          reasons: (decisions[index] as Decision).reasons.map((reason) => reason.code),
        })),
      );
      await audit.log.append(entries);
    } catch (error) {
      logger.error('could not write the audit entries of the finaliser’s decisions', {
        batchId: this.batch.batchId,
        error: error instanceof Error ? error.message : String(error),
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
