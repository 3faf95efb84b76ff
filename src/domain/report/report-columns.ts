import type { NormalisedReport } from './normalised-report.ts';

/**
 * The few figures of a report that the summary CSV shows, small enough to keep on the row item of a batch so
 * that writing a million-row summary never needs the full reports. Null means unknown, never zero.
 */
export interface ReportColumns {
  readonly name: string | null;
  readonly score: number | null;
  readonly defaultProbabilityPct: number | null;
  readonly protestsCount: number;
  readonly protestsCents: number | null;
  readonly pendingDebtsCount: number;
  readonly pendingDebtsCents: number | null;
  readonly bouncedChequesCount: number;
  readonly bouncedChequesCents: number | null;
  /** Null for bureau B, which does not report stopped cheques. */
  readonly stoppedChequesCount: number | null;
  readonly queryCode: number | null;
  readonly reportPdf: string | null;
  /** When the bureau produced the report (for a cached report, the original date). */
  readonly screenedAt: string;
}

export function reportColumns(report: NormalisedReport): ReportColumns {
  return {
    name: report.subject?.name ?? null,
    score: report.score?.value ?? null,
    defaultProbabilityPct: report.score?.probabilityPct ?? null,
    protestsCount: report.protests.count,
    protestsCents: report.protests.totalCents,
    pendingDebtsCount: report.pendingDebts.count,
    pendingDebtsCents: report.pendingDebts.totalCents,
    bouncedChequesCount: report.bouncedCheques.count,
    bouncedChequesCents: report.bouncedCheques.totalCents,
    stoppedChequesCount: report.stoppedCheques?.count ?? null,
    queryCode: report.queryCode,
    reportPdf: report.pdfUrl,
    screenedAt: report.fetchedAt,
  };
}
