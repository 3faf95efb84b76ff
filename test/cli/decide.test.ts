import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../emulator/seeded-random.ts';
import { loadZenCreditPolicy } from '../../src/adapters/decision/zen-credit-policy.ts';
import { FlipTally } from '../../src/application/redecide/flip-tally.ts';
import { redecide } from '../../src/application/redecide/redecide.ts';
import type { ResultFiles } from '../../src/application/redecide/result-files.ts';
import { customerHeaders } from '../../src/application/redecide/summary-stream.ts';
import { type CsvDialect, UTF8_BOM } from '../../src/domain/csv/csv-format.ts';
import { type Decision, decisionInput } from '../../src/domain/decision/index.ts';
import type { CreditPolicy } from '../../src/domain/ports/index.ts';
import type { NormalisedReport } from '../../src/domain/report/index.ts';
import {
  reportColumns,
  SummaryCsvWriter,
  type SummaryRow,
  type SummaryStatus,
} from '../../src/domain/summary/index.ts';
import { companyReport, personReport } from '../factories/decision-reports.ts';
import { makeCnpj, makeCpf } from '../factories/documents.ts';
import { runCli } from '../factories/run-cli.ts';
import { manifestFor } from '../factories/summary-rows.ts';

const SAMPLE_POLICY = join(process.cwd(), 'samples/policies/pessoa-fisica.json');

/**
 * The sample policy for individuals made stricter in its score bands and its pending debts, and laxer on recent
 * queries (so that one flip improves):
 * - score: decline below 400 (was 300), review from 400 to 599 (was 300 to 499), approve (C) from 600 (was 500);
 * - pending debts: decline from 25 % of the amount asked (was 50 %);
 * - recent queries: review above 20 in 90 days (was 10).
 */
async function stricterPolicy(directory: string): Promise<string> {
  const graph = JSON.parse(await readFile(SAMPLE_POLICY, 'utf8'));
  type Rule = Record<string, string>;
  const rules = new Map<string, Rule>(
    graph.nodes.flatMap((node: { content?: { rules?: Rule[] } }) =>
      (node.content?.rules ?? []).map((rule) => [rule._id, rule]),
    ),
  );
  const edit = (id: string, cells: Rule) => Object.assign(rules.get(id) as Rule, cells);
  edit('pf-score-e', {
    score: '< 400',
    motivos: '[{code: "SCORE_ABAIXO_DE_400", text: "Score abaixo de 400"}]',
  });
  edit('pf-score-d', {
    score: '[400..600)',
    motivos: '[{code: "SCORE_400_A_599", text: "Score entre 400 e 599"}]',
  });
  edit('pf-score-c', { score: '[600..700)' });
  edit('pf-pendencias-altas', {
    comprometimento: '$ != null and $ >= 0.25',
    motivos: '[{code: "PENDENCIAS_ACIMA_DE_25PCT", text: "Pendências de 25% ou mais do valor solicitado"}]',
  });
  edit('pf-pendencias', { comprometimento: '$ != null and $ < 0.25' });
  edit('pf-consultas', { consultas: '$ != null and $ > 20' });
  const path = join(directory, 'mais-restritiva.json');
  await writeFile(path, JSON.stringify(graph, null, 2));
  return path;
}

async function loadPolicy(path: string): Promise<CreditPolicy> {
  const loaded = await loadZenCreditPolicy('policy.json', await readFile(path));
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.policy;
}

/** The customer's own columns: `name` clashes with the summary's and is written `input_name`. */
const CUSTOMER_COLUMNS = ['customer_id', 'name', 'requested_amount'];

interface CraftedRow {
  readonly status: SummaryStatus;
  readonly report?: NormalisedReport;
  readonly document?: string;
  readonly duplicateOf?: number;
  readonly requested?: string;
}

const random = new SeededRandom('decide cli test');
const withDocument = (report: NormalisedReport, document: string): NormalisedReport => ({
  ...report,
  document,
});
const person = (figures: Parameters<typeof personReport>[0]) =>
  withDocument(personReport(figures), makeCpf(random));
