import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../../src/adapters/memory/memory-logger.ts';
import { ReviewRefusal } from '../../../src/application/review/decided-rows.ts';
import { recordOverride } from '../../../src/application/review/record-override.ts';
import { assignReviewRow, caseOf, commentOnReviewRow } from '../../../src/application/review/review-cases.ts';
import { reviewQueue } from '../../../src/application/review/review-queue.ts';
import { policyKey } from '../../../src/contract/index.ts';
import { distinctDocuments } from '../../factories/customer-lists.ts';
import { type MemoryPipeline, startMemoryPipeline } from '../../factories/memory-pipeline.ts';
import { screenListOn } from '../../factories/screen-list.ts';

let test: MemoryPipeline;
beforeAll(async () => {
  test = await startMemoryPipeline();
  test.objects.put(policyKey('pessoa-fisica.json'), readFileSync('samples/policies/pessoa-fisica.json'));
}, 60_000);
afterAll(async () => {
  await test?.stop();
});

const ana = { subject: 'sub-ana', name: 'ana@credora.com.br' };
const bia = { subject: 'sub-bia', name: 'bia@credora.com.br' };
const marta = { subject: 'sub-marta', name: 'marta@credora.com.br' };
const asAnalyst = (person: typeof ana) => ({ person, assignsOthers: false });
const asManager = { person: marta, assignsOthers: true };

const deps = (now = '2026-11-29T14:30:00Z') => ({
  ...test.adapters,
  logger: new MemoryLogger(),
  sla: { defaultHours: 24, hoursByPolicy: { 'pessoa-fisica.json': 8 } },
  now: () => new Date(now),
});

/** A decided batch of people asking for R$ 20.000 (many go to review), and its first row in review. */
async function rowInReview(seed: string) {
  const documents = distinctDocuments(60, seed)
    .filter((document) => document.length === 11)
    .slice(0, 20);
  const csv = `cpf,cliente,valor_solicitado\n${documents.map((cell, index) => `${cell},C${index + 1},20000`).join('\n')}\n`;
  const { batchId } = await screenListOn(test, test.bureau, csv, { policy: 'pessoa-fisica.json' });
  const { items } = await reviewQueue({ batchId }, deps());
  const first = items[0];
  if (first === undefined) throw new Error('the sample policy sent no row to review');
  return { batchId, row: first.row, items };
}

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof ReviewRefusal ? [error.kind, error.message] : error),
  );

describe('review cases: who works a row in review, and what they wrote', () => {
  it('lists each row in its policy’s queue, due by its queue’s hours after the batch completed', async () => {
    const { batchId, items } = await rowInReview('queue and due date');

    const batch = await test.store.getBatch(batchId);
    const due = new Date(Date.parse(batch?.completedAt as string) + 8 * 3_600_000).toISOString();
    expect(items.every((item) => item.queue === 'pessoa-fisica.json' && item.dueAt === due)).toBe(true);
    expect(items.every((item) => item.assignee === null && item.comments === 0)).toBe(true);
  });

  it('gives a free row to the first analyst who takes it, and refuses the second', async () => {
    const { batchId, row } = await rowInReview('two analysts take one row');

    const taken = await assignReviewRow(
      { batchId, row },
      { to: ana, expected: null },
      asAnalyst(ana),
      deps(),
    );
    const second = await refusalOf(
      assignReviewRow({ batchId, row }, { to: bia, expected: null }, asAnalyst(bia), deps()),
    );

    expect(taken).toMatchObject({ assignee: ana, assignedAt: '2026-11-29T14:30:00.000Z' });
    expect(second).toEqual([
      'refused',
      `row ${row} was assigned by someone else meanwhile: reload the queue`,
    ]);
    const [listed] = (await reviewQueue({ batchId }, deps())).items.filter((item) => item.row === row);
    expect(listed?.assignee).toEqual(ana);
  });

  it('lets an analyst take and give back only for themselves; a manager gives rows to anyone', async () => {
    const { batchId, row } = await rowInReview('who may give a row');
    const key = { batchId, row };
    await assignReviewRow(key, { to: ana, expected: null }, asAnalyst(ana), deps());

    const giveToOther = await refusalOf(
      assignReviewRow(key, { to: bia, expected: ana.subject }, asAnalyst(ana), deps()),
    );
    const takeFromOther = await refusalOf(
      assignReviewRow(key, { to: bia, expected: ana.subject }, asAnalyst(bia), deps()),
    );
    const byManager = await assignReviewRow(key, { to: bia, expected: ana.subject }, asManager, deps());
    const givenBack = await assignReviewRow(key, { to: null, expected: bia.subject }, asAnalyst(bia), deps());

    expect(giveToOther).toEqual(['forbidden', 'only a manager gives a row to someone else']);
    expect(takeFromOther).toEqual([
      'forbidden',
      'the row is someone else’s: only a manager takes it from them',
    ]);
    expect(byManager.assignee).toEqual(bia);
    expect(givenBack.assignee).toBeNull();
  });

  it('keeps comments signed by their authors beside the override, which stays the person’s decision', async () => {
    const { batchId, row } = await rowInReview('comments and override');
    const key = { batchId, row };

    await commentOnReviewRow(key, 'Pedi o holerite ao cliente', ana, deps('2026-11-29T14:00:00Z'));
    await commentOnReviewRow(key, 'Holerite recebido:\nrenda confirmada', ana, deps('2026-11-29T15:00:00Z'));
    await recordOverride(
      key,
      { decision: 'approve', creditLimit: 8000, reason: 'Renda comprovada', by: ana.name },
      deps(),
    );

    expect((await caseOf(key, deps())).comments).toEqual([
      { by: ana, at: '2026-11-29T14:00:00.000Z', text: 'Pedi o holerite ao cliente' },
      { by: ana, at: '2026-11-29T15:00:00.000Z', text: 'Holerite recebido:\nrenda confirmada' },
    ]);
    expect((await reviewQueue({ batchId }, deps())).items.some((item) => item.row === row)).toBe(false);
    // Decided, the row is no one's to take any more.
    await expect(
      refusalOf(assignReviewRow(key, { to: bia, expected: null }, asAnalyst(bia), deps())),
    ).resolves.toEqual(['refused', `row ${row} was decided by a person already`]);
  });

  it('refuses a case for a row the policy did not send to review', async () => {
    const { batchId, items } = await rowInReview('not in review');
    const notInReview = [...Array(20).keys()]
      .map((index) => index + 1)
      .find((row) => !items.some((item) => item.row === row));

    const refused = await refusalOf(
      commentOnReviewRow({ batchId, row: notInReview as number }, 'nota', ana, deps()),
    );

    expect(refused).toEqual(['missing', `row ${notInReview} of batch ${batchId} was not sent to review`]);
  });
});
