import Papa from 'papaparse';
import { type CsvDialect, csvLine, csvPreamble } from '../../domain/csv/csv-format.ts';
import { type DecisionOverride, finalOverrides } from '../../domain/decision/index.ts';
import type { DecisionOverrides, ObjectStore } from '../../domain/ports/index.ts';
import { creditLimitCell, DECISION_COLUMNS, FINAL_DECISION_COLUMNS } from '../../domain/summary/index.ts';
import { type DecidedRowsDependencies, duplicateTarget, readDecidedBatch } from './decided-rows.ts';

export interface ExportDecisionsDependencies extends DecidedRowsDependencies {
  readonly objects: Pick<ObjectStore, 'readTextIfExists' | 'writeStream'>;
  readonly overrides: Pick<DecisionOverrides, 'overridesOf'>;
}

/** What an export wrote: where, and how many rows a person decided. */
export interface DecisionsExport {
  readonly summaryKey: string;
  readonly rows: number;
  readonly overridden: number;
  readonly stillInReview: number;
}

/** Who decided a row no person overrode: the policy, by its name (its hash is in the manifest). */
const byPolicy = (policyName: string) => `policy:${policyName}`;

/**
 * The limit that goes with a person's final decision: none on a decline, the one the person gave on an approval,
 * else the policy's (`policyCell`, as the summary wrote it), which the approval did not change.
 */
function finalLimitCell(override: DecisionOverride, policyCell: string, dialect: CsvDialect): string {
  if (override.decision === 'decline') return creditLimitCell(0, dialect);
  return override.credit_limit === null ? policyCell : creditLimitCell(override.credit_limit, dialect);
}

/**
 * Rewrites a finished batch's `summary.csv` with each row's final decision (`final_decision`, `final_credit_limit`,
 * `decided_by`, `decided_at`, after the policy's own decision columns): a person's latest override where there is
 * one, else the policy's decision and limit, decided when the batch completed; a duplicate follows its first
 * occurrence. Every other cell is kept as it was (same dialect, same quoting), so the policy's decision, its
 * `credit_limit` and the bureau's figures are never rewritten; a summary exported before gets its final columns
 * replaced, not repeated.
 */
export async function exportDecisions(
  batchId: string,
  deps: ExportDecisionsDependencies,
): Promise<DecisionsExport> {
  const decided = await readDecidedBatch(batchId, deps);
  const finals = finalOverrides(await deps.overrides.overridesOf(batchId));
  const policyName = decided.batch.policy?.name ?? '';
  const decidedAt = decided.batch.completedAt ?? decided.manifest.completedAt ?? '';
  const rowsByNumber = new Map(decided.rows.map((row) => [row.row, row]));
  const overrideOf = (rowNumber: number): DecisionOverride | undefined => {
    const row = rowsByNumber.get(rowNumber);
    const target = row ? duplicateTarget(row) : null;
    return finals.get(target ?? rowNumber);
  };
  const records = parseRecords(decided.summaryText, decided.layout.dialect);
  const header = records[0] ?? [];
  const kept = header.flatMap((name, index) =>
    (FINAL_DECISION_COLUMNS as readonly string[]).includes(name) ? [] : [index],
  );
  const insertAt = kept.indexOf(header.indexOf(DECISION_COLUMNS[DECISION_COLUMNS.length - 1] as string)) + 1;
  const rowColumn = header.indexOf('row');
  const decisionColumn = header.indexOf('decision');
  const limitColumn = header.indexOf('credit_limit');
  const { dialect } = decided.layout;
  let overridden = 0;
  let stillInReview = 0;
  const lines = records.map((record, index) => {
    const cells = kept.map((position) => record[position] ?? '');
    let final: string[];
    if (index === 0) final = [...FINAL_DECISION_COLUMNS];
    else {
      const override = overrideOf(Number(record[rowColumn]));
      const policyDecision = record[decisionColumn] ?? '';
      const policyLimit = record[limitColumn] ?? '';
      if (override !== undefined) overridden++;
      else if (policyDecision === 'review') stillInReview++;
      final =
        override !== undefined
          ? [override.decision, finalLimitCell(override, policyLimit, dialect), override.by, override.at]
          : policyDecision === ''
            ? ['', '', '', '']
            : [policyDecision, policyLimit, byPolicy(policyName), decidedAt];
    }
    cells.splice(insertAt, 0, ...final);
    return csvLine(cells, dialect);
  });
  await deps.objects.writeStream(
    decided.summaryKey,
    'text/csv; charset=utf-8',
    (async function* () {
      yield csvPreamble(decided.layout.dialect);
      yield* lines;
    })(),
  );
  return { summaryKey: decided.summaryKey, rows: records.length - 1, overridden, stillInReview };
}

/** Every record of a results CSV the pipeline wrote, its header first, as cells. */
function parseRecords(text: string, dialect: CsvDialect): string[][] {
  const body = dialect === 'excel' ? text.replace(/^\uFEFF/, '') : text;
  return Papa.parse<string[]>(body, { delimiter: dialect === 'excel' ? ';' : ',', skipEmptyLines: true })
    .data;
}
