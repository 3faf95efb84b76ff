import { describe, expect, it } from 'vitest';
import {
  REPORT_CONTENT_SECURITY_POLICY,
  type ReportManifest,
  renderBatchReport,
  renderReportFromResults,
} from '../../../src/application/batch-report/index.ts';
import { type StatisticsRow, SummaryCsvWriter } from '../../../src/domain/summary/index.ts';
import { reportFigures } from '../../factories/report-figures.ts';
import {
  invalidRowWith,
  manifestFor,
  reportColumnsWith,
  statisticsOf,
  summaryRowWith,
} from '../../factories/summary-rows.ts';

const HOSTILE_NAME = '<script>alert("name")</script>';
/** The title of a page: the file name in its heading. */
const titleOf = (html: string) => /<h1><span class="file"[^>]*>([^<]*)<\/span>/.exec(html)?.[1];
const HOSTILE_CELL = '"><img src=x onerror=alert(1)>';
const FORMULA = '=HYPERLINK("http://evil.invalid","clique")';

function page(
  rows: readonly StatisticsRow[],
  language: 'pt-BR' | 'en' = 'pt-BR',
  manifest: ReportManifest = manifestFor(rows),
): Promise<string> {
  return renderBatchReport({
    manifest,
    statistics: statisticsOf(rows),
    passThroughHeaders: ['customer_id'],
    language,
    generatedAt: '2026-11-23T13:03:00.000Z',
  });
}

const riskyRows: StatisticsRow[] = [
  summaryRowWith({
    row: 1,
    report: reportColumnsWith({
      score: 120,
      protestsCount: 2,
      protestsCents: 123_456,
      pendingDebtsCount: 1,
      pendingDebtsCents: 50,
    }),
  }),
  summaryRowWith({
    row: 2,
    document: '11222333000181',
    documentType: 'cnpj',
    report: reportColumnsWith({ score: 880 }),
  }),
  invalidRowWith(3, '123'),
];

