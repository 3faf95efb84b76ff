import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { NewRow } from '../../src/domain/batch/index.ts';
import type {
  BatchStore,
  DecisionOverrides,
  DocumentPurchases,
  SubjectErasureStore,
} from '../../src/domain/ports/index.ts';
import { queuedRows } from '../factories/batch-records.ts';
import { emulatedReport } from '../factories/normalised-reports.ts';

/** The erasure store under test, with the stores it erases from (to arrange what it finds). */
export interface ErasureUnderTest {
  readonly erasure: SubjectErasureStore;
  readonly store: BatchStore;
  readonly purchases: DocumentPurchases;
  readonly overrides: DecisionOverrides;
}

const FETCHED_AT = '2026-11-25T10:00:00.000Z';

/**
 * The rules every erasure store keeps, run against each implementation (in memory and DynamoDB): it finds every row
 * of a document in every batch, empties only settled rows and keeps their state, and deletes the document's
 * reports, purchases and its rows' overrides, and nothing of anyone else's.
 */
export function describeSubjectErasureContract(name: string, open: () => Promise<ErasureUnderTest>): void {
  describe(`${name}: the subject erasure contract`, () => {
    let subject: ErasureUnderTest;
    let batchIds: string[];
    let rows: NewRow[];
    let document: string;
    let other: string;

    beforeEach(async () => {
      subject = await open();
      const { store } = subject;
      // Two batches each hold the document in rows 1 and 3 (the second a duplicate); row 2 is someone else.
      rows = queuedRows(2, randomUUID());
      document = rows[0]?.document as string;
      other = rows[1]?.document as string;
      const withDuplicate: NewRow[] = [
        ...rows,
        { ...(rows[0] as NewRow), row: 3, state: 'duplicate', duplicateOf: 1, passThrough: ['Ana'] },
      ];
      batchIds = [`batch-${randomUUID()}`, `batch-${randomUUID()}`];
      for (const batchId of batchIds) {
        await store.createBatch({
          batchId,
          sourceBucket: 'bucket',
          sourceKey: `incoming/a/${batchId}.csv`,
          bureau: 'a',
          excelSummary: false,
        });
        await store.writeRows(batchId, withDuplicate);
        await store.finishIngest(batchId, { rows: 3, invalid: 0, duplicates: 1, toScreen: 2, cached: 0 });
      }
      // The first batch screens both documents; the second leaves them queued (in flight).
      for (const [index, row] of rows.entries()) {
        const claim = await store.claimRow(batchIds[0] as string, row.row, 30);
        if (!claim.claimed) throw new Error('not claimed');
        const rowDocument = row.document as string;
        await store.settleRow(batchIds[0] as string, row.row, claim.claimToken, {
          outcome: 'screened',
          report: {
            key: { bureau: 'a', document: rowDocument, fetchedAt: FETCHED_AT },
            report: { ...emulatedReport(rowDocument, 'a', index), fetchedAt: FETCHED_AT },
            rawKey: `raw/a/${batchIds[0]}/${row.row}.json`,
          },
        });
      }
      for (const [row, rowDocument] of [
        [1, document],
        [2, other],
      ] as const) {
        const holder = { batchId: batchIds[0] as string, row };
        const answerKey = `raw/a/${batchIds[0]}/${row}.json`;
        await subject.purchases.claim('a', rowDocument, holder, {
          leaseSeconds: 30,
          answerKey,
          acceptAnswersSince: FETCHED_AT,
        });
        await subject.purchases.recordAnswer('a', rowDocument, holder, { answerKey, fetchedAt: FETCHED_AT });
      }
    });

    it('finds every row of the document in every batch, duplicates and rows in flight included', async () => {
      const found = await subject.erasure.rowsHolding(document);

      expect(found.map((row) => [row.batchId, row.row, row.state])).toEqual(
        [
          [batchIds[0], 1, 'screened'],
          [batchIds[0], 3, 'duplicate'],
          [batchIds[1], 1, 'queued'],
          [batchIds[1], 3, 'duplicate'],
        ].sort((a, b) => String(a[0]).localeCompare(String(b[0])) || Number(a[1]) - Number(b[1])),
      );
    });

    it('empties a settled row of its personal data and keeps its state, and refuses a row in flight', async () => {
      const [first, second] = batchIds as [string, string];

      const erasedSettled = await subject.erasure.eraseRow(first, 1, '2026-11-25T12:00:00.000Z');
      const erasedQueued = await subject.erasure.eraseRow(second, 1, '2026-11-25T12:00:00.000Z');

      expect(erasedSettled).toBe(true);
      expect(erasedQueued).toBe(false);
      const [row, untouched] = await subject.store.getRows(first, [1, 2]);
      expect(row).toMatchObject({
        state: 'screened',
        answered: true,
        document: null,
        input: '',
        passThrough: [],
        report: null,
        reportKey: null,
        decision: null,
        erasedAt: '2026-11-25T12:00:00.000Z',
      });
      expect(untouched).toMatchObject({ document: other, state: 'screened' });
      expect((await subject.store.getRows(second, [1]))[0]).toMatchObject({ document, state: 'queued' });
      expect((await subject.store.getBatch(first))?.screened).toBe(2);
      expect(await subject.erasure.rowsHolding(document)).toHaveLength(3);
    });

    it("deletes the document's reports and purchase, and nobody else's", async () => {
      expect((await subject.erasure.reportsOf(document)).map((report) => report.rawKey)).toEqual([
        `raw/a/${batchIds[0]}/1.json`,
      ]);

      const reports = await subject.erasure.eraseReports(document);
      const purchases = await subject.erasure.erasePurchases(document);

      expect([reports, purchases]).toEqual([1, 1]);
      expect(await subject.erasure.reportsOf(document)).toEqual([]);
      expect((await subject.store.latestReports('a', [document, other])).has(document)).toBe(false);
      expect((await subject.store.latestReports('a', [other])).has(other)).toBe(true);
      // Bought again next time: nobody holds the purchase, and no answer is on it.
      const claim = await subject.purchases.claim(
        'a',
        document,
        { batchId: batchIds[1] as string, row: 1 },
        { leaseSeconds: 30, answerKey: 'raw/a/next/1.json', acceptAnswersSince: '2000-01-01T00:00:00.000Z' },
      );
      expect(claim).toEqual({ kind: 'held', abandonedAnswerKey: null });
      const otherClaim = await subject.purchases.claim(
        'a',
        other,
        { batchId: batchIds[1] as string, row: 2 },
        { leaseSeconds: 30, answerKey: 'raw/a/next/2.json', acceptAnswersSince: '2000-01-01T00:00:00.000Z' },
      );
      expect(otherClaim.kind).toBe('answered');
      expect(await subject.erasure.eraseReports(document)).toBe(0);
    });

    it("deletes the overrides of the row, and keeps the other rows'", async () => {
      const batchId = batchIds[0] as string;
      const override = (row: number, at: string) =>
        ({
          batchId,
          row,
          decision: 'approve',
          credit_limit: null,
          reason: 'Renda comprovada',
          by: 'ana@credora.com.br',
          at,
          previous: 'review',
        }) as const;
      await subject.overrides.recordOverride(override(1, '2026-11-25T11:00:00.000Z'));
      await subject.overrides.recordOverride(override(1, '2026-11-25T11:05:00.000Z'));
      await subject.overrides.recordOverride(override(2, '2026-11-25T11:00:00.000Z'));

      const erased = await subject.erasure.eraseOverrides(batchId, 1);

      expect(erased).toBe(2);
      expect((await subject.overrides.overridesOf(batchId)).map((kept) => kept.row)).toEqual([2]);
    });
  });
}