const recentQueries = Array.from({ length: 15 }, () => '2025-12-01');

/**
 * The batch, with what the sample policy decided and what the stricter one decides (by hand, from the bands and
 * rules above; a clean person: born 1984, presumed income R$ 3.500, regular CPF, default probability 5 %).
 */
const BATCH: readonly (CraftedRow & { readonly before?: string; readonly after?: string })[] = [
  { status: 'screened', report: person({ score: 900 }), before: 'approve', after: 'approve' },
  { status: 'screened', report: person({ score: 550 }), before: 'approve', after: 'review' },
  { status: 'screened', report: person({ score: 580 }), before: 'approve', after: 'review' },
  { status: 'screened', report: person({ score: 350 }), before: 'review', after: 'decline' },
  // Pending debts of R$ 1.000 against R$ 3.000 asked: 33 %, under 50 % (review), over 25 % (decline).
  {
    status: 'screened',
    report: person({ score: 720, pendingDebts: [1, 1000] }),
    requested: 'R$ 3.000,00',
    before: 'review',
    after: 'decline',
  },
  { status: 'duplicate', duplicateOf: 2, before: 'approve', after: 'review' },
  { status: 'invalid_document', document: '123' },
  { status: 'cached', report: person({ score: 250 }), before: 'decline', after: 'decline' },
  { status: 'failed', document: makeCpf(random) },
  {
    status: 'screened',
    report: person({ score: 720, queries: recentQueries }),
    before: 'review',
    after: 'approve',
  },
  {
    status: 'screened',
    report: withDocument(companyReport({ score: 800 }), makeCnpj(random)),
    before: 'review',
    after: 'review',
  },
  { status: 'screened', report: person({ score: 450 }), before: 'review', after: 'review' },
];

/** The flips the stricter policy makes on BATCH, counted by hand from the table above. */
const EXPECTED_FLIPS = [
  { from: 'approve', to: 'review', rows: 3, reasons: [{ code: 'SCORE_400_A_599', rows: 3 }] },
  {
    from: 'review',
    to: 'decline',
    rows: 2,
    reasons: [
      { code: 'PENDENCIAS_ACIMA_DE_25PCT', rows: 1 },
      { code: 'SCORE_ABAIXO_DE_400', rows: 1 },
    ],
  },
  { from: 'review', to: 'approve', rows: 1, reasons: [{ code: 'MUITAS_CONSULTAS', rows: 1 }] },
];

const customerCells = (row: number, crafted: CraftedRow) => [
  `CLI-${row}`,
  `=Cliente ${row}`,
  crafted.requested ?? 'R$ 50.000,00',
];

/** summary.csv and reports.jsonl as the finaliser writes them, decided by `previous` (none: no policy). */
async function resultTexts(
  rows: readonly CraftedRow[],
  previous: CreditPolicy | null,
  dialect: CsvDialect = 'standard',
): Promise<{ summary: string; reports: string }> {
  const writer = new SummaryCsvWriter(dialect, CUSTOMER_COLUMNS, previous !== null);
  let summary = writer.header();
  let reports = '';
  const decisions = new Map<number, Decision>();
  for (const [index, crafted] of rows.entries()) {
    const row = index + 1;
    const original =
      crafted.duplicateOf === undefined ? crafted : (rows[crafted.duplicateOf - 1] as CraftedRow);
    const report = original.report ?? null;
    const cells = customerCells(row, crafted);
    let decision: Decision | null = null;
    if (crafted.duplicateOf !== undefined) decision = decisions.get(crafted.duplicateOf) ?? null;
    else if (report !== null && previous !== null) {
      decision = await previous.decide(decisionInput(report, CUSTOMER_COLUMNS, cells));
      decisions.set(row, decision);
    }
    if (report !== null && crafted.duplicateOf === undefined)
      reports += `${JSON.stringify(decision === null ? report : { ...report, decision })}\n`;
    const summaryRow: SummaryRow = {
      row,
      document: report?.document ?? crafted.document ?? '',
      documentType: report?.documentType ?? null,
      bureau: 'a',
      status: crafted.status,
      statusDetail: crafted.duplicateOf === undefined ? '' : `row ${crafted.duplicateOf}`,
      chargeState: crafted.status === 'screened' ? 'charged' : 'not_charged',
      report: report === null ? null : reportColumns(report),
      decision,
      passThrough: cells,
    };
    summary += writer.row(summaryRow);
  }
  return { summary, reports };
}

