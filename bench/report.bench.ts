/**
 * Batch report benchmark: the time and size of `report.html` for a 100,000-row batch (and a re-screen's changes),
 * the two ways it is made: by the finaliser, gathering the rows as it writes the summary, and by
 * `credit-screen report`, reading `summary.csv` and `changes.csv` back. Run with `npm run bench:report`.
 * Rows come from the emulator's report generator (its spread of scores, protests and debts), cold process: the
 * first render pays ECharts' and Intl's start-up, as a Lambda's first batch would.
 */
import { parseArgs } from 'node:util';
import { generateCreditReport } from '../emulator/report-generator.ts';
import { SeededRandom } from '../emulator/seeded-random.ts';
import { renderBatchReport, renderReportFromResults } from '../src/application/batch-report/index.ts';
import type { BatchManifest } from '../src/contract/index.ts';
import { resultKeys } from '../src/contract/index.ts';
import { CHANGE_KINDS, type ChangeRow, ChangesCsvWriter } from '../src/domain/monitoring/index.ts';
import { normaliseCreditReport } from '../src/domain/report/index.ts';
import {
  emptyStatusCounts,
  reportColumns,
  type StatisticsRow,
  SummaryCsvWriter,
  SummaryStatisticsCollector,
} from '../src/domain/summary/index.ts';
import { makeCnpj, makeCpf } from '../test/factories/documents.ts';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' } } });
const total = Number(values.rows);
const random = new SeededRandom('report bench');

// A thousand distinct reports, reused round-robin: the report is about rows, not about generating them.
const reports = Array.from({ length: 1000 }, (_, index) => {
  const document = index % 5 < 3 ? makeCpf(random) : makeCnpj(random);
  const report = normaliseCreditReport(generateCreditReport(document, 'a'), {
    bureau: 'a',
    document,
    fetchedAt: '2026-11-21T00:00:00.000Z',
  });
  return { document, type: report.documentType, columns: reportColumns(report) };
});

function row(index: number): StatisticsRow {
  const sample = reports[index % reports.length] as (typeof reports)[number];
  const roll = index % 100;
  const status =
    roll < 85
      ? 'screened'
      : roll < 92
        ? 'cached'
        : roll < 96
          ? 'duplicate'
          : roll < 99
            ? 'invalid_document'
            : 'failed';
  const invalid = status === 'invalid_document';
  return {
    row: index + 1,
    document: invalid ? `${sample.document.slice(0, 9)}` : sample.document,
    documentType: invalid ? null : sample.type,
    bureau: 'a',
    status,
    statusDetail: invalid
      ? 'wrong length: 9 digits (a CPF has 11, a CNPJ 14)'
      : status === 'failed'
        ? 'bureau unavailable after 5 attempts: timeout'
        : '',
    report: invalid || status === 'failed' ? null : sample.columns,
    passThrough: [`CLI-${String(index + 1).padStart(6, '0')}`, `Cliente ${index + 1}`, 'varejo'],
  };
}

const rows = Array.from({ length: total }, (_, index) => row(index));
const changes: ChangeRow[] = rows
  .filter((_, index) => index % 5 === 0)
  .map((line, index) => ({
    row: line.row,
    document: line.document,
    change: {
      kind: CHANGE_KINDS[index % CHANGE_KINDS.length] ?? 'score_drop',
      before: '700',
      after: '600',
      delta: '-100',
    },
    passThrough: line.passThrough,
  }));
const counts = emptyStatusCounts();
for (const line of rows) counts[line.status]++;
const charges = { charged: counts.screened, not_charged: total - counts.screened, charge_unknown: 0 };
const keys = resultKeys('bench0000000000000000000');
const manifest: BatchManifest = {
  manifestVersion: 1,
  batchId: 'bench0000000000000000000',
  status: 'completed',
  revision: 1,
  bureau: 'a',
  source: { bucket: 'bench', key: 'portfolios/carteira.csv', sha256: null },
  createdAt: '2026-11-23T10:00:00.000Z',
  completedAt: '2026-11-23T11:10:00.000Z',
  quote: null,
  counts: { rows: total, ...counts },
  charges,
  files: { summary: keys.summary, reports: keys.reports, changes: keys.changes, report: keys.report },
  portfolio: 'carteira',
  changes: null,
  dialect: 'standard',
  failure: null,
};
const changeCounts = Object.fromEntries(CHANGE_KINDS.map((kind) => [kind, 0])) as Record<
  (typeof CHANGE_KINDS)[number],
  number
>;
for (const change of changes) changeCounts[change.change.kind]++;
const portfolioManifest: BatchManifest = {
  ...manifest,
  changes: { counts: changeCounts, documentsChanged: changes.length },
};

const passThroughHeaders = ['customer_id', 'nome', 'segmento'];
const summaryWriter = new SummaryCsvWriter('standard', passThroughHeaders);
const summaryText = summaryWriter.header() + rows.map((line) => summaryWriter.row(line)).join('');
const changesWriter = new ChangesCsvWriter('standard', passThroughHeaders);
const changesText = changesWriter.header() + changes.map((change) => changesWriter.row(change)).join('');

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number }> {
  const started = process.hrtime.bigint();
  const result = await work();
  return { result, seconds: Number((Number(process.hrtime.bigint() - started) / 1e9).toFixed(3)) };
}

// The finaliser: every row gathered as the summary is written, then the page rendered.
const finaliser = await timed(() => {
  const collector = new SummaryStatisticsCollector();
  for (const line of rows) collector.add(line);
  for (const change of changes) collector.addChange(change);
  return renderBatchReport({
    manifest: portfolioManifest,
    statistics: collector.result(),
    passThroughHeaders,
    language: 'pt-BR',
  });
});
// `credit-screen report`: summary.csv and changes.csv parsed back, gathered and rendered.
const command = await timed(() =>
  renderReportFromResults(
    { manifest: portfolioManifest, summary: summaryText, changes: changesText },
    { language: 'pt-BR' },
  ),
);
const warm = await timed(() =>
  renderReportFromResults(
    { manifest: portfolioManifest, summary: summaryText, changes: changesText },
    { language: 'en' },
  ),
);

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
console.log(
  JSON.stringify(
    {
      benchmark: 'report.html of a re-screen: statistics + ECharts SVG + HTML, one core',
      rows: total,
      changes: changes.length,
      summaryCsvBytes: bytes(summaryText),
      finaliser: { seconds: finaliser.seconds, htmlBytes: bytes(finaliser.result), firstInProcess: true },
      reportCommand: { seconds: command.seconds, htmlBytes: bytes(command.result), readsCsv: true },
      reportCommandWarm: { seconds: warm.seconds, htmlBytes: bytes(warm.result) },
      target: { seconds: 5, htmlBytes: 2 * 1024 * 1024 },
      node: process.version,
    },
    null,
    2,
  ),
);
