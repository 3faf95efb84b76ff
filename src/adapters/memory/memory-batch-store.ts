import { randomUUID } from 'node:crypto';
import {
  type ApprovalDecision,
  type BatchLayout,
  type BatchRecord,
  type BatchStatus,
  batchMay,
  type ClaimedRow,
  counterOf,
  type FileFailure,
  type NewRow,
  type ReportKey,
  type RowRecord,
  reportKeyId,
  rowMay,
  type Settlement,
  type StoredReport,
  settlementAnswered,
  settlementDetail,
  settlementReport,
} from '../../domain/batch/index.ts';
import type {
  BatchStore,
  ClaimResult,
  IngestQuote,
  IngestTotals,
  NewBatch,
  RowRelease,
} from '../../domain/ports/index.ts';
import type { Bureau } from '../../domain/report/index.ts';
import { reportColumns } from '../../domain/report/index.ts';

export interface MemoryBatchStoreConfig {
  /** @default Date.now */
  readonly now?: () => number;
  /** Rows per page of {@link MemoryBatchStore.rows}. @default 100 */
  readonly pageSize?: number;
}

interface HeldRow extends RowRecord {
  readonly claimToken: string | null;
  readonly claimExpiresAt: number | null;
}

interface BatchItem extends BatchRecord {
  readonly probeLeaseUntil: number | null;
}

/**
 * The batch store in memory, with the DynamoDB store's semantics: the same state machines (`ROW_TRANSITIONS`,
 * `BATCH_TRANSITIONS`), leases, claim tokens and counts, checked by the same contract tests. For use-case tests
 * that need no DynamoDB Local, and for reasoning about the rules without a database. Each call is atomic (one
 * synchronous step), as a DynamoDB condition or transaction is. Records are copied in and out.
 */
export class MemoryBatchStore implements BatchStore {
  readonly #batches = new Map<string, BatchItem>();
  readonly #rows = new Map<string, Map<number, HeldRow>>();
  readonly #reports = new Map<string, StoredReport[]>();
  readonly #now: () => number;
  readonly #pageSize: number;

  constructor(config: MemoryBatchStoreConfig = {}) {
    this.#now = config.now ?? Date.now;
    this.#pageSize = config.pageSize ?? 100;
  }

  async createBatch(batch: NewBatch): Promise<boolean> {
    if (this.#batches.has(batch.batchId)) return false;
    this.#batches.set(batch.batchId, {
      ...batch,
      portfolio: batch.portfolio ?? null,
      sourceSha256: null,
      createdAt: new Date(this.#now()).toISOString(),
      status: 'ingesting',
      failure: null,
      layout: null,
      rows: 0,
      invalid: 0,
      duplicates: 0,
      toScreen: null,
      settled: 0,
      screened: 0,
      cached: 0,
      failed: 0,
      cancelled: 0,
      notQueried: 0,
      maxCharges: batch.maxCharges ?? null,
      freshnessHours: batch.freshnessHours ?? 0,
      quote: null,
      approval: null,
      cancelRequested: false,
      requeuing: false,
      revision: 1,
      ingestCheckpoint: 0,
      ingestCached: 0,
      tokenState: 'unverified',
      completedAt: null,
      probeLeaseUntil: null,
    });
    this.#rows.set(batch.batchId, new Map());
    return true;
  }

  async getBatch(batchId: string): Promise<BatchRecord | null> {
    const batch = this.#batches.get(batchId);
    return batch ? toRecord(batch) : null;
  }

