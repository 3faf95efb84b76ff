import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { BatchRecord, NewRow, Settlement, StoredReport } from '../../src/domain/batch/index.ts';
import type { Decision } from '../../src/domain/decision/index.ts';
import type { BatchStore } from '../../src/domain/ports/index.ts';
import { quoteOf } from '../../src/domain/spend/index.ts';
import { queuedRows } from '../factories/batch-records.ts';
import { emulatedReport } from '../factories/normalised-reports.ts';

/** A store under test and the clock it reads, which the tests move. */
export interface StoreUnderTest {
  readonly store: BatchStore;
  /** Moves the store's clock forward. */
  advance(milliseconds: number): void;
}

const LEASE_SECONDS = 30;

function screened(document: string, fetchedAt: string): Settlement & { report: StoredReport } {
  return {
    outcome: 'screened',
    report: {
      key: { bureau: 'a', document, fetchedAt },
      report: { ...emulatedReport(document, 'a', 0), fetchedAt },
      rawKey: `raw/a/${document.length}.json`,
    },
  };
}

/**
 * The rules every batch store keeps, run against each implementation (in memory and DynamoDB): the row and batch
 * state machines, leases and claim tokens, counts, charge evidence and the report history. A use case tested on
 * one store holds on the other.
 */
export function describeBatchStoreContract(name: string, open: () => Promise<StoreUnderTest>): void {
  describe(`${name}: the batch store contract`, () => {
    let subject: StoreUnderTest;
    let store: BatchStore;
    let batchId: string;
    let rows: NewRow[];

    beforeEach(async () => {
      subject = await open();
      store = subject.store;
      batchId = `batch-${randomUUID()}`;
      rows = queuedRows(4, randomUUID());
      await store.createBatch({
        batchId,
        sourceBucket: 'bucket',
        sourceKey: 'incoming/a/list.csv',
        bureau: 'a',
        excelSummary: false,
      });
      await store.writeRows(batchId, rows);
      await store.finishIngest(batchId, { rows: 4, invalid: 0, duplicates: 0, toScreen: 4, cached: 0 });
    });

    const claim = async (row = 1) => {
      const result = await store.claimRow(batchId, row, LEASE_SECONDS);
      if (!result.claimed) throw new Error(`row ${row} could not be claimed`);
      return result;
    };

    describe('batch records (BatchRecords)', () => {
      it('creates a batch once; the same id again changes nothing', async () => {
        const again = await store.createBatch({
          batchId,
          sourceBucket: 'other',
          sourceKey: 'incoming/b/other.csv',
          bureau: 'b',
          excelSummary: true,
        });

        expect(again).toBe(false);
        expect(await store.getBatch(batchId)).toMatchObject({ sourceBucket: 'bucket', bureau: 'a' });
      });

      it('runs after ingest with its totals, and counts the rows ingest settled as cached', async () => {
        const other = `batch-${randomUUID()}`;
        await store.createBatch({
          batchId: other,
          sourceBucket: 'b',
          sourceKey: 'k',
          bureau: 'b',
          excelSummary: true,
        });
        expect(await store.getBatch(other)).toMatchObject({
          status: 'ingesting',
          tokenState: 'unverified',
          revision: 1,
          toScreen: null,
          settled: 0,
        });

        await store.finishIngest(other, { rows: 10, invalid: 2, duplicates: 1, toScreen: 7, cached: 3 });

        expect(await store.getBatch(other)).toMatchObject({
          status: 'running',
          rows: 10,
          invalid: 2,
          duplicates: 1,
          toScreen: 7,
          settled: 3,
          cached: 3,
        });
        await expect(
          store.finishIngest(other, { rows: 1, invalid: 0, duplicates: 0, toScreen: 1, cached: 0 }),
        ).rejects.toThrow();
      });

      it('refuses a file while ingesting it: finalising with the failure and nothing to screen', async () => {
        const refused = `batch-${randomUUID()}`;
        await store.createBatch({
          batchId: refused,
          sourceBucket: 'b',
          sourceKey: 'k',
          bureau: 'a',
          excelSummary: false,
        });

        await store.failFile(refused, { code: 'no_document_column', message: 'no CPF/CNPJ column' });

        expect(await store.getBatch(refused)).toMatchObject({
          status: 'finalising',
          toScreen: 0,
          failure: { code: 'no_document_column' },
        });
        expect(await store.completeBatch(refused, 'manifest')).toBe(true);
        expect(await store.getBatch(refused)).toMatchObject({ status: 'failed' });
      });

      it('lets one caller claim the finalisation of a running batch and one complete it', async () => {
        const claims = await Promise.all(Array.from({ length: 5 }, () => store.claimFinalisation(batchId)));
        const completions = await Promise.all(
          Array.from({ length: 3 }, () => store.completeBatch(batchId, 'manifest')),
        );

        expect(claims.filter(Boolean)).toHaveLength(1);
        expect(completions.filter(Boolean)).toHaveLength(1);
        expect(await store.getBatch(batchId)).toMatchObject({ status: 'completed' });
        expect(await store.claimFinalisation(batchId)).toBe(false);
      });

      it('reopens only a completed batch for a redrive, under the next revision and a token to prove again', async () => {
        expect(await store.reopenForRedrive(batchId)).toBe(false);
        await store.markToken(batchId, 'verified');
        await store.claimFinalisation(batchId);
        await store.completeBatch(batchId, 'manifest');

        expect(await store.reopenForRedrive(batchId)).toBe(true);

        expect(await store.getBatch(batchId)).toMatchObject({
          status: 'running',
          revision: 2,
          tokenState: 'unverified',
          requeuing: true,
          completedAt: null,
        });
      });

      it('finalises a redriven batch only once its redrive has finished requeuing', async () => {
        await store.claimFinalisation(batchId);
        await store.completeBatch(batchId, 'manifest');
        await store.reopenForRedrive(batchId);

        const whileRequeuing = await store.claimFinalisation(batchId);
        await store.finishRequeue(batchId);
        const afterwards = await store.claimFinalisation(batchId);

        expect(whileRequeuing).toBe(false);
        expect(afterwards).toBe(true);
        expect(await store.getBatch(batchId)).toMatchObject({ status: 'finalising', requeuing: false });
      });

      it('keeps a batch that must be approved waiting with its quote, until one decision lets it run', async () => {
        const waiting = `batch-${randomUUID()}`;
        await store.createBatch({
          batchId: waiting,
          sourceBucket: 'b',
          sourceKey: 'k',
          bureau: 'a',
          excelSummary: false,
        });
        const quote = quoteOf({
          bureau: 'a',
          unique: 2000,
          reusable: 0,
          pricePerQuery: 2.7,
          ratePerSecond: 10,
        });

        await store.finishIngest(
          waiting,
          { rows: 2000, invalid: 0, duplicates: 0, toScreen: 2000, cached: 0 },
          { quote, awaitingApproval: true },
        );
        const before = await store.getBatch(waiting);
        const decisions = await Promise.all([
          store.decideApproval(waiting, 'rejected', 'Rita Gerente'),
          store.decideApproval(waiting, 'approved', 'Marta Gerente'),
        ]);

        expect(before).toMatchObject({
          status: 'awaiting_approval',
          quote,
          approval: null,
          approvalBy: null,
        });
        expect(decisions.filter(Boolean)).toHaveLength(1);
        const decided = await store.getBatch(waiting);
        expect(decided).toMatchObject({
          status: 'running',
          approval: decisions[0] ? 'rejected' : 'approved',
          // Who decided is the one whose decision was taken, never the other's.
          approvalBy: decisions[0] ? 'Rita Gerente' : 'Marta Gerente',
        });
        // The messages of an approved batch are sent from its approval: the sweeper counts their age from it.
        expect(decided?.messagesSentAt).toEqual(expect.any(String));
        expect(await store.decideApproval(batchId, 'approved')).toBe(false);
      });

      it('records when a running batch’s messages were renewed, once per reading, and only while it runs', async () => {
        const read = await store.getBatch(batchId);
        subject.advance(5000);

        const renewals = await Promise.all([
          store.renewMessages(batchId, null),
          store.renewMessages(batchId, null),
        ]);
        const renewed = await store.getBatch(batchId);
        const stale = await store.renewMessages(batchId, null);
        const next = await store.renewMessages(batchId, renewed?.messagesSentAt ?? null);
        await store.claimFinalisation(batchId);
        const finalising = await store.renewMessages(
          batchId,
          (await store.getBatch(batchId))?.messagesSentAt ?? null,
        );

        expect(read?.messagesSentAt).toBeNull();
        expect(renewals.filter(Boolean)).toHaveLength(1);
        expect(Date.parse(renewed?.messagesSentAt ?? '')).toBeGreaterThanOrEqual(
          Date.parse(read?.createdAt ?? '') + 5000,
        );
        expect(stale).toBe(false);
        expect(next).toBe(true);
        expect(finalising).toBe(false);
      });

      /** A batch created a second after the one every test starts with. */
      const newerBatch = async () => {
        subject.advance(1000);
        const newer = `batch-${randomUUID()}`;
        await store.createBatch({
          batchId: newer,
          sourceBucket: 'b',
          sourceKey: 'k',
          bureau: 'a',
          excelSummary: false,
        });
        return newer;
      };

      it('lists the newest batches first', async () => {
        const newer = await newerBatch();

        const listed = await store.listBatches(2);

        expect(listed.map((batch) => batch.batchId)).toEqual([newer, batchId]);
      });

      it('lists only unfinished batches when asked, a redriven one again', async () => {
        const newer = await newerBatch();
        // The store may hold other tests' batches: only these two are looked at.
        const ours = (batches: readonly BatchRecord[]) =>
          batches.map((batch) => batch.batchId).filter((id) => id === newer || id === batchId);
        const unfinished = async () => ours(await store.listBatches(1000, { unfinishedOnly: true }));
        const before = await unfinished();

        await store.claimFinalisation(batchId);
        await store.completeBatch(batchId, 'results/manifest.json');
        const completed = await unfinished();
        await store.reopenForRedrive(batchId);
        // A finalisation that comes late (it completed the batch before the redrive reopened it) marks nothing now.
        const late = await store.completeBatch(batchId, 'results/manifest.json');
        const redriven = await unfinished();

        expect(before).toEqual([newer, batchId]);
        expect(completed).toEqual([newer]);
        expect(ours(await store.listBatches(1000))).toEqual([newer, batchId]);
        expect(late).toBe(false);
        expect(redriven).toEqual([newer, batchId]);
      });

      it('finds the newest unfinished batches however many finished ones are newer', async () => {
        // Far in the future: newer than any other test's batch in a shared table.
        subject.advance(100 * 365 * 86_400_000);
        const running = await newerBatch();
        await store.finishIngest(running, { rows: 0, invalid: 0, duplicates: 0, toScreen: 1, cached: 0 });
        const finished: string[] = [];
        for (let index = 0; index < 3; index++) {
          const id = await newerBatch();
          await store.finishIngest(id, { rows: 0, invalid: 0, duplicates: 0, toScreen: 0, cached: 0 });
          await store.claimFinalisation(id);
          await store.completeBatch(id, `results/${id}/manifest.json`);
          finished.push(id);
        }

        const listed = await store.listBatches(3, { unfinishedOnly: true });

        expect(listed[0]?.batchId).toBe(running);
        expect(listed.map((batch) => batch.batchId)).not.toContain(finished[0]);
      });
    });

    describe('token probes (TokenProbes)', () => {
      it('has one holder at a time, another once its lease ran out, and a rejection is final', async () => {
        expect(await store.acquireTokenProbe(batchId, 10)).toBe(true);
        expect(await store.acquireTokenProbe(batchId, 10)).toBe(false);
        subject.advance(11_000);
        expect(await store.acquireTokenProbe(batchId, 10)).toBe(true);

        await store.markToken(batchId, 'rejected');
        await store.markToken(batchId, 'verified');

        expect(await store.getBatch(batchId)).toMatchObject({ tokenState: 'rejected' });
        expect(await store.acquireTokenProbe(batchId, 10)).toBe(false);
      });
    });

    describe('rows (BatchRows)', () => {
      it('reads rows in input order, all of them, a range of them or some', async () => {
        const pages: number[] = [];
        for await (const page of store.rows(batchId)) pages.push(...page.map((row) => row.row));

        const inRange = async (first: number, last: number) => {
          const numbers: number[] = [];
          for await (const page of store.rows(batchId, { first, last }))
            numbers.push(...page.map((row) => row.row));
          return numbers;
        };

        expect(pages).toEqual([1, 2, 3, 4]);
        expect(await inRange(2, 3)).toEqual([2, 3]);
        expect(await inRange(4, 99)).toEqual([4]);
        expect(await inRange(5, 1_000_000_000 - 1)).toEqual([]);
        expect((await store.getRows(batchId, [3, 1, 99])).map((row) => row.row)).toEqual([1, 3]);
        expect((await store.getRows(batchId, [2]))[0]).toMatchObject({
          state: 'queued',
          passThrough: ['customer-2'],
          attempts: 0,
          callPending: false,
          uncertainCalls: 0,
          answered: false,
        });
      });

      it('lets one worker claim a row while its lease runs, and another once it ran out', async () => {
        const first = await claim();
        const meanwhile = await store.claimRow(batchId, 1, LEASE_SECONDS);
        const written = await store.markCallSent(batchId, 1, first.claimToken, 1_790_000_000_123);
        subject.advance((LEASE_SECONDS + 1) * 1000);
        const takeover = await store.claimRow(batchId, 1, LEASE_SECONDS);

        expect(first).toMatchObject({
          inheritedCall: false,
          row: { state: 'claimed', attempts: 1, callPending: false },
        });
        expect(meanwhile).toMatchObject({ claimed: false, row: { state: 'claimed' } });
        expect(written).toBe(true);
        // The first holder wrote its call ahead and never said what became of it: the next one must look for its
        // answer, and the mark stays until a holder accounts for it.
        expect(takeover).toMatchObject({
          claimed: true,
          inheritedCall: true,
          // When it was written ahead: every holder that finds it unanswered audits it at that one instant.
          row: { attempts: 2, callPending: true, callSentAt: 1_790_000_000_123 },
        });
      });

      it('passes no call on from a holder that died before writing its call ahead', async () => {
        await claim();
        subject.advance((LEASE_SECONDS + 1) * 1000);
        const takeover = await store.claimRow(batchId, 1, LEASE_SECONDS);

        expect(takeover).toMatchObject({ claimed: true, inheritedCall: false, row: { callPending: false } });
      });

      it('writes a call ahead only under the claim that holds the row', async () => {
        const stale = await claim();
        subject.advance((LEASE_SECONDS + 1) * 1000);
        const current = await claim();

        expect(await store.markCallSent(batchId, 1, stale.claimToken, Date.now())).toBe(false);
        expect(await store.markCallSent(batchId, 1, current.claimToken, Date.now())).toBe(true);
      });

      it('keeps an inherited call pending once it is recorded as uncertain, until the row settles', async () => {
        const first = await claim();
        await store.markCallSent(batchId, 1, first.claimToken, Date.now());
        subject.advance((LEASE_SECONDS + 1) * 1000);
        const second = await claim();
        const recorded = await store.recordUncertainCall(batchId, 1, second.claimToken);
        subject.advance((LEASE_SECONDS + 1) * 1000);
        // The second holder died before settling: the third still knows a call may have been charged.
        const third = await claim();

        expect(recorded).toBe(true);
        expect(third).toMatchObject({ inheritedCall: true, row: { uncertainCalls: 1, callPending: true } });
      });

      it('records what became of a released call: none sent, answered, unanswered, or unknown', async () => {
        const notSent = await claim();
        await store.releaseRow(batchId, 1, notSent.claimToken, { call: 'not_sent', transientFailure: false });
        const afterNotSent = await claim();
        await store.releaseRow(batchId, 1, afterNotSent.claimToken, {
          call: 'unanswered',
          transientFailure: true,
        });
        const afterUnanswered = await claim();
        await store.markCallSent(batchId, 1, afterUnanswered.claimToken, Date.now());
        await store.releaseRow(batchId, 1, afterUnanswered.claimToken, {
          call: 'unknown',
          transientFailure: false,
        });
        const afterUnknown = await claim();

        expect(afterNotSent.inheritedCall).toBe(false);
        expect(afterUnanswered).toMatchObject({
          inheritedCall: false,
          row: { uncertainCalls: 1, transientFailures: 1, attempts: 3 },
        });
        expect(afterUnknown.inheritedCall).toBe(true);
      });

      it('ignores a release or a settle by a holder whose claim was taken over', async () => {
        const stale = await claim();
        subject.advance((LEASE_SECONDS + 1) * 1000);
        const current = await claim();

        await store.releaseRow(batchId, 1, stale.claimToken, { call: 'not_sent', transientFailure: true });
        const settledByStale = await store.settleRow(batchId, 1, stale.claimToken, {
          outcome: 'failed',
          reason: 'late',
        });

        expect(settledByStale).toBe(false);
        expect(await store.recordUncertainCall(batchId, 1, stale.claimToken)).toBe(false);
        expect((await store.getRows(batchId, [1]))[0]).toMatchObject({
          state: 'claimed',
          transientFailures: 0,
        });
        expect(
          await store.settleRow(batchId, 1, current.claimToken, { outcome: 'failed', reason: 'x' }),
        ).toBe(true);
      });

      it('settles a screened row once: its report kept, the batch counting it, a later claim refused', async () => {
        const document = rows[0]?.document as string;
        const held = await claim();
        const settlement = screened(document, '2026-11-20T10:00:00.000Z');

        expect(await store.settleRow(batchId, 1, held.claimToken, settlement)).toBe(true);
        expect(await store.settleRow(batchId, 1, held.claimToken, settlement)).toBe(false);

        expect(await store.claimRow(batchId, 1, LEASE_SECONDS)).toMatchObject({
          claimed: false,
          row: { state: 'screened' },
        });
        expect((await store.getRows(batchId, [1]))[0]).toMatchObject({
          state: 'screened',
          answered: true,
          callPending: false,
          reportKey: settlement.report.key,
          report: { name: settlement.report.report.subject?.name ?? null },
        });
        expect(await store.getBatch(batchId)).toMatchObject({ settled: 1, screened: 1 });
        expect((await store.latestReports('a', [document])).get(document)?.key).toEqual(
          settlement.report.key,
        );
      });

      it('keeps the decision a worker made as it settled, as it was made (reasons in order, nulls kept)', async () => {
        const document = rows[0]?.document as string;
        const held = await claim();
        const decision: Decision = {
          decision: 'review',
          reasons: [
            { code: 'PROTESTO', text: 'Protesto em cartório' },
            { code: 'SEM_SCORE', text: 'Score não calculado pelo bureau' },
          ],
          risk_band: null,
          credit_limit: 1500.5,
          detail: null,
          trace: [
            { node: 'Restrições', nodeId: 'n1', rule: 'r4', row: 4, description: 'Protestos' },
            { node: 'Tipo de documento', nodeId: 'n0', rule: 's1', row: null, description: null },
          ],
        };

        const { report } = screened(document, '2026-11-20T10:00:00.000Z');
        await store.settleRow(batchId, 1, held.claimToken, { outcome: 'screened', report, decision });

        expect((await store.getRows(batchId, [1]))[0]?.decision).toEqual(decision);
        const paged = [];
        for await (const page of store.rows(batchId)) paged.push(...page);
        expect(paged.find((row) => row.row === 1)?.decision).toEqual(decision);
      });

      it('settles a row from another batch’s purchase as cached: its report kept, nothing charged to it', async () => {
        const document = rows[1]?.document as string;
        const held = await claim(2);
        const { report } = screened(document, '2026-11-20T11:00:00.000Z');

        expect(await store.settleRow(batchId, 2, held.claimToken, { outcome: 'cached', report })).toBe(true);

        expect((await store.getRows(batchId, [2]))[0]?.decision ?? null).toBeNull();
        expect((await store.getRows(batchId, [2]))[0]).toMatchObject({
          state: 'cached',
          answered: false,
          callPending: false,
          reportKey: report.key,
          detail: 'report of 2026-11-20T11:00:00.000Z reused',
        });
        expect(await store.getBatch(batchId)).toMatchObject({ settled: 1, cached: 1, screened: 0 });
        expect((await store.getReports([report.key])).size).toBe(1);
      });

      it('records an uncertain call on a held row, and a failed settlement that was answered as charged', async () => {
        const held = await claim();

        expect(await store.recordUncertainCall(batchId, 1, held.claimToken)).toBe(true);
        await store.settleRow(batchId, 1, held.claimToken, {
          outcome: 'failed',
          reason: 'too large',
          answered: true,
        });

        expect((await store.getRows(batchId, [1]))[0]).toMatchObject({
          state: 'failed',
          detail: 'too large',
          answered: true,
          uncertainCalls: 1,
          callPending: false,
        });
        expect(await store.getBatch(batchId)).toMatchObject({ settled: 1, failed: 1 });
      });

      it('settles dead letters, queued or claimed, once; a persisted answer marks the row charged', async () => {
        await claim(2);

        expect(await store.settleAbandonedRow(batchId, 1, { reason: 'dead letter', answered: false })).toBe(
          true,
        );
        expect(await store.settleAbandonedRow(batchId, 2, { reason: 'dead letter', answered: true })).toBe(
          true,
        );
        expect(await store.settleAbandonedRow(batchId, 2, { reason: 'dead letter', answered: true })).toBe(
          false,
        );

        const [queued, claimed] = await store.getRows(batchId, [1, 2]);
        expect(queued).toMatchObject({ state: 'failed', answered: false, callPending: false });
        expect(claimed).toMatchObject({ state: 'failed', answered: true, callPending: false });
        expect(await store.getBatch(batchId)).toMatchObject({ settled: 2, failed: 2 });
      });

      it('requeues a dead-lettered row with its pending call counted as uncertain, as the caller read it', async () => {
        const held = await claim(1);
        expect(await store.markCallSent(batchId, 1, held.claimToken, Date.now())).toBe(true);
        await store.settleAbandonedRow(batchId, 1, { reason: 'dead letter', answered: false });

        const misread = await store.requeueFailedRow(batchId, 1, { callPending: false });
        const requeued = await store.requeueFailedRow(batchId, 1, { callPending: true });
        const [row] = await store.getRows(batchId, [1]);
        const next = await claim(1);

        expect(misread).toBe(false);
        expect(requeued).toBe(true);
        expect(row).toMatchObject({ state: 'queued', callPending: false, uncertainCalls: 1 });
        // Its next holder takes no call over: the lost one is already counted.
        expect(next.inheritedCall).toBe(false);
      });

      it('cancels only queued rows, and requeues only failed ones with fresh attempts', async () => {
        const held = await claim(1);
        await store.settleRow(batchId, 1, held.claimToken, { outcome: 'failed', reason: 'bureau down' });

        expect(await store.withholdQueuedRow(batchId, 1, { outcome: 'cancelled', reason: 'cancelled' })).toBe(
          false,
        );
        expect(await store.withholdQueuedRow(batchId, 2, { outcome: 'cancelled', reason: 'cancelled' })).toBe(
          true,
        );
        expect(await store.requeueFailedRow(batchId, 2)).toBe(false);
        expect(await store.requeueFailedRow(batchId, 1)).toBe(true);

        const [requeued, cancelled] = await store.getRows(batchId, [1, 2]);
        expect(requeued).toMatchObject({ state: 'queued', attempts: 0, transientFailures: 0 });
        expect(cancelled).toMatchObject({ state: 'cancelled', detail: 'cancelled' });
        expect(
          await store.withholdQueuedRow(batchId, 3, { outcome: 'not_queried', reason: 'not approved' }),
        ).toBe(true);
        expect(await store.getBatch(batchId)).toMatchObject({
          settled: 2,
          failed: 0,
          cancelled: 1,
          notQueried: 1,
        });
      });

      it('finds the claims that ran out before a time, oldest first', async () => {
        await claim(3);
        subject.advance(5000);
        await claim(1);
        subject.advance(5000);
        const released = await claim(2);
        await store.releaseRow(batchId, 2, released.claimToken, {
          call: 'not_sent',
          transientFailure: false,
        });

        const expired = await store.expiredClaims(batchId, Date.now() + 10 * 365 * 86_400_000);
        const early = await store.expiredClaims(batchId, 0);

        expect(expired.map((claimed) => claimed.row)).toEqual([3, 1]);
        expect(expired[0]).toMatchObject({ document: rows[2]?.document });
        expect(early).toEqual([]);
      });
    });

    describe('report history (ReportHistory)', () => {
      it('keeps every dated report of a document and answers the newest and the one before', async () => {
        const document = rows[0]?.document as string;
        const older = screened(document, '2026-10-01T10:00:00.000Z');
        const newer = screened(document, '2026-11-01T10:00:00.000Z');
        await store.settleRow(batchId, 1, (await claim(1)).claimToken, older);
        const again = `batch-${randomUUID()}`;
        await store.createBatch({
          batchId: again,
          sourceBucket: 'b',
          sourceKey: 'k',
          bureau: 'a',
          excelSummary: false,
        });
        await store.writeRows(again, rows.slice(0, 1));
        await store.finishIngest(again, { rows: 1, invalid: 0, duplicates: 0, toScreen: 1, cached: 0 });
        const held = await store.claimRow(again, 1, LEASE_SECONDS);
        if (!held.claimed) throw new Error('not claimed');
        await store.settleRow(again, 1, held.claimToken, newer);

        expect((await store.latestReports('a', [document, 'unknown'])).get(document)?.key).toEqual(
          newer.report.key,
        );
        expect((await store.previousReport(newer.report.key))?.key).toEqual(older.report.key);
        expect(await store.previousReport(older.report.key)).toBeNull();
        const both = await store.getReports([older.report.key, newer.report.key]);
        expect(both.size).toBe(2);
      });
    });
  });
}