describe('renderBatchReport', () => {
  it('writes Brazilian Portuguese by default: labels, R$ 1.234,56 and 23/11/2026', async () => {
    const html = await page(riskyRows);

    expect(html).toContain('<html lang="pt-BR">');
    expect(html).toContain('Relatório do lote');
    expect(html).toMatch(/R\$\s1\.234,56/);
    expect(html).toContain('23/11/2026');
    expect(html).toContain('519.540.222-12');
  });

  it('writes English when asked, with English number and date forms', async () => {
    const html = await page(riskyRows, 'en');

    expect(html).toContain('<html lang="en">');
    expect(html).toContain('Batch report');
    expect(html).toMatch(/R\$\s?1,234\.56/);
    expect(html).toContain('Nov 23, 2026');
    expect(html).not.toContain('Relatório');
  });

  it('shows the manifest’s counts and the statistics’ figures, each with its raw value', async () => {
    const found = reportFigures(await page(riskyRows));

    expect(found).toMatchObject({
      rows: 3,
      'status:screened': 2,
      'status:invalid_document': 1,
      'status:rows': 3,
      'with-report': 2,
      'with-restriction': 1,
      'low-score': 1,
      'risk:cpf:protests': 123_456,
      'risk:all:pending-debts': 50,
      'spend:queried': 2,
    });
  });

  it('is self-contained: a restrictive CSP, no script, no external reference, charts as inline SVG with text alternatives', async () => {
    const html = await page(riskyRows);

    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="${REPORT_CONTENT_SECURITY_POLICY.replaceAll("'", '&#39;')}">`,
    );
    expect(REPORT_CONTENT_SECURITY_POLICY).toMatch(/default-src 'none'/);
    expect(REPORT_CONTENT_SECURITY_POLICY).not.toMatch(/script-src/);
    expect(html).not.toMatch(/<script|<link|<iframe|@import|url\(/i);
    expect(html).not.toMatch(/(src|href)="https?:/);
    const charts = html.match(/<div class="chart-svg" role="img" aria-label="[^"]+"><svg/g) ?? [];
    expect(charts).toHaveLength(3); // score, default probability, risk mix
  });

  it('shows hostile names and cells as text, and a formula as the summary shows it', async () => {
    const hostile = [
      summaryRowWith({
        row: 1,
        report: reportColumnsWith({ name: HOSTILE_NAME, score: 10 }),
        passThrough: [HOSTILE_CELL],
      }),
      summaryRowWith({
        row: 2,
        report: reportColumnsWith({ name: FORMULA, score: 20 }),
        passThrough: [FORMULA],
      }),
      invalidRowWith(3, HOSTILE_CELL),
    ];
    const html = await page(hostile);

    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;');
    expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&#39;=HYPERLINK(&quot;http://evil.invalid&quot;,&quot;clique&quot;)');
  });

  it('caps the customer tables and says how many are not shown', async () => {
    const rows = Array.from({ length: 60 }, (_, index) =>
      summaryRowWith({ row: index + 1, report: reportColumnsWith({ score: index }) }),
    );
    const html = await page(rows);

    const lowest = html.slice(
      html.indexOf('id="lowest-scores"'),
      html.indexOf('</table>', html.indexOf('id="lowest-scores"')),
    );
    expect(lowest.match(/<tr>/g)).toHaveLength(16); // the header and 15 customers
    expect(html).toContain('Mais 45 de 60 não exibidos');
  });

  it.each([
    ['all invalid', [invalidRowWith(1, '1'), invalidRowWith(2, '2')], {}],
    ['all cached', [summaryRowWith({ status: 'cached', statusDetail: 'report of 2026-11-22 reused' })], {}],
    [
      'token rejected',
      [summaryRowWith({ status: 'failed', statusDetail: 'bureau token rejected', report: null })],
      { status: 'token_rejected' as const },
    ],
    [
      'cancelled',
      [summaryRowWith({ status: 'cancelled', statusDetail: 'batch cancelled', report: null })],
      { status: 'cancelled' as const },
    ],
    ['empty', [], {}],
  ])('gives a sensible page for a batch that is %s', async (_, rows, overrides) => {
    const html = await page(rows, 'pt-BR', manifestFor(rows, overrides));

    expect(html).toContain('</html>');
    expect(html).not.toMatch(/NaN|undefined|Infinity|null/);
    expect(reportFigures(html)['status:rows']).toBe(rows.length);
  });

  it('explains a refused file instead of showing empty sections', async () => {
    const html = await page(
      [],
      'pt-BR',
      manifestFor([], {
        status: 'file_rejected',
        files: null,
        failure: { code: 'no_document_column', message: 'no column of CPFs or CNPJs was found' },
      }),
    );

    expect(html).toContain('Arquivo recusado');
    expect(html).toContain('no column of CPFs or CNPJs was found');
    expect(html).not.toContain('Distribuição de score');
  });

  it('shows the quote made before buying, and what the answered queries cost at its price', async () => {
    const manifest = {
      ...manifestFor(riskyRows),
      quote: {
        bureau: 'a' as const,
        unique: 3,
        reusable: 0,
        to_buy: 3,
        price_per_query: 2.7,
        estimated_cost: 8.1,
        currency: 'BRL' as const,
        estimated_seconds: 1,
      },
    };
    const screened = manifest.counts.screened;

    const text = (await page(riskyRows, 'pt-BR', manifest)).replace(/\u00a0/g, ' ');

    expect(text).toContain('Cotação antes da compra: 3 consultas a R$ 2,70 = R$ 8,10.');
    expect(text).toContain(
      `Gasto com as consultas respondidas: R$ ${(screened * 2.7).toFixed(2).replace('.', ',')}.`,
    );
  });

  it('shows the charge states the manifest carries, and says when it carries none', async () => {
    const manifest = {
      ...manifestFor(riskyRows),
      charges: { charged: 1, not_charged: 1, charge_unknown: 1 },
    };

    expect(reportFigures(await page(riskyRows, 'pt-BR', manifest))).toMatchObject({
      'charge:charge_unknown': 1,
      'charge:charged': 1,
    });
    const { charges: _kept, ...olderManifest } = manifestFor(riskyRows);
    expect(await page(riskyRows, 'pt-BR', olderManifest)).toContain(
      'Este lote não registra a cobrança de cada linha.',
    );
  });
});

describe('renderReportFromResults', () => {
  it('gives the same page from summary.csv as from the rows it was written from', async () => {
    const writer = new SummaryCsvWriter('excel', ['customer_id']);
    const summary = writer.header() + riskyRows.map((row) => writer.row(row)).join('');
    const manifest = manifestFor(riskyRows);

    const fromFiles = await renderReportFromResults(
      { manifest, summary, changes: null },
      { language: 'pt-BR', generatedAt: '2026-11-23T13:03:00.000Z' },
    );

    // The zrender instance numbers its SVG classes; everything else is identical.
    const normalise = (html: string) => html.replace(/zr\d+-cls-\d+/g, 'zr-cls');
    expect(normalise(fromFiles)).toBe(normalise(await page(riskyRows)));
  });
});

describe('the title of the report', () => {
  const uploaded = 'incoming/a/20261124T101500123Z-e382bfcc745a.csv';

  it("shows the customer's file name, not the opaque upload key", async () => {
    const manifest = manifestFor(riskyRows, {
      source: { bucket: 'bucket', key: uploaded, sha256: null, name: 'Clientes de novembro.csv' },
    });

    const html = await page(riskyRows, 'pt-BR', manifest);

    expect(titleOf(html)).toBe('Clientes de novembro.csv');
    expect(html).not.toContain('e382bfcc745a');
  });

  it('escapes a hostile file name', async () => {
    const manifest = manifestFor(riskyRows, {
      source: { bucket: 'bucket', key: uploaded, sha256: null, name: `${HOSTILE_NAME}.csv` },
    });

    const html = await page(riskyRows, 'pt-BR', manifest);

    expect(html).not.toContain(HOSTILE_NAME);
    expect(titleOf(html)).toContain('&lt;script&gt;');
  });

  it('falls back to the last part of the key for results written before names were kept', async () => {
    const manifest = manifestFor(riskyRows, { source: { bucket: 'bucket', key: uploaded, sha256: null } });

    expect(titleOf(await page(riskyRows, 'pt-BR', manifest))).toBe('20261124T101500123Z-e382bfcc745a.csv');
  });
});
