import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchManifest } from '../../src/contract/index.ts';
import { CHANGE_KINDS } from '../../src/domain/monitoring/index.ts';
import { ROW_STATUSES } from '../../src/domain/summary/index.ts';
import { amountCents } from '../../src/domain/summary/summary-csv-reader.ts';
import { distinctDocuments } from '../factories/customer-lists.ts';
import {
  parseSummary,
  type SummaryLine,
  screenFile,
  startTestPipeline,
  type TestPipeline,
  writeCsv,
} from '../factories/pipeline.ts';

/** Debian's Chromium (`npm test` installs it when missing), driven by playwright-core: no browser download. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots for a person to look at (git-ignored). */
const OUTPUT = fileURLToPath(new URL('../../test-output/report', import.meta.url));

const HOSTILE_SCRIPT = '<script>window.pwned = "script"</script>';
const HOSTILE_ATTRIBUTE = '"><img src=x onerror="window.pwned = \'img\'">';
const FORMULA = '=HYPERLINK("http://evil.invalid","abrir")';

interface Results {
  readonly directory: string;
  readonly manifest: BatchManifest;
  readonly summary: SummaryLine[];
}

let test: TestPipeline;
let browser: Browser;
let upload: Results;
let portfolio: Results & { readonly changes: SummaryLine[] };

/** A customer list with names and segments, a few invalid and repeated documents, and hostile cells. */
function customerList(): string {
  const documents = distinctDocuments(60, 'report-browser');
  const lines = documents.map((document, index) => [
    `CLI-${String(index + 1).padStart(3, '0')}`,
    `Cliente ${index + 1}`,
    document,
  ]);
  lines.push(['CLI-900', 'Repetido', documents[0] as string]); // a duplicate
  lines.push(['CLI-901', 'Dígito errado', '123.456.789-00']);
  lines.push(['CLI-902', 'Sem documento', '']);
  // Hostile cells in the document column: invalid, so the page shows them as examples of their reason.
  lines.push(['CLI-903', HOSTILE_SCRIPT, HOSTILE_SCRIPT]);
  lines.push(['CLI-904', HOSTILE_ATTRIBUTE, HOSTILE_ATTRIBUTE]);
  lines.push(['CLI-905', FORMULA, FORMULA]);
  const quote = (cell: string) => `"${cell.replaceAll('"', '""')}"`;
  return `${['customer_id', 'nome', 'cpf_cnpj'].join(';')}\n${lines.map((line) => line.map(quote).join(';')).join('\n')}\n`;
}

async function downloaded(batchId: string): Promise<Results> {
  const directory = await mkdtemp(join(tmpdir(), 'credit-screen-report-'));
  const { manifest } = await test.pipeline.downloadResults(batchId, directory);
  return {
    directory,
    manifest,
    summary: parseSummary(await readFile(join(directory, 'summary.csv'), 'utf8')),
  };
}

async function runPortfolio(name: string): Promise<string> {
  const outcome = await test.pipeline.runPortfolio(name);
  if (!('batchId' in outcome)) throw new Error(`portfolio not run: ${JSON.stringify(outcome)}`);
  await test.pipeline.waitForCompletion(outcome.batchId, { pollMs: 100 });
  return outcome.batchId;
}

beforeAll(async () => {
  browser = await chromium
    .launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
    .catch((error: Error) => {
      throw new Error(`cannot start Chromium at ${CHROMIUM} (apt-get install chromium): ${error.message}`);
    });
  test = await startTestPipeline();
  const screened = await screenFile(test, await writeCsv('clientes.csv', customerList()));
  upload = { directory: screened.directory, manifest: screened.manifest, summary: screened.summary };

  const documents = distinctDocuments(80, 'report-portfolio');
  const list = `cpf_cnpj,gerente\n${documents.map((document, index) => `${document},gerente-${index % 5}`).join('\n')}\n`;
  await test.pipeline.putPortfolio('carteira', await writeCsv('carteira.csv', list), { bureau: 'a' });
  test.emulator.setEpoch(0);
  await runPortfolio('carteira');
  test.emulator.setEpoch(3);
  const second = await downloaded(await runPortfolio('carteira'));
  portfolio = {
    ...second,
    changes: parseSummary(await readFile(join(second.directory, 'changes.csv'), 'utf8')),
  };
  await mkdir(OUTPUT, { recursive: true });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await test?.stop();
});

interface Visit {
  readonly page: Page;
  readonly consoleErrors: string[];
  readonly requests: string[];
  /** Requests the browser refused to make, with why. */
  readonly blocked: string[];
}

/** Opens a page from disk as a person would (file://), recording console errors and every request. */
async function open(file: string, width: number): Promise<Visit> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const consoleErrors: string[] = [];
  const requests: string[] = [];
  const blocked: string[] = [];
  page.on('requestfailed', (request) => blocked.push(`${request.url()} ${request.failure()?.errorText}`));
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(pathToFileURL(file).href);
  return { page, consoleErrors, requests, blocked };
}

/** Every figure on the page: its raw value and the text shown. */
async function figuresOn(page: Page): Promise<Record<string, { value: number; text: string }>> {
  return page.$$eval('[data-figure]', (elements) =>
    Object.fromEntries(
      elements.map((element) => [
        element.getAttribute('data-figure'),
        { value: Number(element.getAttribute('data-value')), text: element.textContent ?? '' },
      ]),
    ),
  );
}

