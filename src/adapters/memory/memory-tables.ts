import {
  type BatchRecord,
  type BatchStatus,
  batchMay,
  type counterOf,
  type RowRecord,
  type StoredReport,
} from '../../domain/batch/index.ts';

export interface MemoryBatchStoreConfig {
  /** @default Date.now */
  readonly now?: () => number;
  /** Rows per page of {@link MemoryBatchStore.rows}. @default 100 */
  readonly pageSize?: number;
}

export interface HeldRow extends RowRecord {
  readonly claimToken: string | null;
  readonly claimExpiresAt: number | null;
}

export interface BatchItem extends BatchRecord {
  readonly probeLeaseUntil: number | null;
}

/**
 * The state the in-memory batch stores share, with the DynamoDB stores' semantics: the same state machines
 * (`ROW_TRANSITIONS`, `BATCH_TRANSITIONS`), leases, claim tokens and counts, checked by the same contract tests.
 * Each call is atomic (one synchronous step), as a DynamoDB condition or transaction is. Records are copied in and
 * out.
 */
export class MemoryTables {
  readonly batches = new Map<string, BatchItem>();
  readonly rows = new Map<string, Map<number, HeldRow>>();
  readonly reports = new Map<string, StoredReport[]>();
  readonly now: () => number;
  readonly pageSize: number;

  constructor(config: MemoryBatchStoreConfig = {}) {
    this.now = config.now ?? Date.now;
    this.pageSize = config.pageSize ?? 100;
  }

  batch(batchId: string): BatchItem {
    const batch = this.batches.get(batchId);
    if (batch === undefined) throw new Error(`no batch ${batchId}`);
    return batch;
  }

  updateBatch(batchId: string, change: (batch: BatchItem) => Partial<BatchItem>): void {
    const batch = this.batch(batchId);
    this.batches.set(batchId, { ...batch, ...change(batch) });
  }

  /** Moves a batch along `BATCH_TRANSITIONS`; false when its status does not allow it (nothing changes). */
  transition(
    batchId: string,
    transition: Parameters<typeof batchMay>[0],
    status: BatchStatus,
    fields: Partial<BatchItem>,
  ): boolean {
    const batch = this.batches.get(batchId);
    if (batch === undefined || !batchMay(transition, batch.status)) return false;
    this.batches.set(batchId, { ...batch, ...fields, status });
    return true;
  }

  count(batchId: string, counter: ReturnType<typeof counterOf>, by: 1 | -1): void {
    this.updateBatch(batchId, (batch) => ({ settled: batch.settled + by, [counter]: batch[counter] + by }));
  }

  rowsOf(batchId: string): Map<number, HeldRow> {
    let rows = this.rows.get(batchId);
    if (rows === undefined) {
      rows = new Map();
      this.rows.set(batchId, rows);
    }
    return rows;
  }

  /** The row, if `claimToken` still holds it. */
  held(batchId: string, row: number, claimToken: string): HeldRow | null {
    const current = this.rowsOf(batchId).get(row);
    return current?.state === 'claimed' && current.claimToken === claimToken ? current : null;
  }

  putRow(row: HeldRow): HeldRow {
    const copy = structuredClone(row);
    this.rowsOf(row.batchId).set(row.row, copy);
    return copy;
  }

  storeReport(report: StoredReport): void {
    const id = `${report.key.bureau}#${report.key.document}`;
    const history = (this.reports.get(id) ?? []).filter(
      (stored) => stored.key.fetchedAt !== report.key.fetchedAt,
    );
    history.push(structuredClone(report));
    history.sort((first, second) => first.key.fetchedAt.localeCompare(second.key.fetchedAt));
    this.reports.set(id, history);
  }
}

export function toRecord(batch: BatchItem): BatchRecord {
  const { probeLeaseUntil: _lease, ...record } = structuredClone(batch);
  return record;
}

export function toRow(row: HeldRow): RowRecord {
  const { claimToken: _token, claimExpiresAt: _expires, ...record } = structuredClone(row);
  return record;
}
