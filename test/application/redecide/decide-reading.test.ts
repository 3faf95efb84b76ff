import { describe, expect, it } from 'vitest';
import { loadZenCreditPolicy } from '../../../src/adapters/decision/zen-credit-policy.ts';
import { FlipTally } from '../../../src/application/redecide/flip-tally.ts';
import { duplicateTargets, redecide } from '../../../src/application/redecide/redecide.ts';
import { storedReport } from '../../../src/application/redecide/report-lines.ts';
import type { ResultFiles } from '../../../src/application/redecide/result-files.ts';
import { scanDuplicateCells } from '../../../src/application/redecide/summary-stream.ts';
import { type Decision, decisionFigures } from '../../../src/domain/decision/index.ts';
import type { NormalisedReport } from '../../../src/domain/report/index.ts';
import { ResultsFileError } from '../../../src/domain/summary/summary-csv-reader.ts';
import { personReport } from '../../factories/decision-reports.ts';
import { manifestFor } from '../../factories/summary-rows.ts';

const decision = (value: Decision['decision'], ...codes: string[]): Decision => ({
  decision: value,
  reasons: codes.map((code) => ({ code, text: `texto de ${code}` })),
  risk_band: 'C',
  credit_limit: null,
  detail: null,
  trace: [{ node: 'Regras', nodeId: 'regras', rule: 'r1', row: 1, description: null }],
});

/** A line of reports.jsonl as the finaliser writes it: the report, then the decision the batch gave it. */
const line = (report: NormalisedReport, given: Decision | null) =>
  JSON.stringify(given === null ? report : { ...report, decision: given });

const report = personReport({ score: 640, pendingDebts: [2, 1500] });

async function* chunksOf(text: string, size = 7): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text, 'utf8');
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}

describe('a line of reports.jsonl', () => {
  it('gives the report and, when asked, the reasons of the decision stored after it', () => {
    const stored = storedReport(line(report, decision('review', 'SCORE', 'PENDENCIA')), 1);

    expect(stored.report).toEqual(report);
    expect(decisionFigures(stored.report)).toEqual(decisionFigures(report));
    expect(stored.previousReasons.read()).toEqual(['SCORE', 'PENDENCIA']);
  });

  it('reads a line without a decision, or with one that is not its last key, whole', () => {
    const undecided = storedReport(line(report, null), 1);
    const decisionFirst = storedReport(JSON.stringify({ decision: decision('decline', 'X'), ...report }), 2);

    expect([undecided.report, undecided.previousReasons.read()]).toEqual([report, []]);
    expect(decisionFirst.report).toMatchObject(report);
    expect(decisionFirst.previousReasons.read()).toEqual(['X']);
  });

  it('is not misled by a "decision" key nested in the bureau’s raw data', () => {
    const nested = {
      ...report,
      pendingDebts: { ...report.pendingDebts, items: [{ raw: { x: 1, decision: { decision: 'approve' } } }] },
    } as unknown as NormalisedReport;

    const undecided = storedReport(line(nested, null), 1);
    const decided = storedReport(line(nested, decision('approve', 'OK')), 2);

    expect([undecided.report, undecided.previousReasons.read()]).toEqual([nested, []]);
    expect([decided.report, decided.previousReasons.read()]).toEqual([nested, ['OK']]);
  });

  it('refuses a line that is not JSON or not a report, naming it', () => {
    expect(() => storedReport('{"schemaVersion":1,', 7)).toThrow(
      new ResultsFileError('reports.jsonl line 7: not JSON'),
    );
    expect(() => storedReport('{"a":1,"decision":{"decision":"approve"}}', 8)).toThrow(
      new ResultsFileError('reports.jsonl line 8: not a normalised report'),
    );
  });

  it('says a broken stored decision when its reasons are asked for, naming the line', () => {
    const broken = `${line(report, null).slice(0, -1)},"decision":{"decision":"review","reasons":[}`;

    const stored = storedReport(broken, 9);

    expect(stored.report).toEqual(report);
    expect(() => stored.previousReasons.read()).toThrow(
      new ResultsFileError('reports.jsonl line 9: not JSON'),
    );
  });
});

describe('the flip matrix', () => {
  it('reads the previous reasons only for a row whose decision flipped', () => {
    const tally = new FlipTally(true);
    let reads = 0;
    const reasons = (codes: string[]) => () => {
      reads++;
      return codes;
    };

    tally.add('review', decision('review', 'A'), reasons(['A']));
    tally.add('approve', decision('approve'), reasons([]));
    tally.add('review', decision('decline', 'A', 'B'), reasons(['A']));

    expect(reads).toBe(1);
    expect(tally.flips()).toEqual([
      { from: 'review', to: 'decline', rows: 1, reasons: [{ code: 'B', rows: 1 }] },
    ]);
  });
});