const whole = new Intl.NumberFormat('pt-BR');
const money = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/** Sum of an amount column over the rows with a report (screened or cached), in cents, from the CSV text. */
function centsOf(summary: readonly SummaryLine[], column: string): number {
  return summary
    .filter((line) => line.status === 'screened' || line.status === 'cached')
    .reduce((sum, line) => sum + (amountCents(line[column] ?? '') ?? 0), 0);
}

async function expectSummaryFigures(page: Page, results: Results): Promise<void> {
  const figures = await figuresOn(page);
  const { summary, manifest } = results;
  for (const status of ROW_STATUSES) {
    const lines = summary.filter((line) => line.status === status).length;
    expect(figures[`status:${status}`], status).toEqual({ value: lines, text: whole.format(lines) });
    expect(manifest.counts[status], status).toBe(lines);
  }
  expect(figures.rows?.value).toBe(summary.length);
  expect(figures.rows?.value).toBe(manifest.counts.rows);
  expect(figures['with-report']?.value).toBe(manifest.counts.screened + manifest.counts.cached);
  for (const [figure, column] of [
    ['risk:all:protests', 'protests_amount'],
    ['risk:all:pending-debts', 'pending_debts_amount'],
    ['risk:all:bounced-cheques', 'bounced_cheques_amount'],
  ] as const) {
    const cents = centsOf(summary, column);
    expect(figures[figure], figure).toEqual({ value: cents, text: money.format(cents / 100) });
  }
}

async function expectReadable(visit: Visit, file: string, name: string, width: number): Promise<void> {
  expect(visit.consoleErrors).toEqual([]);
  expect(visit.requests).toEqual([pathToFileURL(file).href]); // the page itself, nothing else
  // Nothing wider than the screen but the tables, which scroll inside their own box.
  // A string, evaluated in the page: the test's own TypeScript has no DOM types.
  const overflow = Number(
    await visit.page.evaluate('document.documentElement.scrollWidth - window.innerWidth'),
  );
  expect(overflow, `horizontal overflow at ${width} px`).toBeLessThanOrEqual(0);
  await visit.page.screenshot({ path: join(OUTPUT, `${name}-${width}.png`), fullPage: true });
}

describe('report.html in a browser', () => {
  it.each([1280, 390])(
    'shows an upload’s counts and amounts as summary.csv and manifest.json have them (%i px)',
    async (width) => {
      const file = join(upload.directory, 'report.html');
      const visit = await open(file, width);

      await expectSummaryFigures(visit.page, upload);
      await expectReadable(visit, file, 'upload', width);
      await visit.page.close();
    },
  );

  it.each([1280, 390])(
    'shows a portfolio run’s changes by kind as changes.csv has them (%i px)',
    async (width) => {
      const file = join(portfolio.directory, 'report.html');
      const visit = await open(file, width);

      await expectSummaryFigures(visit.page, portfolio);
      const figures = await figuresOn(visit.page);
      for (const kind of CHANGE_KINDS) {
        const lines = portfolio.changes.filter((line) => line.change === kind).length;
        expect(figures[`change:${kind}`]?.value, kind).toBe(lines);
        expect(portfolio.manifest.changes?.counts[kind], kind).toBe(lines);
      }
      // The most severe change leads the list.
      const firstKind = await visit.page
        .locator('table.changes tbody tr')
        .first()
        .locator('td.kind')
        .textContent();
      expect(firstKind).toBe('Novo protesto');
      await expectReadable(visit, file, 'portfolio', width);
      await visit.page.close();
    },
  );

  it('shows hostile cells as text: no element, no script run', async () => {
    const visit = await open(join(upload.directory, 'report.html'), 1280);

    const text = await visit.page.locator('main').innerText();
    expect(text).toContain('"><img src=x onerror=');
    expect(text).toContain(`'${FORMULA}`);
    expect(await visit.page.locator('img').count()).toBe(0);
    expect(await visit.page.locator('main script').count()).toBe(0);
    expect(await visit.page.evaluate('window.pwned ?? null')).toBeNull();
    await visit.page.close();
  });

  it('blocks markup that escaped escaping anyway: its Content-Security-Policy runs no script and loads nothing', async () => {
    const html = await readFile(join(upload.directory, 'report.html'), 'utf8');
    const injected = html.replace('</main>', `${HOSTILE_SCRIPT}<p>${HOSTILE_ATTRIBUTE}</p></main>`);
    const file = join(await mkdtemp(join(tmpdir(), 'credit-screen-csp-')), 'report.html');
    await writeFile(file, injected);
    const visit = await open(file, 1280);

    expect(await visit.page.locator('img').count()).toBe(1); // the markup is there…
    expect(await visit.page.evaluate('window.pwned ?? null')).toBeNull(); // …and inert
    // The image was asked for and refused by the policy before anything was fetched.
    const image = new URL('x', pathToFileURL(file)).href;
    expect(visit.requests).toEqual([pathToFileURL(file).href, image]);
    expect(visit.blocked).toEqual([`${image} csp`]);
    expect(visit.consoleErrors.join('\n')).toMatch(/Content Security Policy/);
    await visit.page.close();
  });
});