/** Result files served from memory in small chunks, so that rows and lines straddle chunk boundaries. */
function filesOf(texts: { summary: string; reports: string }, chunk = 97): ResultFiles {
  async function* chunks(text: string): AsyncGenerator<Uint8Array> {
    const bytes = Buffer.from(text, 'utf8');
    for (let start = 0; start < bytes.length; start += chunk) yield bytes.subarray(start, start + chunk);
  }
  return { where: 'memory', manifest: null, defaultOut: tmpdir(), open: (file) => chunks(texts[file]) };
}

function sink() {
  let text = '';
  return {
    write: async (more: string) => {
      text += more;
    },
    text: () => text,
  };
}

/** A results folder with summary.csv, reports.jsonl and manifest.json, decided by the sample policy. */
async function resultsFolder(dialect: CsvDialect = 'standard'): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'credit-screen-decide-'));
  const texts = await resultTexts(BATCH, await loadPolicy(SAMPLE_POLICY), dialect);
  await writeFile(join(directory, 'summary.csv'), texts.summary);
  await writeFile(join(directory, 'reports.jsonl'), texts.reports);
  const manifest = manifestFor([], {
    counts: {
      rows: 12,
      screened: 8,
      cached: 1,
      duplicate: 1,
      invalid_document: 1,
      failed: 1,
      cancelled: 0,
      not_queried: 0,
    },
    policy: { name: 'pessoa-fisica.json', sha256: 'f'.repeat(64) },
    dialect,
  });
  await writeFile(join(directory, 'manifest.json'), JSON.stringify(manifest));
  return directory;
}

