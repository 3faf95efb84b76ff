import type { BatchManifest } from '../../contract/index.ts';
import type { ReportLanguage } from '../../domain/batch-report/report-language.ts';
import { formatDocument } from '../../domain/documents/index.ts';
import {
  type BatchStatistics,
  type ChargeStateCounts,
  type CustomerLine,
  neutraliseFormula,
  type Ranking,
} from '../../domain/summary/index.ts';
import { html, SafeHtml } from './html.ts';
import type { ReportFormat } from './report-format.ts';
import type { ReportMessages } from './report-messages.ts';

/** The parts of the batch report that its sections share: what they read, and how they show cells and figures. */

/** A manifest as the report reads it: one written before charge states were kept has no `charges`. */
export type ReportManifest = Omit<BatchManifest, 'charges'> & { readonly charges?: ChargeStateCounts | null };

export interface BatchReportInput {
  readonly manifest: ReportManifest;
  /** Gathered from the summary's rows (SummaryStatisticsCollector). */
  readonly statistics: BatchStatistics;
  /** Headers of the input's own columns, as the summary writes them. */
  readonly passThroughHeaders: readonly string[];
  readonly language: ReportLanguage;
  /** When the page is generated (ISO 8601). @default now */
  readonly generatedAt?: string;
}

/** Input columns shown beside a customer: enough to find them (a customer id), few enough for a phone. */
const PASS_THROUGH_SHOWN = 2;

/** The chart renderers: ECharts takes most of a second to load, so only a process that renders a page loads it. */
type ReportCharts = typeof import('./report-charts.ts');
let chartsLoading: Promise<ReportCharts> | undefined;
export const loadCharts = (): Promise<ReportCharts> => {
  chartsLoading ??= import('./report-charts.ts');
  return chartsLoading;
};

/** What every part of the page reads. */
export interface Context {
  readonly charts: ReportCharts;
  readonly input: BatchReportInput;
  readonly manifest: ReportManifest;
  readonly statistics: BatchStatistics;
  readonly text: ReportMessages;
  readonly format: ReportFormat;
}

/** A cell of the input's own data: shown as text, and as the summary shows it (a formula stays inert). */
export const cell = (value: string): string => neutraliseFormula(value);

/** A figure with its raw value beside it, so a reader (or a test) can match it to the summary. */
export const figure = (value: number, shown: string, name: string): SafeHtml =>
  html`<span data-figure="${name}" data-value="${value}">${shown}</span>`;

export function chartFigure(
  title: string,
  svg: string,
  table: SafeHtml,
  context: Context,
  wide = false,
): SafeHtml {
  return html`<figure class="chart${wide ? ' wide' : ''}">
<div class="chart-svg" role="img" aria-label="${context.text.chartOf(title)}">${new SafeHtml(svg)}</div>
<figcaption>${table}</figcaption>
</figure>`;
}

export function documentText(line: { document: string; documentType: CustomerLine['documentType'] }): string {
  const valid =
    (line.documentType === 'cpf' && /^\d{11}$/.test(line.document)) ||
    (line.documentType === 'cnpj' && /^[0-9A-Z]{12}\d{2}$/.test(line.document));
  return valid && line.documentType !== null
    ? formatDocument(line.document, line.documentType)
    : cell(line.document);
}

export function notShown(ranking: Ranking<unknown>, { text, format }: Context): SafeHtml {
  const hidden = ranking.total - ranking.items.length;
  return hidden > 0
    ? html`<p class="muted table-note">${text.notShown(format.whole(hidden), format.whole(ranking.total))}</p>`
    : html``;
}

export function passThroughHeads(context: Context): SafeHtml[] {
  return context.input.passThroughHeaders
    .slice(0, PASS_THROUGH_SHOWN)
    .map((header) => html`<th scope="col">${cell(header)}</th>`);
}

export function passThroughCells(values: readonly string[], context: Context): SafeHtml[] {
  return context.input.passThroughHeaders
    .slice(0, PASS_THROUGH_SHOWN)
    .map((header, index) => html`<td data-label="${cell(header)}">${cell(values[index] ?? '')}</td>`);
}
