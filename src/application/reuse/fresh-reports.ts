import type { StoredReport } from '../../domain/batch/index.ts';
import type { ReportHistory } from '../../domain/ports/index.ts';
import type { Bureau } from '../../domain/report/index.ts';

/**
 * The stored reports younger than the freshness window among `documents`, by document: what a batch reuses
 * instead of paying again. Ingest settles these rows as `cached`; the quote counts them as reusable. One rule for
 * both, so a quote's `to_buy` is what the run then buys.
 */
export async function freshReports(
  reports: Pick<ReportHistory, 'latestReports'>,
  request: {
    readonly bureau: Bureau;
    readonly documents: readonly string[];
    readonly freshnessHours: number;
    readonly nowMs: number;
  },
): Promise<Map<string, StoredReport>> {
  if (request.freshnessHours <= 0 || request.documents.length === 0) return new Map();
  const stored = await reports.latestReports(request.bureau, request.documents);
  const freshSince = request.nowMs - request.freshnessHours * 3_600_000;
  return new Map([...stored].filter(([, report]) => Date.parse(report.key.fetchedAt) > freshSince));
}