describe('the rows duplicates repeat', () => {
  const header =
    'row,document,document_type,bureau,status,status_detail,charge_state,name,score,default_probability_pct,protests_count,protests_amount,pending_debts_count,pending_debts_amount,bounced_cheques_count,bounced_cheques_amount,stopped_cheques_count,query_code,report_pdf,screened_at,customer_id,nota\n';
  const figures = ',,,,,,,,,,,,,';

  it('are found in the summary’s text, with or without quotes, in either dialect', async () => {
    const summary = `${header}1,1,cpf,a,screened,,charged${figures},c1,\n2,1,cpf,a,duplicate,row 1,not_charged${figures},c2,\n3,1,cpf,a,"duplicate","row 1",not_charged${figures},c3,\r\n4;2;cpf;a;duplicate;row 12;not_charged`;

    const scanned = await scanDuplicateCells(chunksOf(summary));

    expect(scanned).toEqual({
      targets: new Map([
        [1, 2],
        [12, 1],
      ]),
      duplicates: 3,
    });
  });

  /** A policy that approves a score of 600 or more and declines the rest. */
  async function scorePolicy() {
    const policy = await loadZenCreditPolicy(
      'p.json',
      JSON.stringify({
        nodes: [
          { id: 'in', type: 'inputNode', name: 'Entrada', position: { x: 0, y: 0 } },
          {
            id: 'd',
            type: 'expressionNode',
            name: 'Decisão',
            position: { x: 0, y: 0 },
            content: {
              expressions: [{ id: 'e', key: 'decision', value: 'score >= 600 ? "approve" : "decline"' }],
            },
          },
          { id: 'out', type: 'outputNode', name: 'Saída', position: { x: 0, y: 0 } },
        ],
        edges: [
          { id: 'e1', sourceId: 'in', targetId: 'd', type: 'edge' },
          { id: 'e2', sourceId: 'd', targetId: 'out', type: 'edge' },
        ],
      }),
    );
    if (!policy.ok) throw new Error(policy.error);
    return policy.policy;
  }

  /** Results served in chunks of 7 bytes, with a manifest that counts the summary's rows by status. */
  function resultFiles(
    summary: string,
    reports: string,
    counts: { rows: number; screened: number; duplicate: number },
  ) {
    const files: ResultFiles = {
      where: 'memory',
      manifest: manifestFor([], {
        counts: { cached: 0, invalid_document: 0, failed: 0, cancelled: 0, not_queried: 0, ...counts },
        policy: null,
      }),
      defaultOut: '/nowhere',
      open: (file) => chunksOf(file === 'summary' ? summary : reports),
    };
    return files;
  }

  async function decisionLines(files: ResultFiles): Promise<string[]> {
    let written = '';
    await redecide(files, await scorePolicy(), {
      write: async (text) => {
        written += text;
      },
    });
    return written.trimEnd().split('\r\n').slice(1);
  }

  it('are not taken from a customer’s cells that look like a duplicate’s', async () => {
    // Row 3's customer wrote "duplicate" and "row 1" in two cells side by side: the text holds one more match than
    // the manifest counts duplicates, so the summary is parsed (else row 1's decision would be kept for a duplicate
    // that never comes); row 3 is decided on its own report.
    const low = { ...personReport({ score: 300 }), document: '52998224725' };
    const high = { ...personReport({ score: 900 }), document: '11144477735' };
    const summary = [
      header.replace('customer_id,nota', 'a,b'),
      `1,52998224725,cpf,a,screened,,charged${figures},x,y\n`,
      `2,52998224725,cpf,a,duplicate,row 1,not_charged${figures},x,y\n`,
      `3,11144477735,cpf,a,screened,,charged${figures},duplicate,row 1\n`,
    ].join('');
    const files = resultFiles(summary, `${line(low, null)}\n${line(high, null)}\n`, {
      rows: 3,
      screened: 2,
      duplicate: 1,
    });

    expect(await duplicateTargets(files)).toEqual(new Map([[1, 1]]));
    expect(await decisionLines(files)).toEqual([
      '1,52998224725,decline,,,,',
      '2,52998224725,decline,,,,',
      '3,11144477735,approve,,,,',
    ]);
  });

  it('repeat a decision made batches of rows earlier, each report paired with its row', async () => {
    // 80 rows with a report (score 300 or 900 by row), then 20 duplicates of rows up to 80 rows back: rows are
    // decided 32 at a time, so most originals were decided in an earlier batch.
    const document = (row: number) => String(10_000_000_000 + row);
    const scoreOf = (row: number) => (row % 3 === 0 ? 900 : 300);
    const originals = Array.from({ length: 80 }, (_, index) => index + 1);
    const duplicates = Array.from({ length: 20 }, (_, index) => 1 + ((index * 37) % 80));
    const summary =
      header +
      originals
        .map((row) => `${row},${document(row)},cpf,a,screened,,charged${figures},c${row},\n`)
        .join('') +
      duplicates
        .map(
          (of, index) => `${81 + index},${document(of)},cpf,a,duplicate,row ${of},not_charged${figures},d,\n`,
        )
        .join('');
    const reports = originals
      .map((row) => `${line({ ...personReport({ score: scoreOf(row) }), document: document(row) }, null)}\n`)
      .join('');
    const files = resultFiles(summary, reports, { rows: 100, screened: 80, duplicate: 20 });
    const decisionOf = (row: number) => (scoreOf(row) >= 600 ? 'approve' : 'decline');

    const lines = await decisionLines(files);

    expect(lines).toEqual([
      ...originals.map((row) => `${row},${document(row)},${decisionOf(row)},,,,`),
      ...duplicates.map((of, index) => `${81 + index},${document(of)},${decisionOf(of)},,,,`),
    ]);
  });
});