describe('deciding a batch again from its stored results', () => {
  it('decides each row as the pipeline would, repeats duplicates, and counts the flips by hand', async () => {
    const sample = await loadPolicy(SAMPLE_POLICY);
    const stricter = await loadPolicy(await stricterPolicy(await mkdtemp(join(tmpdir(), 'decide-'))));
    const texts = await resultTexts(BATCH, sample);
    const out = sink();

    const outcome = await redecide(filesOf(texts), stricter, out);

    const lines = out.text().trimEnd().split('\r\n');
    expect(lines[0]).toBe('row,document,decision,reasons,risk_band,credit_limit,previous_decision');
    const cells = lines.slice(1).map((line) => line.match(/^(\d+),([^,]*),([a-z]*),/)?.slice(1) ?? []);
    expect(cells.map(([row]) => Number(row))).toEqual(BATCH.map((_, index) => index + 1));
    expect(cells.map(([, , decision]) => decision)).toEqual(BATCH.map((row) => row.after ?? ''));
    expect(lines.slice(1).map((line) => line.split(',').at(-1))).toEqual(
      BATCH.map((row) => row.before ?? ''),
    );
    expect(outcome).toMatchObject({ rows: 12, decided: 10 });
    expect(outcome.tally.summary()).toEqual({
      counts: { approve: 2, review: 5, decline: 3 },
      flips: EXPECTED_FLIPS,
    });
  });

  it('reproduces the batch’s own decisions exactly with the policy that made them', async () => {
    const sample = await loadPolicy(SAMPLE_POLICY);
    const texts = await resultTexts(BATCH, sample, 'excel');
    const out = sink();

    const outcome = await redecide(filesOf(texts, 13), sample, out);

    expect(outcome.tally.flips()).toEqual([]);
    expect(outcome.layout).toMatchObject({
      dialect: 'excel',
      decided: true,
      customerHeaders: CUSTOMER_COLUMNS,
    });
    // Row 2's decision in the summary (band, limit with a decimal comma) is the one decided again.
    const summaryRow2 = texts.summary.split('\r\n')[2]?.split(';') ?? [];
    const decisionsRow2 = out.text().split('\r\n')[2]?.split(';') ?? [];
    expect(out.text().startsWith(UTF8_BOM)).toBe(true);
    expect(decisionsRow2.slice(2, 6)).toEqual(summaryRow2.slice(20, 24));
    expect(decisionsRow2[5]).toBe('3500,00');
  });

  it('reads a batch screened without a policy as previous decisions none', async () => {
    const texts = await resultTexts(BATCH, null);
    const out = sink();

    const outcome = await redecide(filesOf(texts), await loadPolicy(SAMPLE_POLICY), out);

    expect(outcome.layout.decided).toBe(false);
    expect(outcome.tally.previousRows()).toEqual(['none']);
    expect(outcome.tally.summary().flips.map(({ from, to, rows }) => ({ from, to, rows }))).toEqual([
      { from: 'none', to: 'review', rows: 5 },
      { from: 'none', to: 'approve', rows: 4 },
      { from: 'none', to: 'decline', rows: 1 },
    ]);
  });

  it('refuses files that are not of the same batch, naming the line', async () => {
    const sample = await loadPolicy(SAMPLE_POLICY);
    const texts = await resultTexts(BATCH, sample);
    const lines = texts.reports.trimEnd().split('\n');
    const swapped = [lines[1], lines[0], ...lines.slice(2)].join('\n');
    const short = lines.slice(0, -1).join('\n');
    const long = `${texts.reports}${lines[0]}\n`;

    await expect(redecide(filesOf({ ...texts, reports: swapped }), sample, sink())).rejects.toThrow(
      /^reports\.jsonl line 1 is document \*{3}\.\d{3}\.\d{3}-\*{2} where summary\.csv row 1 is \*{3}\.\d{3}\.\d{3}-\*{2}: the two files are not of the same batch$/,
    );
    await expect(redecide(filesOf({ ...texts, reports: short }), sample, sink())).rejects.toThrow(
      /summary\.csv row 12 has a report, but reports\.jsonl ends after 8 lines/,
    );
    await expect(redecide(filesOf({ ...texts, reports: long }), sample, sink())).rejects.toThrow(
      /reports\.jsonl has more lines than summary\.csv has rows with a report \(9\)/,
    );
    await expect(redecide(filesOf({ ...texts, reports: '{"a":1}\n' }), sample, sink())).rejects.toThrow(
      'reports.jsonl line 1: not a normalised report',
    );
  });
});

describe('the customer columns of a summary', () => {
  it('takes off the input_ prefixes the summary added to names it uses itself', () => {
    const own = ['row', 'document', 'name', 'score', 'decision'];

    expect(customerHeaders(['customer_id', 'input_name', 'input_Score', 'input_input_name'], own)).toEqual([
      'customer_id',
      'name',
      'Score',
      'input_name',
    ]);
    expect(customerHeaders(['input_segment', 'input_decision'], ['row'])).toEqual([
      'input_segment',
      'input_decision',
    ]);
  });
});

describe('the flip matrix', () => {
  const decision = (value: 'approve' | 'review' | 'decline', ...codes: string[]): Decision => ({
    decision: value,
    reasons: codes.map((code) => ({ code, text: code })),
    risk_band: null,
    credit_limit: null,
    detail: null,
    trace: [],
  });

  it('names the reasons gained for a worse decision and those lost for a better one', () => {
    const tally = new FlipTally(true);
    tally.add('approve', decision('decline', 'A', 'B'), ['A']);
    tally.add('approve', decision('decline', 'B'), []);
    tally.add('decline', decision('approve'), ['B', 'C']);
    tally.add('review', decision('decline', 'X'), ['X']);

    expect(tally.flips()).toEqual([
      { from: 'approve', to: 'decline', rows: 2, reasons: [{ code: 'B', rows: 2 }] },
      { from: 'review', to: 'decline', rows: 1, reasons: [{ code: 'X', rows: 1 }] },
      {
        from: 'decline',
        to: 'approve',
        rows: 1,
        reasons: [
          { code: 'B', rows: 1 },
          { code: 'C', rows: 1 },
        ],
      },
    ]);
  });
});

