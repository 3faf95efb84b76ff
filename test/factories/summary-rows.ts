import type { BatchManifest } from '../../src/contract/index.ts';
import { resultKeys } from '../../src/contract/index.ts';
import type { BatchStatistics, ReportColumns, StatisticsRow } from '../../src/domain/summary/index.ts';
import { emptyStatusCounts, SummaryStatisticsCollector } from '../../src/domain/summary/index.ts';

/** Report figures of a summary row; every field can be overridden. */
export function reportColumnsWith(overrides: Partial<ReportColumns> = {}): ReportColumns {
  return {
    name: 'ANA DA SILVA',
    score: 712,
    defaultProbabilityPct: 12.5,
    protestsCount: 0,
    protestsCents: 0,
    pendingDebtsCount: 0,
    pendingDebtsCents: 0,
    bouncedChequesCount: 0,
    bouncedChequesCents: 0,
    stoppedChequesCount: 0,
    queryCode: 42,
    reportPdf: null,
    screenedAt: '2026-11-21T10:00:00.000Z',
    ...overrides,
  };
}

/** A screened summary row of a CPF (row 1 unless told), with a report. */
export function summaryRowWith(overrides: Partial<StatisticsRow> = {}): StatisticsRow {
  return {
    row: 1,
    document: '51954022212',
    documentType: 'cpf',
    bureau: 'a',
    status: 'screened',
    statusDetail: '',
    report: reportColumnsWith(),
    passThrough: ['CLI-1'],
    ...overrides,
  };
}

/** An invalid row: the cell as typed, its reason, no report. */
export function invalidRowWith(row: number, input: string, reason = 'bad CPF check digit'): StatisticsRow {
  return summaryRowWith({
    row,
    document: input,
    documentType: null,
    status: 'invalid_document',
    statusDetail: reason,
    report: null,
  });
}

/** The manifest of a completed upload whose counts are those of `rows`. */
export function manifestFor(
  rows: readonly StatisticsRow[],
  overrides: Partial<BatchManifest> = {},
): BatchManifest {
  const counts = emptyStatusCounts();
  const charges = { charged: 0, not_charged: 0, charge_unknown: 0 };
  for (const row of rows) {
    counts[row.status]++;
    charges[row.chargeState ?? (row.status === 'screened' ? 'charged' : 'not_charged')]++;
  }
  const batchId = overrides.batchId ?? '0123456789abcdef01234567';
  const keys = resultKeys(batchId);
  return {
    manifestVersion: 1,
    batchId,
    status: 'completed',
    revision: 1,
    bureau: 'a',
    source: { bucket: 'bucket', key: 'incoming/a/clientes-novembro.csv', sha256: null },
    createdAt: '2026-11-23T13:00:00.000Z',
    completedAt: '2026-11-23T13:02:05.500Z',
    quote: null,
    counts: { rows: rows.length, ...counts },
    charges,
    files: { summary: keys.summary, reports: keys.reports, report: keys.report },
    portfolio: null,
    changes: null,
    dialect: 'standard',
    failure: null,
    ...overrides,
  };
}

/** The statistics of `rows`, gathered as the finaliser gathers them. */
export function statisticsOf(rows: readonly StatisticsRow[]): BatchStatistics {
  const collector = new SummaryStatisticsCollector();
  for (const row of rows) collector.add(row);
  return collector.result();
}
