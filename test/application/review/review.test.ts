import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../../src/adapters/memory/memory-logger.ts';
import { ReviewRefusal } from '../../../src/application/review/decided-rows.ts';
import { exportDecisions } from '../../../src/application/review/export-decisions.ts';
import { recordOverride } from '../../../src/application/review/record-override.ts';
import { reviewQueue } from '../../../src/application/review/review-queue.ts';
import { policyKey } from '../../../src/contract/index.ts';
import { maskDocument } from '../../../src/domain/documents/index.ts';
import type { BureauGateway } from '../../../src/domain/ports/index.ts';
import {
  DECISION_COLUMNS,
  FINAL_DECISION_COLUMNS,
  SUMMARY_COLUMNS,
} from '../../../src/domain/summary/index.ts';
import { distinctDocuments } from '../../factories/customer-lists.ts';
import { type MemoryPipeline, startMemoryPipeline } from '../../factories/memory-pipeline.ts';
import { parseSummary } from '../../factories/pipeline.ts';
import { screenListOn } from '../../factories/screen-list.ts';

let test: MemoryPipeline;
let bureau: BureauGateway;
beforeAll(async () => {
  test = await startMemoryPipeline();
  bureau = test.bureau;
  test.objects.put(policyKey('pessoa-fisica.json'), readFileSync('samples/policies/pessoa-fisica.json'));
}, 60_000);
afterAll(async () => {
  await test?.stop();
});

const deps = () => ({
  ...test.adapters,
  logger: new MemoryLogger(),
  now: () => new Date('2026-11-25T14:30:00Z'),
});

/** A decided batch of people asking for R$ 20.000 (many go to review: pending debts against the amount asked). */
async function decidedBatch(seed: string, count = 40) {
  const documents = distinctDocuments(count * 3, seed)
    .filter((document) => document.length === 11)
    .slice(0, count);
  const rows = [...documents, documents[0] as string, 'not-a-document'];
  const csv = `cpf,cliente\n${rows.map((cell, index) => `${cell},C${index + 1}`).join('\n')}\n`;
  return screenListOn(test, bureau, csv, { policy: 'pessoa-fisica.json' });
}

