import type { AuditEntry } from '../../domain/audit/index.ts';
import type { BatchRecord, RowRecord, StoredReport } from '../../domain/batch/index.ts';
import { reportKeyId } from '../../domain/batch/index.ts';
import type { DecisionOverride } from '../../domain/decision/index.ts';
import type {
  AuditLog,
  BatchRecords,
  BatchRows,
  DecisionOverrides,
  DocumentKeys,
  ReportHistory,
} from '../../domain/ports/index.ts';
import { BUREAUS } from '../../domain/report/index.ts';

/** Everything held about one document (LGPD art. 18, II: access), as one JSON document. */
export interface SubjectExport {
  readonly document: string;
  readonly exportedAt: string;
  /** Each batch the document was screened or decided in, with its rows of that document and their overrides. */
  readonly batches: readonly {
    readonly batchId: string;
    readonly source: string;
    readonly status: BatchRecord['status'];
    readonly createdAt: string;
    readonly completedAt: string | null;
    readonly policy: BatchRecord['policy'];
    readonly rows: readonly RowRecord[];
    readonly overrides: readonly DecisionOverride[];
  }[];
  /** The stored reports (the normalised report, when it was fetched, where its raw answer is kept). */
  readonly reports: readonly StoredReport[];
  /** Where the bureau's raw answers are kept (object keys of the bucket). */
  readonly rawResponses: readonly string[];
  /** Every audit entry about the document: requests, decisions, overrides. */
  readonly audit: readonly AuditEntry[];
}

export interface SubjectExportDependencies {
  readonly audit: { readonly log: AuditLog; readonly documentKeys: DocumentKeys };
  readonly batchRecords: Pick<BatchRecords, 'getBatch'>;
  readonly batchRows: Pick<BatchRows, 'getRows'>;
  readonly reportHistory: Pick<ReportHistory, 'getReports' | 'latestReports'>;
  readonly overrides: Pick<DecisionOverrides, 'overridesOf'>;
  readonly now?: () => Date;
}

/**
 * Gathers what the pipeline holds about a document. The audit log is the index: each batch and row that queried or
 * decided the document is found by the document's keyed hash, then read where it is kept (the batch, its rows, the
 * overrides of those rows, the reports the rows point at and the newest report of each bureau). Batches that
 * expired are gone with their data; their audit entries remain, and say so.
 */
export async function exportSubject(
  document: string,
  deps: SubjectExportDependencies,
  accessedBy?: { readonly by: string; readonly reason: string },
): Promise<SubjectExport> {
  const documentKey = await deps.audit.documentKeys.keyOf(document);
  const audit = await deps.audit.log.read({ documentKey });
  const rowsByBatch = new Map<string, Set<number>>();
  for (const entry of audit)
    rowsByBatch.set(entry.batchId, (rowsByBatch.get(entry.batchId) ?? new Set()).add(entry.row));
  const batches: SubjectExport['batches'][number][] = [];
  const reportKeys = new Map<string, NonNullable<RowRecord['reportKey']>>();
  for (const [batchId, rowNumbers] of rowsByBatch) {
    const batch = await deps.batchRecords.getBatch(batchId);
    if (batch === null) continue;
    const rows = (await deps.batchRows.getRows(batchId, [...rowNumbers])).filter(
      (row) => row.document === document,
    );
    for (const row of rows)
      if (row.reportKey !== null) reportKeys.set(reportKeyId(row.reportKey), row.reportKey);
    const overrides = (await deps.overrides.overridesOf(batchId)).filter((override) =>
      rowNumbers.has(override.row),
    );
    batches.push({
      batchId,
      source: batch.sourceKey,
      status: batch.status,
      createdAt: batch.createdAt,
      completedAt: batch.completedAt,
      policy: batch.policy,
      rows,
      overrides,
    });
  }
  const reports = new Map<string, StoredReport>(
    await deps.reportHistory.getReports([...reportKeys.values()]),
  );
  for (const bureau of BUREAUS) {
    const latest = (await deps.reportHistory.latestReports(bureau, [document])).get(document);
    if (latest !== undefined) reports.set(reportKeyId(latest.key), latest);
  }
  const stored = [...reports.values()].sort((a, b) => a.key.fetchedAt.localeCompare(b.key.fetchedAt));
  const exportedAt = (deps.now ?? (() => new Date()))().toISOString();
  // Reading everything held about a person is itself recorded, once per row that holds them, under who read it.
  if (accessedBy !== undefined)
    await deps.audit.log.append(
      [...rowsByBatch].flatMap(([batchId, rows]) =>
        [...rows].map(
          (row): AuditEntry => ({ kind: 'access', at: exportedAt, batchId, row, documentKey, ...accessedBy }),
        ),
      ),
    );
  return {
    document,
    exportedAt,
    batches: batches.sort((a, b) => a.createdAt.localeCompare(b.createdAt)),
    reports: stored,
    rawResponses: [...new Set(stored.map((report) => report.rawKey))],
    audit,
  };
}
