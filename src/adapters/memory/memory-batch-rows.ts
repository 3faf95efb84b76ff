import { randomUUID } from 'node:crypto';
import {
  type ClaimedRow,
  counterOf,
  type NewRow,
  type RowRange,
  type RowRecord,
  rowMay,
  type Settlement,
  settlementAnswered,
  settlementDecision,
  settlementDetail,
  settlementReport,
} from '../../domain/batch/index.ts';
import type { BatchRows, ClaimResult, RowRelease } from '../../domain/ports/index.ts';
import { reportColumns } from '../../domain/report/index.ts';

import { type MemoryTables, toRow } from './memory-tables.ts';

/** Rows of batches in memory; a settle counts on its batch and stores its report, as one step. */
export class MemoryBatchRows implements BatchRows {
  readonly #db: MemoryTables;

  constructor(tables: MemoryTables) {
    this.#db = tables;
  }

  async writeRows(batchId: string, rows: readonly NewRow[]): Promise<void> {
    const stored = this.#db.rowsOf(batchId);
    for (const row of rows) {
      stored.set(row.row, {
        batchId,
        ...row,
        input: row.input.slice(0, 200),
        report: row.report ?? null,
        reportKey: row.reportKey ?? null,
        attempts: 0,
        transientFailures: 0,
        callPending: false,
        uncertainCalls: 0,
        answered: false,
        claimToken: null,
        claimExpiresAt: null,
      });
    }
  }

  async getRows(batchId: string, rows: readonly number[]): Promise<RowRecord[]> {
    const stored = this.#db.rowsOf(batchId);
    return [...new Set(rows)]
      .flatMap((row) => {
        const found = stored.get(row);
        return found ? [toRow(found)] : [];
      })
      .sort((first, second) => first.row - second.row);
  }

  async *rows(batchId: string, range?: RowRange): AsyncIterable<readonly RowRecord[]> {
    const all = [...this.#db.rowsOf(batchId).values()]
      .filter((row) => range === undefined || (row.row >= range.first && row.row <= range.last))
      .sort((first, second) => first.row - second.row);
    for (let start = 0; start < all.length; start += this.#db.pageSize)
      yield all.slice(start, start + this.#db.pageSize).map(toRow);
  }

  async claimRow(batchId: string, row: number, leaseSeconds: number): Promise<ClaimResult> {
    const current = this.#db.rowsOf(batchId).get(row);
    const now = this.#db.now();
    const expired = current?.state !== 'claimed' || (current.claimExpiresAt ?? 0) < now;
    if (current === undefined || !rowMay('claim', current.state) || !expired)
      return { claimed: false, row: current ? toRow(current) : null };
    const claimToken = randomUUID();
    const claimed = this.#db.putRow({
      ...current,
      state: 'claimed',
      claimToken,
      claimExpiresAt: now + leaseSeconds * 1000,
      attempts: current.attempts + 1,
      // Kept as it was: a call left by the previous holder stays marked until this one accounts for it.
      callPending: current.callPending,
    });
    return { claimed: true, claimToken, row: toRow(claimed), inheritedCall: current.callPending };
  }

  async markCallSent(batchId: string, row: number, claimToken: string, sentAtMs: number): Promise<boolean> {
    const current = this.#db.held(batchId, row, claimToken);
    if (current === null) return false;
    this.#db.putRow({ ...current, callPending: true, callSentAt: sentAtMs });
    return true;
  }

  async releaseRow(batchId: string, row: number, claimToken: string, release: RowRelease): Promise<void> {
    const current = this.#db.held(batchId, row, claimToken);
    if (current === null) return;
    this.#db.putRow({
      ...current,
      state: 'queued',
      claimToken: null,
      claimExpiresAt: null,
      callPending: release.call === 'unknown' ? current.callPending : false,
      uncertainCalls: current.uncertainCalls + (release.call === 'unanswered' ? 1 : 0),
      transientFailures: current.transientFailures + (release.transientFailure ? 1 : 0),
    });
  }

  async recordUncertainCall(batchId: string, row: number, claimToken: string): Promise<boolean> {
    const current = this.#db.held(batchId, row, claimToken);
    if (current === null) return false;
    this.#db.putRow({ ...current, uncertainCalls: current.uncertainCalls + 1 });
    return true;
  }

  async settleRow(
    batchId: string,
    row: number,
    claimToken: string,
    settlement: Settlement,
  ): Promise<boolean> {
    const current = this.#db.held(batchId, row, claimToken);
    if (current === null || !rowMay('settle', current.state)) return false;
    const report = settlementReport(settlement);
    this.#db.putRow({
      ...current,
      state: settlement.outcome,
      detail: settlementDetail(settlement),
      report: report ? reportColumns(report.report) : null,
      reportKey: report ? report.key : null,
      decision: settlementDecision(settlement),
      callPending: false,
      answered: current.answered || settlementAnswered(settlement),
      claimToken: null,
      claimExpiresAt: null,
    });
    this.#db.count(batchId, counterOf(settlement.outcome), 1);
    if (report) this.#db.storeReport(report);
    return true;
  }

  async settleAbandonedRow(
    batchId: string,
    row: number,
    abandoned: { readonly reason: string; readonly answered: boolean },
  ): Promise<boolean> {
    const current = this.#db.rowsOf(batchId).get(row);
    if (current === undefined || !rowMay('abandon', current.state)) return false;
    this.#db.putRow({
      ...current,
      state: 'failed',
      detail: abandoned.reason,
      answered: current.answered || abandoned.answered,
      callPending: abandoned.answered ? false : current.callPending,
      claimToken: null,
      claimExpiresAt: null,
    });
    this.#db.count(batchId, 'failed', 1);
    return true;
  }

  async withholdQueuedRow(
    batchId: string,
    row: number,
    withheld: { readonly outcome: 'cancelled' | 'not_queried'; readonly reason: string },
  ): Promise<boolean> {
    const current = this.#db.rowsOf(batchId).get(row);
    if (current === undefined || !rowMay('withhold', current.state)) return false;
    this.#db.putRow({ ...current, state: withheld.outcome, detail: withheld.reason });
    this.#db.count(batchId, counterOf(withheld.outcome), 1);
    return true;
  }

  async requeueFailedRow(
    batchId: string,
    row: number,
    read: { readonly callPending: boolean } = { callPending: false },
  ): Promise<boolean> {
    const current = this.#db.rowsOf(batchId).get(row);
    if (current === undefined || !rowMay('requeue', current.state)) return false;
    if (current.callPending !== read.callPending) return false;
    this.#db.putRow({
      ...current,
      state: 'queued',
      attempts: 0,
      transientFailures: 0,
      detail: null,
      uncertainCalls: current.uncertainCalls + (current.callPending ? 1 : 0),
      callPending: false,
    });
    this.#db.count(batchId, 'failed', -1);
    return true;
  }

  async expiredClaims(batchId: string, before: number): Promise<ClaimedRow[]> {
    return [...this.#db.rowsOf(batchId).values()]
      .filter((row) => row.state === 'claimed' && row.claimExpiresAt !== null && row.claimExpiresAt < before)
      .sort((first, second) => (first.claimExpiresAt ?? 0) - (second.claimExpiresAt ?? 0))
      .map((row) => ({ row: row.row, document: row.document, claimToken: row.claimToken as string }));
  }
}