describe('the review queue, overrides and the exported final decisions', () => {
  it('lists each row the policy sent to review once, masked, with its reasons and the customer’s columns', async () => {
    const { batchId, summary } = await decidedBatch('review queue');

    const { items, batches } = await reviewQueue({ batchId }, deps());

    const inReview = summary.filter((line) => line.decision === 'review' && line.status !== 'duplicate');
    expect(inReview.length).toBeGreaterThan(0);
    expect(batches).toBe(1);
    expect(items.map((item) => item.row)).toEqual(inReview.map((line) => Number(line.row)));
    const first = items[0];
    const line = inReview[0];
    expect(first?.document).toBe(maskDocument(line?.document ?? ''));
    expect(first?.customer).toEqual({ cliente: line?.cliente });
    expect(first?.reasons.map((reason) => reason.code).join(' | ')).toBe(
      (line?.decision_reasons ?? '')
        .split(' | ')
        .map((cell) => cell.split(': ')[0])
        .join(' | '),
    );
  });

  it('records an override beside the batch, announces it, and takes the row off the queue', async () => {
    const { batchId } = await decidedBatch('one override');
    const [waiting] = (await reviewQueue({ batchId }, deps())).items;
    const before = test.events.events.length;

    const recorded = await recordOverride(
      { batchId, row: waiting?.row ?? 0 },
      {
        decision: 'approve',
        creditLimit: 7500,
        reason: 'Renda comprovada por holerite',
        by: 'ana@credora.com.br',
      },
      deps(),
    );

    expect(recorded).toEqual({
      batchId,
      row: waiting?.row,
      decision: 'approve',
      credit_limit: 7500,
      reason: 'Renda comprovada por holerite',
      by: 'ana@credora.com.br',
      at: '2026-11-25T14:30:00.000Z',
      previous: 'review',
    });
    expect(test.events.events.slice(before)).toEqual([
      {
        detailType: 'OverrideRecorded',
        detail: {
          batchId,
          row: waiting?.row,
          decision: 'approve',
          previousDecision: 'review',
          creditLimit: 7500,
          by: 'ana@credora.com.br',
          at: '2026-11-25T14:30:00.000Z',
          policy: 'pessoa-fisica.json',
        },
      },
    ]);
    const after = (await reviewQueue({ batchId }, deps())).items.map((item) => item.row);
    expect(after).not.toContain(waiting?.row);
  });

  it('keeps a batch’s rows in review between requests, and still drops a row decided since', async () => {
    const { batchId } = await decidedBatch('review cache', 20);
    const cache = new Map();
    const first = (await reviewQueue({ batchId }, { ...deps(), cache })).items;
    let summaryReads = 0;
    const objects = {
      ...test.adapters.objects,
      readTextIfExists: async (key: string) => {
        summaryReads++;
        return test.adapters.objects.readTextIfExists(key);
      },
      read: (key: string) => {
        summaryReads++;
        return test.adapters.objects.read(key);
      },
    };
    await recordOverride(
      { batchId, row: first[0]?.row ?? 1 },
      { decision: 'decline', creditLimit: null, reason: 'Renda não comprovada', by: 'ana@credora.com.br' },
      deps(),
    );

    const again = (await reviewQueue({ batchId }, { ...deps(), objects, cache })).items;

    expect(first.length).toBeGreaterThan(1);
    expect(summaryReads).toBe(0);
    expect(again.map((item) => item.row)).toEqual(first.slice(1).map((item) => item.row));
  });

  it('reads a batch’s rows in review again after five minutes: an erasure made elsewhere shows within that', async () => {
    const { batchId } = await decidedBatch('review cache expiry', 20);
    const cache = new Map();
    let clock = Date.parse('2026-11-29T10:00:00Z');
    let summaryReads = 0;
    const objects = {
      ...test.adapters.objects,
      readTextIfExists: (key: string) => test.adapters.objects.readTextIfExists(key),
      read: (key: string) => {
        if (key.endsWith('review.jsonl')) summaryReads++;
        return test.adapters.objects.read(key);
      },
    };
    const read = () => reviewQueue({ batchId }, { ...deps(), objects, cache, nowMs: () => clock });

    await read();
    clock += 4 * 60_000;
    await read();
    const withinFiveMinutes = summaryReads;
    clock += 2 * 60_000;
    await read();

    expect(withinFiveMinutes).toBe(1);
    expect(summaryReads).toBe(2);
  });

  it('lists a batch’s rows in review from review.jsonl, not its summary; from the summary for older results', async () => {
    const { batchId } = await decidedBatch('review index', 20);
    const read: string[] = [];
    const objects = {
      ...test.adapters.objects,
      readTextIfExists: async (key: string) => {
        read.push(key.slice(key.lastIndexOf('/') + 1));
        if (key.endsWith('manifest.json') && olderResults) {
          const manifest = JSON.parse((await test.adapters.objects.readTextIfExists(key)) ?? '{}');
          delete manifest.files.review;
          return JSON.stringify(manifest);
        }
        return test.adapters.objects.readTextIfExists(key);
      },
      read: (key: string) => {
        read.push(key.slice(key.lastIndexOf('/') + 1));
        return test.adapters.objects.read(key);
      },
    };
    let olderResults = false;

    const fromIndex = (await reviewQueue({ batchId }, { ...deps(), objects })).items;
    const indexReads = [...read];
    read.length = 0;
    olderResults = true;
    const fromSummary = (await reviewQueue({ batchId }, { ...deps(), objects })).items;

    expect(fromIndex.length).toBeGreaterThan(1);
    expect(indexReads).toEqual(['manifest.json', 'review.jsonl']);
    expect(read).toContain('summary.csv');
    expect(fromSummary).toEqual(fromIndex);
  });

  it('exports the final decisions into summary.csv: the person’s where overridden, the policy’s elsewhere, the policy’s own untouched', async () => {
    const { batchId, summary, reports, manifest } = await decidedBatch('exported');
    const [waiting] = (await reviewQueue({ batchId }, deps())).items;
    const row = waiting?.row ?? 0;
    await recordOverride(
      { batchId, row },
      { decision: 'decline', creditLimit: null, reason: 'Fraude confirmada', by: 'Bruno Lima' },
      deps(),
    );
    const reportsBefore = await test.readText(manifest?.files?.reports ?? '');

    const exported = await exportDecisions(batchId, deps());
    const again = await exportDecisions(batchId, deps());

    const text = await test.readText(manifest?.files?.summary ?? '');
    const header = text.split('\r\n')[0]?.split(',');
    expect(header).toEqual([...SUMMARY_COLUMNS, ...DECISION_COLUMNS, ...FINAL_DECISION_COLUMNS, 'cliente']);
    const final = parseSummary(text);
    expect(final).toHaveLength(summary.length);
    const overridden = final.find((line) => Number(line.row) === row);
    expect(overridden).toMatchObject({
      decision: 'review',
      final_decision: 'decline',
      final_credit_limit: '0.00',
      decided_by: 'Bruno Lima',
    });
    expect(overridden?.decided_at).toBe('2026-11-25T14:30:00.000Z');
    const duplicate = final.find((line) => line.status === 'duplicate');
    const original = final[0];
    expect(duplicate?.final_decision).toBe(original?.final_decision);
    for (const line of final.filter(
      (candidate) => Number(candidate.row) !== row && candidate.status === 'screened',
    ))
      expect(line).toMatchObject({
        final_decision: line.decision,
        final_credit_limit: line.credit_limit,
        decided_by: 'policy:pessoa-fisica.json',
      });
    expect(final.find((line) => line.status === 'invalid_document')?.final_decision).toBe('');
    // The policy's decisions and every other cell are as they were; reports.jsonl is not rewritten.
    for (const [index, line] of final.entries()) {
      const { final_decision: _f, final_credit_limit: _l, decided_by: _b, decided_at: _a, ...rest } = line;
      expect(rest).toEqual(summary[index]);
    }
    expect(await test.readText(manifest?.files?.reports ?? '')).toBe(reportsBefore);
    expect(reports.length).toBeGreaterThan(0);
    expect(exported).toMatchObject({ rows: summary.length, overridden: 1 });
    expect(again).toEqual(exported);
  });

  it('keeps every override and exports the latest: a reviewer may correct an earlier one', async () => {
    const { batchId, manifest } = await decidedBatch('corrected', 12);
    const row = (await reviewQueue({ batchId }, deps())).items[0]?.row ?? 1;
    const at = (iso: string) => ({ ...deps(), now: () => new Date(iso) });
    await recordOverride(
      { batchId, row },
      { decision: 'approve', creditLimit: 1000, reason: 'a', by: 'x' },
      at('2026-11-25T10:00:00Z'),
    );
    await recordOverride(
      { batchId, row },
      { decision: 'decline', creditLimit: null, reason: 'b', by: 'y' },
      at('2026-11-25T11:00:00Z'),
    );

    await exportDecisions(batchId, deps());

    expect((await test.adapters.overrides.overridesOf(batchId)).map((override) => override.decision)).toEqual(
      ['approve', 'decline'],
    );
    const line = parseSummary(await test.readText(manifest?.files?.summary ?? '')).find(
      (candidate) => Number(candidate.row) === row,
    );
    expect(line).toMatchObject({ final_decision: 'decline', decided_by: 'y' });
  });

  it.each([
    ['an unknown batch', { batchId: 'nao-existe', row: 1 }, {}, 'batch nao-existe not found'],
    ['an unknown row', { row: 999 }, {}, 'has no row 999'],
    ['a row without a decision', { row: 'invalid' }, {}, 'has no decision (invalid_document'],
    ['a duplicate', { row: 'duplicate' }, {}, 'repeats row 1 of the list: override row 1'],
    ['no --by', { row: 1 }, { by: ' ' }, '--by must say who decides'],
    ['no --reason', { row: 1 }, { reason: '' }, '--reason must say why'],
    [
      'a decision outside approve and decline',
      { row: 1 },
      { decision: 'review' },
      '--decision must be approve or decline',
    ],
    ['a limit on a decline', { row: 1 }, { decision: 'decline', creditLimit: 100 }, 'a decline has no limit'],
    ['a line break in --reason', { row: 1 }, { reason: 'ok\nforged' }, '--reason holds a line break'],
    ['a control character in --by', { row: 1 }, { by: 'Ana\u0007' }, '--by holds a control character'],
  ])('refuses an override of %s in one line, recording nothing', async (_, target, changes, said) => {
    const { batchId, summary } = await decidedBatch(`refused ${_}`, 6);
    const rowOf = (value: unknown) =>
      value === 'invalid'
        ? Number(summary.find((line) => line.status === 'invalid_document')?.row)
        : value === 'duplicate'
          ? Number(summary.find((line) => line.status === 'duplicate')?.row)
          : (value as number);
    const request = { decision: 'approve', creditLimit: null, reason: 'motivo', by: 'quem', ...changes };

    const attempt = recordOverride(
      { batchId: 'batchId' in target ? (target.batchId as string) : batchId, row: rowOf(target.row) },
      request,
      deps(),
    );

    await expect(attempt).rejects.toThrow(ReviewRefusal);
    await expect(attempt).rejects.toThrow(said);
    expect(await test.adapters.overrides.overridesOf(batchId)).toEqual([]);
  });

  it('refuses the queue and the export of a batch screened without a policy', async () => {
    const csv = `cpf\n${distinctDocuments(2, 'no policy review').join('\n')}\n`;
    const { batchId } = await screenListOn(test, bureau, csv);

    await expect(reviewQueue({ batchId }, deps())).rejects.toThrow('screened without a policy');
    await expect(exportDecisions(batchId, deps())).rejects.toThrow('screened without a policy');
  });
});