  async listBatches(limit: number): Promise<BatchRecord[]> {
    // Newest first by creation time; the order they were created in breaks ties, as the listing's sort key does.
    return [...this.#batches.values()]
      .map((batch, index) => ({ batch, index }))
      .sort((a, b) => b.batch.createdAt.localeCompare(a.batch.createdAt) || b.index - a.index)
      .slice(0, limit)
      .map(({ batch }) => toRecord(batch));
  }

  async recordSourceCheck(batchId: string, sha256: string, layout: BatchLayout | null): Promise<void> {
    this.#updateBatch(batchId, () => ({ sourceSha256: sha256, layout }));
  }

  async failFile(batchId: string, failure: FileFailure): Promise<void> {
    const changed = this.#transition(batchId, 'failFile', 'finalising', { failure, toScreen: 0 });
    if (!changed) throw new Error(`batch ${batchId} is not ingesting`);
  }

  async saveIngestCheckpoint(batchId: string, row: number, cachedSoFar: number): Promise<void> {
    this.#updateBatch(batchId, () => ({ ingestCheckpoint: row, ingestCached: cachedSoFar }));
  }

  async finishIngest(batchId: string, totals: IngestTotals, quoted?: IngestQuote): Promise<void> {
    const batch = this.#batch(batchId);
    const next = quoted?.awaitingApproval ? 'awaiting_approval' : 'running';
    const changed = this.#transition(batchId, 'finishIngest', next, {
      quote: quoted?.quote ?? null,
      rows: totals.rows,
      invalid: totals.invalid,
      duplicates: totals.duplicates,
      toScreen: totals.toScreen,
      ingestCheckpoint: totals.rows,
      ingestCached: totals.cached,
      settled: batch.settled + totals.cached,
      cached: batch.cached + totals.cached,
    });
    if (!changed) throw new Error(`batch ${batchId} is not ingesting`);
  }

  async decideApproval(batchId: string, decision: ApprovalDecision): Promise<boolean> {
    return this.#transition(batchId, 'decideApproval', 'running', { approval: decision });
  }

  async markCancelRequested(batchId: string): Promise<void> {
    this.#updateBatch(batchId, () => ({ cancelRequested: true }));
  }

  async reopenForRedrive(batchId: string): Promise<boolean> {
    const batch = this.#batches.get(batchId);
    if (batch === undefined) return false;
    return this.#transition(batchId, 'reopenForRedrive', 'running', {
      tokenState: 'unverified',
      revision: batch.revision + 1,
      requeuing: true,
      completedAt: null,
    });
  }

  async finishRequeue(batchId: string): Promise<void> {
    this.#updateBatch(batchId, () => ({ requeuing: false }));
  }

  async claimFinalisation(batchId: string): Promise<boolean> {
    if (this.#batches.get(batchId)?.requeuing) return false;
    return this.#transition(batchId, 'claimFinalisation', 'finalising', {});
  }

  async completeBatch(batchId: string, _manifestKey: string): Promise<boolean> {
    const batch = this.#batches.get(batchId);
    if (batch === undefined) return false;
    return this.#transition(batchId, 'complete', batch.failure ? 'failed' : 'completed', {
      completedAt: new Date(this.#now()).toISOString(),
    });
  }

  async acquireTokenProbe(batchId: string, leaseSeconds: number): Promise<boolean> {
    const batch = this.#batches.get(batchId);
    const now = this.#now();
    if (batch?.tokenState !== 'unverified') return false;
    if (batch.probeLeaseUntil !== null && batch.probeLeaseUntil >= now) return false;
    this.#updateBatch(batchId, () => ({ probeLeaseUntil: now + leaseSeconds * 1000 }));
    return true;
  }

  async markToken(batchId: string, state: 'verified' | 'rejected'): Promise<void> {
    const batch = this.#batches.get(batchId);
    // A rejection is final: a late success of another request must not undo it.
    if (batch === undefined || (state === 'verified' && batch.tokenState === 'rejected')) return;
    this.#updateBatch(batchId, () => ({ tokenState: state, probeLeaseUntil: null }));
  }

  async releaseTokenProbe(batchId: string): Promise<void> {
    if (this.#batches.has(batchId)) this.#updateBatch(batchId, () => ({ probeLeaseUntil: null }));
  }

  async writeRows(batchId: string, rows: readonly NewRow[]): Promise<void> {
    const stored = this.#rowsOf(batchId);
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
    const stored = this.#rowsOf(batchId);
    return [...new Set(rows)]
      .flatMap((row) => {
        const found = stored.get(row);
        return found ? [toRow(found)] : [];
      })
      .sort((first, second) => first.row - second.row);
  }

  async *rows(batchId: string): AsyncIterable<readonly RowRecord[]> {
    const all = [...this.#rowsOf(batchId).values()].sort((first, second) => first.row - second.row);
    for (let start = 0; start < all.length; start += this.#pageSize)
      yield all.slice(start, start + this.#pageSize).map(toRow);
  }

  async claimRow(batchId: string, row: number, leaseSeconds: number): Promise<ClaimResult> {
    const current = this.#rowsOf(batchId).get(row);
    const now = this.#now();
    const expired = current?.state !== 'claimed' || (current.claimExpiresAt ?? 0) < now;
    if (current === undefined || !rowMay('claim', current.state) || !expired)
      return { claimed: false, row: current ? toRow(current) : null };
    const claimToken = randomUUID();
    const claimed = this.#putRow({
      ...current,
      state: 'claimed',
      claimToken,
      claimExpiresAt: now + leaseSeconds * 1000,
      attempts: current.attempts + 1,
      callPending: true,
    });
    return { claimed: true, claimToken, row: toRow(claimed), inheritedCall: current.callPending };
  }

  async releaseRow(batchId: string, row: number, claimToken: string, release: RowRelease): Promise<void> {
    const current = this.#held(batchId, row, claimToken);
    if (current === null) return;
    this.#putRow({
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
    const current = this.#held(batchId, row, claimToken);
    if (current === null) return false;
    this.#putRow({ ...current, uncertainCalls: current.uncertainCalls + 1 });
    return true;
  }

  async settleRow(
    batchId: string,
    row: number,
    claimToken: string,
    settlement: Settlement,
  ): Promise<boolean> {
    const current = this.#held(batchId, row, claimToken);
    if (current === null || !rowMay('settle', current.state)) return false;
    const report = settlementReport(settlement);
    this.#putRow({
      ...current,
      state: settlement.outcome,
      detail: settlementDetail(settlement),
      report: report ? reportColumns(report.report) : null,
      reportKey: report ? report.key : null,
      callPending: false,
      answered: current.answered || settlementAnswered(settlement),
      claimToken: null,
      claimExpiresAt: null,
    });
    this.#count(batchId, counterOf(settlement.outcome), 1);
    if (report) this.#storeReport(report);
    return true;
  }

  async settleAbandonedRow(
    batchId: string,
    row: number,
    abandoned: { readonly reason: string; readonly answered: boolean },
  ): Promise<boolean> {
    const current = this.#rowsOf(batchId).get(row);
    if (current === undefined || !rowMay('abandon', current.state)) return false;
    this.#putRow({
      ...current,
      state: 'failed',
      detail: abandoned.reason,
      answered: current.answered || abandoned.answered,
      callPending: abandoned.answered ? false : current.callPending,
      claimToken: null,
      claimExpiresAt: null,
    });
    this.#count(batchId, 'failed', 1);
    return true;
  }

  async withholdQueuedRow(
    batchId: string,
    row: number,
    withheld: { readonly outcome: 'cancelled' | 'not_queried'; readonly reason: string },
  ): Promise<boolean> {
    const current = this.#rowsOf(batchId).get(row);
    if (current === undefined || !rowMay('withhold', current.state)) return false;
    this.#putRow({ ...current, state: withheld.outcome, detail: withheld.reason });
    this.#count(batchId, counterOf(withheld.outcome), 1);
    return true;
  }

  async requeueFailedRow(batchId: string, row: number): Promise<boolean> {
    const current = this.#rowsOf(batchId).get(row);
    if (current === undefined || !rowMay('requeue', current.state)) return false;
    this.#putRow({ ...current, state: 'queued', attempts: 0, transientFailures: 0, detail: null });
    this.#count(batchId, 'failed', -1);
    return true;
  }

  async expiredClaims(batchId: string, before: number): Promise<ClaimedRow[]> {
    return [...this.#rowsOf(batchId).values()]
      .filter((row) => row.state === 'claimed' && row.claimExpiresAt !== null && row.claimExpiresAt < before)
      .sort((first, second) => (first.claimExpiresAt ?? 0) - (second.claimExpiresAt ?? 0))
      .map((row) => ({ row: row.row, document: row.document, claimToken: row.claimToken as string }));
  }

  async latestReports(bureau: Bureau, documents: readonly string[]): Promise<Map<string, StoredReport>> {
    const found = new Map<string, StoredReport>();
    for (const document of new Set(documents)) {
      const newest = this.#reports.get(`${bureau}#${document}`)?.at(-1);
      if (newest) found.set(document, structuredClone(newest));
    }
    return found;
  }

  async getReports(keys: readonly ReportKey[]): Promise<Map<string, StoredReport>> {
    const found = new Map<string, StoredReport>();
    for (const key of keys) {
      const stored = this.#reports
        .get(`${key.bureau}#${key.document}`)
        ?.find((report) => report.key.fetchedAt === key.fetchedAt);
      if (stored) found.set(reportKeyId(key), structuredClone(stored));
    }
    return found;
  }

  async previousReport(key: ReportKey): Promise<StoredReport | null> {
    const earlier = (this.#reports.get(`${key.bureau}#${key.document}`) ?? []).filter(
      (report) => report.key.fetchedAt < key.fetchedAt,
    );
    const previous = earlier.at(-1);
    return previous ? structuredClone(previous) : null;
  }

  #batch(batchId: string): BatchItem {
    const batch = this.#batches.get(batchId);
    if (batch === undefined) throw new Error(`no batch ${batchId}`);
    return batch;
  }

  #updateBatch(batchId: string, change: (batch: BatchItem) => Partial<BatchItem>): void {
    const batch = this.#batch(batchId);
    this.#batches.set(batchId, { ...batch, ...change(batch) });
  }

  /** Moves a batch along `BATCH_TRANSITIONS`; false when its status does not allow it (nothing changes). */
  #transition(
    batchId: string,
    transition: Parameters<typeof batchMay>[0],
    status: BatchStatus,
    fields: Partial<BatchItem>,
  ): boolean {
    const batch = this.#batches.get(batchId);
    if (batch === undefined || !batchMay(transition, batch.status)) return false;
    this.#batches.set(batchId, { ...batch, ...fields, status });
    return true;
  }

  #count(batchId: string, counter: ReturnType<typeof counterOf>, by: 1 | -1): void {
    this.#updateBatch(batchId, (batch) => ({ settled: batch.settled + by, [counter]: batch[counter] + by }));
  }

  #rowsOf(batchId: string): Map<number, HeldRow> {
    let rows = this.#rows.get(batchId);
    if (rows === undefined) {
      rows = new Map();
      this.#rows.set(batchId, rows);
    }
    return rows;
  }

  /** The row, if `claimToken` still holds it. */
  #held(batchId: string, row: number, claimToken: string): HeldRow | null {
    const current = this.#rowsOf(batchId).get(row);
    return current?.state === 'claimed' && current.claimToken === claimToken ? current : null;
  }

  #putRow(row: HeldRow): HeldRow {
    const copy = structuredClone(row);
    this.#rowsOf(row.batchId).set(row.row, copy);
    return copy;
  }

  #storeReport(report: StoredReport): void {
    const id = `${report.key.bureau}#${report.key.document}`;
    const history = (this.#reports.get(id) ?? []).filter(
      (stored) => stored.key.fetchedAt !== report.key.fetchedAt,
    );
    history.push(structuredClone(report));
    history.sort((first, second) => first.key.fetchedAt.localeCompare(second.key.fetchedAt));
    this.#reports.set(id, history);
  }
}

function toRecord(batch: BatchItem): BatchRecord {
  const { probeLeaseUntil: _lease, ...record } = structuredClone(batch);
  return record;
}

function toRow(row: HeldRow): RowRecord {
  const { claimToken: _token, claimExpiresAt: _expires, ...record } = structuredClone(row);
  return record;
}