describe('credit-screen decide', () => {
  it('writes decisions.csv beside the results, privately, and prints the flip matrix, with no request made', async () => {
    const directory = await resultsFolder();
    const policy = await stricterPolicy(directory);
    const sha256 = createHash('sha256')
      .update(await readFile(policy))
      .digest('hex');
    // Every network connection and child process the command opens is written down: there must be none. (tsx's
    // own pipe to its cache server and the esbuild it runs to compile the CLI are how any command starts; the
    // launcher starts decide again with a larger young generation; the ZEN processes it forks are where the policy
    // is evaluated, on this machine.)
    const watch = join(directory, 'watch.cjs');
    const seen = join(directory, 'seen.log');
    await writeFile(
      watch,
      `const fs = require('node:fs'); const net = require('node:net'); const cp = require('node:child_process');
       const note = (what) => fs.appendFileSync(${JSON.stringify(seen)}, what + '\\n');
       const connect = net.Socket.prototype.connect;
       net.Socket.prototype.connect = function (...args) {
         const target = Array.isArray(args[0]) ? args[0][0] : args[0];
         if (typeof target !== 'object' || target === null || target.path === undefined) note('connect ' + JSON.stringify(target));
         return connect.apply(this, args);
       };
       for (const name of ['spawn', 'execFile', 'fork']) {
         const original = cp[name];
         cp[name] = function (...args) {
           const launcher = args[0] === process.execPath && String(args[1]).includes('bin/credit-screen.mjs');
           if (!launcher && !['/esbuild', '/zen-evaluator.mjs'].some((end) => String(args[0]).endsWith(end))) note(name + ' ' + args[0]);
           return original.apply(this, args);
         };
       }`,
    );

    const result = await runCli(['decide', directory, '--policy', policy], {
      cwd: directory,
      env: { NODE_OPTIONS: `--require ${watch}` },
    });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        `decisions: ${join(directory, 'decisions.csv')}`,
        `decided 10 of 12 rows with mais-restritiva.json (sha256 ${sha256.slice(0, 12)}), 0 bureau requests; 2 rows without a report have no decision`,
        `previously decided by pessoa-fisica.json (sha256 ${'f'.repeat(12)})`,
        '',
        'previous \\ new  approve   review  decline    total',
        'approve               1        3        0        4',
        'review                1        2        2        5',
        'decline               0        0        1        1',
        'total                 2        5        3       10',
        '',
        'changed: 6 of 10 decisions (60.0 %)',
        '  approve → review  3  SCORE_400_A_599 (3)',
        '  review → decline  2  PENDENCIAS_ACIMA_DE_25PCT (1), SCORE_ABAIXO_DE_400 (1)',
        '  review → approve  1  no longer: MUITAS_CONSULTAS (1)',
        '',
      ].join('\n'),
    );
    expect((await stat(join(directory, 'decisions.csv'))).mode & 0o777).toBe(0o600);
    const decisions = (await readFile(join(directory, 'decisions.csv'), 'utf8')).split('\r\n');
    expect(decisions[1]).toMatch(/^1,\d{11},approve,,A,10500\.00,approve$/);
    expect(decisions[7]).toBe('7,123,,,,,');
    expect(existsSync(seen)).toBe(false);
    expect(existsSync(join(directory, 'emulator-stats.json'))).toBe(false);
    expect(existsSync(join(directory, '.credit-screen'))).toBe(false);
  }, 60_000);

  it('prints only {counts, flips} with --json, and writes where --out says', async () => {
    const directory = await resultsFolder('excel');
    const out = join(directory, 'novas', 'decisoes');

    const result = await runCli([
      'decide',
      directory,
      '--policy',
      await stricterPolicy(directory),
      '--out',
      out,
      '--json',
    ]);

    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      counts: { approve: 2, review: 5, decline: 3 },
      flips: EXPECTED_FLIPS,
    });
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect((await readFile(join(out, 'decisions.csv'), 'utf8')).startsWith(`${UTF8_BOM}row;document;`)).toBe(
      true,
    );
    expect(existsSync(join(directory, 'decisions.csv'))).toBe(false);
  }, 60_000);

  it('decides a batch of the local state by its id, without calling the bureau', async () => {
    const folder = await resultsFolder();
    const state = await mkdtemp(join(tmpdir(), 'credit-screen-decide-state-'));
    const batchId = '0123456789abcdef01234567';
    // What a finished batch leaves in the state's copy of the bucket: its result files under results/<batchId>/.
    const objects = join(state, 's3', 'results', batchId);
    await mkdir(objects, { recursive: true });
    for (const name of ['summary.csv', 'reports.jsonl', 'manifest.json'])
      await writeFile(join(objects, name), await readFile(join(folder, name)));
    const out = join(state, 'decididas');

    const result = await runCli(
      ['decide', batchId, '--state', state, '--policy', await stricterPolicy(folder), '--out', out, '--json'],
      { cwd: folder },
    );

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      counts: { approve: 2, review: 5, decline: 3 },
      flips: EXPECTED_FLIPS,
    });
    expect((await readFile(join(out, 'decisions.csv'), 'utf8')).split('\r\n')).toHaveLength(14);
    expect(existsSync(join(folder, 'emulator-stats.json'))).toBe(false);
  }, 120_000);

  it.each([
    ['a folder that is not there', async () => ['/nonexistent/results'], /: no such results folder$/],
    [
      'a folder without a summary',
      async () => [await mkdtemp(join(tmpdir(), 'credit-screen-decide-'))],
      /: no summary\.csv here \(not a results folder\)$/,
    ],
    [
      'a broken policy',
      async () => {
        const directory = await resultsFolder();
        await writeFile(join(directory, 'quebrada.json'), '{ nodes: ');
        return [directory, join(directory, 'quebrada.json')];
      },
      /^--policy .*quebrada\.json: .*not JSON/,
    ],
    [
      'reports of another batch',
      async () => {
        const directory = await resultsFolder();
        const reports = (await readFile(join(directory, 'reports.jsonl'), 'utf8')).split('\n');
        await writeFile(join(directory, 'reports.jsonl'), reports.slice(1).join('\n'));
        return [directory];
      },
      /: reports\.jsonl line 1 is document \*{3}\.\d{3}\.\d{3}-\*{2} where summary\.csv row 1 is \*{3}\.\d{3}\.\d{3}-\*{2}: the two files are not of the same batch$/,
    ],
    [
      'a summary that is not one',
      async () => {
        const directory = await resultsFolder();
        await writeFile(join(directory, 'summary.csv'), 'a,b\r\n1,2\r\n');
        return [directory];
      },
      /: summary\.csv: missing columns: row, document, /,
    ],
    [
      'a batch id without a local state',
      async () => ['0123456789abcdef01234567', undefined, ['--state', join(tmpdir(), 'no-such-state-dir')]],
      /^0123456789abcdef01234567: no such results folder, and no local state .*no-such-state-dir/,
    ],
  ] as const)(
    'refuses %s in one line, exit 2, leaving no decisions.csv',
    async (_, arrange, said) => {
      const [target, policy, extra] = (await arrange()) as [string, string?, string[]?];

      const result = await runCli(['decide', target, '--policy', policy ?? SAMPLE_POLICY, ...(extra ?? [])]);

      expect(result.code).toBe(2);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]?.replace(/^credit-screen: /, '')).toMatch(said);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      if (existsSync(target)) {
        expect((await readdir(target)).filter((name) => name.includes('decisions'))).toEqual([]);
      }
    },
    60_000,
  );

  it('requires --policy', async () => {
    const result = await runCli(['decide', await resultsFolder()]);

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/required option '--policy <file>' not specified/);
  }, 60_000);
});
