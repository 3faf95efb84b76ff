import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCreditReport } from '../../emulator/report-generator.ts';
import { SAMPLE_FILES } from '../../scripts/generate-samples.ts';
import { openCustomerList } from '../../src/domain/intake/index.ts';
import { normaliseCreditReport, reportColumns } from '../../src/domain/report/index.ts';
import { chunked } from '../factories/byte-sources.ts';
import { screenFile, startTestPipeline, type TestPipeline } from '../factories/pipeline.ts';

let test: TestPipeline;
beforeAll(async () => {
  test = await startTestPipeline();
}, 60_000);
afterAll(async () => {
  await test?.stop();
});

/** What `check` says of every row of the sample: the expectation the pipeline's summary must meet. */
async function expectedRows(path: string) {
  const list = await openCustomerList(chunked(await readFile(path)));
  const rows = [];
  for await (const row of list.rows) rows.push(row);
  return rows;
}

describe('the pipeline on one machine, over the committed sample', () => {
  let first: Awaited<ReturnType<typeof screenFile>>;
  let chargesAfterFirst: Record<string, number>;

  beforeAll(async () => {
    first = await screenFile(test, SAMPLE_FILES.standard);
    chargesAfterFirst = { ...test.emulator.stats().chargesByDocument };
  }, 120_000);

  it('ends every input row in the summary, in input order, with the right final status', async () => {
    const rows = await expectedRows(SAMPLE_FILES.standard);
    expect(first.summary).toHaveLength(rows.length);
    first.summary.forEach((line, index) => {
      const row = rows[index];
      expect(Number(line.row)).toBe(row?.row);
      const expected =
        row?.status === 'valid' ? 'screened' : row?.status === 'duplicate' ? 'duplicate' : 'invalid_document';
      expect(line.status).toBe(expected);
      if (row?.status === 'invalid') {
        expect(line.status_detail).toBe(row.reason);
        expect(line.document).toBe(row.input);
      } else {
        expect(line.document).toBe(row?.document);
      }
      expect([line.customer_id, line.input_name, line.segment]).toEqual(row?.passThrough);
    });
  });

  it("shows each screened document's report figures exactly as the bureau gave them", () => {
    for (const line of first.summary.filter((candidate) => candidate.status === 'screened')) {
      const report = normaliseCreditReport(generateCreditReport(line.document as string, 'a'), {
        bureau: 'a',
        document: line.document as string,
        fetchedAt: line.screened_at as string,
      });
      const columns = reportColumns(report);
      expect(line.name).toBe(columns.name ?? '');
      expect(line.score).toBe(columns.score === null ? '' : String(columns.score));
      expect(line.protests_count).toBe(String(columns.protestsCount));
      expect(line.pending_debts_amount).toBe(
        columns.pendingDebtsCents === null ? '' : (columns.pendingDebtsCents / 100).toFixed(2),
      );
      // Bureau A gives no cheque total for a CPF: unknown stays empty, never 0.
      if (line.document_type === 'cpf') expect(line.bounced_cheques_amount).toBe('');
      expect(line.query_code).toBe(String(columns.queryCode));
    }
  });

  it('repeats the first occurrence on duplicates and names the row', () => {
    const byRow = new Map(first.summary.map((line) => [line.row, line]));
    for (const line of first.summary.filter((candidate) => candidate.status === 'duplicate')) {
      const target = /^row (\d+)$/.exec(line.status_detail ?? '')?.[1];
      const original = byRow.get(target);
      expect(original?.document).toBe(line.document);
      expect(line.score).toBe(original?.score);
      expect(line.query_code).toBe(original?.query_code);
    }
  });

  it('charges each unique valid document exactly once and never queries invalid rows or duplicates', () => {
    const stats = test.emulator.stats();
    const screened = first.summary
      .filter((line) => line.status === 'screened')
      .map((line) => line.document as string);
    expect(new Set(screened).size).toBe(300);
    expect(Object.keys(chargesAfterFirst).sort()).toEqual([...screened].sort());
    expect(Object.values(chargesAfterFirst).every((count) => count === 1)).toBe(true);
    expect(stats.byStatus).toEqual({ '200': stats.charged });
  });

  it('writes one normalised report per screened document and a manifest with the counts', () => {
    expect(first.reports).toHaveLength(300);
    expect(first.manifest).toMatchObject({
      status: 'completed',
      counts: { rows: 311, screened: 300, cached: 0, duplicate: 5, invalid_document: 6, failed: 0 },
      files: {
        summary: expect.stringMatching(/summary\.csv$/),
        reports: expect.stringMatching(/reports\.jsonl$/),
      },
      source: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
  });

  it('publishes exactly one BatchCompleted event for the batch', () => {
    const events = test.pipeline.events.events.filter(
      (event) => 'batchId' in event.detail && event.detail.batchId === first.batchId,
    );
    expect(events.map((event) => event.detailType)).toEqual(['BatchCompleted']);
    expect(events[0]?.detail).toMatchObject({ counts: first.manifest.counts });
  });

  it('reuses the stored reports for a second upload inside the freshness window, paying nothing', async () => {
    const requestsBefore = test.emulator.stats().requests;
    const second = await screenFile(test, SAMPLE_FILES.standard);
    expect(test.emulator.stats().requests).toBe(requestsBefore);
    expect(second.manifest.counts).toMatchObject({
      screened: 0,
      cached: 300,
      duplicate: 5,
      invalid_document: 6,
    });
    const cached = second.summary.filter((line) => line.status === 'cached');
    expect(cached[0]?.status_detail).toMatch(/^report of .* reused$/);
    const firstByRow = new Map(first.summary.map((line) => [line.row, line]));
    for (const line of cached) expect(line.score).toBe(firstByRow.get(line.row)?.score);
  }, 120_000);
});
