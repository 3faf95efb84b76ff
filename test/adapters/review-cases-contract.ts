import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ReviewCases } from '../../src/domain/ports/index.ts';
import { type CaseComment, MAX_CASE_COMMENTS } from '../../src/domain/review/index.ts';

const ana = { subject: 'sub-ana', name: 'ana.souza@credora.com.br' };
const bruno = { subject: 'sub-bruno', name: 'bruno.lima@credora.com.br' };

const aComment = (text: string, at = '2026-11-29T10:00:00.000Z'): CaseComment => ({ by: ana, at, text });

/**
 * The rules every review-case store keeps, run against each implementation (in memory and DynamoDB): a row is taken
 * only from the assignee the person saw, comments are appended in order up to a bound, cases read back per batch.
 */
export function describeReviewCasesContract(name: string, open: () => Promise<ReviewCases>): void {
  describe(`${name}: the review cases contract`, () => {
    let cases: ReviewCases;
    let batchId: string;

    beforeEach(async () => {
      cases = await open();
      batchId = `batch-${randomUUID()}`;
    });

    it('reads back only the rows someone took or wrote about, in row order, exactly as written', async () => {
      await cases.addComment({ batchId, row: 7 }, aComment('Pedir comprovante de renda'));
      await cases.assign({ batchId, row: 2 }, bruno, null, '2026-11-29T09:00:00.000Z');
      await cases.assign({ batchId: `other-${batchId}`, row: 1 }, ana, null, '2026-11-29T09:00:00.000Z');

      expect(await cases.casesOf(batchId)).toEqual([
        { batchId, row: 2, assignee: bruno, assignedAt: '2026-11-29T09:00:00.000Z', comments: [] },
        {
          batchId,
          row: 7,
          assignee: null,
          assignedAt: null,
          comments: [aComment('Pedir comprovante de renda')],
        },
      ]);
    });

    it('gives a row to one of two people who take it at once, and to nobody else', async () => {
      const key = { batchId, row: 3 };

      const [byAna, byBruno] = await Promise.all([
        cases.assign(key, ana, null, '2026-11-29T09:00:00.000Z'),
        cases.assign(key, bruno, null, '2026-11-29T09:00:00.001Z'),
      ]);

      expect([byAna, byBruno].filter(Boolean)).toHaveLength(1);
      const [taken] = await cases.casesOf(batchId);
      expect(taken?.assignee).toEqual(byAna ? ana : bruno);
    });

    it('passes a row on or gives it back only from the assignee the person saw', async () => {
      const key = { batchId, row: 4 };
      await cases.assign(key, ana, null, '2026-11-29T09:00:00.000Z');

      const fromStale = await cases.assign(key, bruno, 'sub-someone-else', '2026-11-29T09:01:00.000Z');
      const passedOn = await cases.assign(key, bruno, ana.subject, '2026-11-29T09:02:00.000Z');
      const givenBack = await cases.assign(key, null, bruno.subject, '2026-11-29T09:03:00.000Z');
      const takenAgain = await cases.assign(key, ana, null, '2026-11-29T09:04:00.000Z');

      expect([fromStale, passedOn, givenBack, takenAgain]).toEqual([false, true, true, true]);
      expect(await cases.casesOf(batchId)).toMatchObject([
        { row: 4, assignee: ana, assignedAt: '2026-11-29T09:04:00.000Z' },
      ]);
    });

    it('keeps comments in the order written, beside the assignee, and refuses one past the bound', async () => {
      const key = { batchId, row: 5 };
      await cases.assign(key, ana, null, '2026-11-29T09:00:00.000Z');
      for (let index = 0; index < MAX_CASE_COMMENTS; index++)
        expect(await cases.addComment(key, aComment(`nota ${index}`))).toBe(true);

      const past = await cases.addComment(key, aComment('uma a mais'));

      expect(past).toBe(false);
      const [kept] = await cases.casesOf(batchId);
      expect(kept?.assignee).toEqual(ana);
      expect(kept?.comments).toHaveLength(MAX_CASE_COMMENTS);
      expect(kept?.comments[0]?.text).toBe('nota 0');
      expect(kept?.comments.at(-1)?.text).toBe(`nota ${MAX_CASE_COMMENTS - 1}`);
    });
  });
}
