import type { ReportLanguage } from '../../domain/batch-report/report-language.ts';
import { type StatisticsLimits, SummaryStatisticsCollector } from '../../domain/summary/index.ts';
import { readChangesCsv, readSummaryCsv } from '../../domain/summary/summary-csv-reader.ts';
import { type ReportManifest, renderBatchReport } from './render-batch-report.ts';

/** A batch's result files as text: what `credit-screen report` finds in a results folder or the bucket. */
export interface BatchResultFiles {
  readonly manifest: ReportManifest;
  /** `summary.csv`; null for a refused file, which has none. */
  readonly summary: string | null;
  /** `changes.csv` of a re-screen; null otherwise. */
  readonly changes: string | null;
}

/**
 * The report of a finished batch from its result files: the summary's rows are read back and gathered by the same
 * collector the finaliser feeds as it writes them, so the page shows the same figures either way.
 */
export function renderReportFromResults(
  files: BatchResultFiles,
  options: {
    readonly language: ReportLanguage;
    readonly generatedAt?: string;
    readonly limits?: StatisticsLimits;
  },
): Promise<string> {
  const statistics = new SummaryStatisticsCollector(options.limits);
  const layout = files.summary === null ? null : readSummaryCsv(files.summary, (row) => statistics.add(row));
  if (files.changes !== null) readChangesCsv(files.changes, (change) => statistics.addChange(change));
  return renderBatchReport({
    manifest: files.manifest,
    statistics: statistics.result(),
    passThroughHeaders: layout?.passThroughHeaders ?? [],
    language: options.language,
    ...(options.generatedAt === undefined ? {} : { generatedAt: options.generatedAt }),
  });
}
