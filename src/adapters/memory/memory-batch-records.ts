import type { ApprovalDecision, BatchLayout, BatchRecord, FileFailure } from '../../domain/batch/index.ts';
import type { BatchRecords, IngestQuote, IngestTotals, NewBatch } from '../../domain/ports/index.ts';

import { type MemoryTables, toRecord } from './memory-tables.ts';

/** Batch records in memory. */
export class MemoryBatchRecords implements BatchRecords {
  readonly #db: MemoryTables;

  constructor(tables: MemoryTables) {
    this.#db = tables;
  }

  async createBatch(batch: NewBatch): Promise<boolean> {
    if (this.#db.batches.has(batch.batchId)) return false;
    this.#db.batches.set(batch.batchId, {
      ...batch,
      portfolio: batch.portfolio ?? null,
      sourceSha256: null,
      createdAt: new Date(this.#db.now()).toISOString(),
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
      policy: batch.policy ?? null,
      bureauEndpoint: batch.bureauEndpoint ?? null,
      quote: null,
      approval: null,
      approvalBy: null,
      cancelRequested: false,
      requeuing: false,
      revision: 1,
      ingestCheckpoint: 0,
      ingestCached: 0,
      tokenState: 'unverified',
      completedAt: null,
      messagesSentAt: null,
      probeLeaseUntil: null,
    });
    this.#db.rows.set(batch.batchId, new Map());
    return true;
  }

  async getBatch(batchId: string): Promise<BatchRecord | null> {
    const batch = this.#db.batches.get(batchId);
    return batch ? toRecord(batch) : null;
  }

  async listBatches(
    limit: number,
    options: { readonly unfinishedOnly?: boolean } = {},
  ): Promise<BatchRecord[]> {
    // Newest first by creation time; the order they were created in breaks ties, as the listing's sort key does.
    return [...this.#db.batches.values()]
      .map((batch, index) => ({ batch, index }))
      .sort((a, b) => b.batch.createdAt.localeCompare(a.batch.createdAt) || b.index - a.index)
      .filter(
        ({ batch }) => !options.unfinishedOnly || (batch.status !== 'completed' && batch.status !== 'failed'),
      )
      .slice(0, limit)
      .map(({ batch }) => toRecord(batch));
  }

  async recordSourceCheck(batchId: string, sha256: string, layout: BatchLayout | null): Promise<void> {
    this.#db.updateBatch(batchId, () => ({ sourceSha256: sha256, layout }));
  }

  async failFile(batchId: string, failure: FileFailure): Promise<void> {
    const changed = this.#db.transition(batchId, 'failFile', 'finalising', { failure, toScreen: 0 });
    if (!changed) throw new Error(`batch ${batchId} is not ingesting`);
  }

  async saveIngestCheckpoint(batchId: string, row: number, cachedSoFar: number): Promise<void> {
    this.#db.updateBatch(batchId, () => ({ ingestCheckpoint: row, ingestCached: cachedSoFar }));
  }

  async finishIngest(batchId: string, totals: IngestTotals, quoted?: IngestQuote): Promise<void> {
    const batch = this.#db.batch(batchId);
    const next = quoted?.awaitingApproval ? 'awaiting_approval' : 'running';
    const changed = this.#db.transition(batchId, 'finishIngest', next, {
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

  async decideApproval(
    batchId: string,
    decision: ApprovalDecision,
    by: string | null = null,
  ): Promise<boolean> {
    return this.#db.transition(batchId, 'decideApproval', 'running', {
      approval: decision,
      approvalBy: by,
      messagesSentAt: new Date(this.#db.now()).toISOString(),
    });
  }

  async markCancelRequested(batchId: string): Promise<void> {
    this.#db.updateBatch(batchId, () => ({ cancelRequested: true }));
  }

  async reopenForRedrive(batchId: string): Promise<boolean> {
    const batch = this.#db.batches.get(batchId);
    if (batch === undefined) return false;
    return this.#db.transition(batchId, 'reopenForRedrive', 'running', {
      tokenState: 'unverified',
      revision: batch.revision + 1,
      requeuing: true,
      completedAt: null,
      messagesSentAt: new Date(this.#db.now()).toISOString(),
    });
  }

  async renewMessages(batchId: string, previous: string | null): Promise<boolean> {
    const batch = this.#db.batches.get(batchId);
    if (batch?.status !== 'running' || batch.messagesSentAt !== previous) return false;
    this.#db.updateBatch(batchId, () => ({ messagesSentAt: new Date(this.#db.now()).toISOString() }));
    return true;
  }

  async finishRequeue(batchId: string): Promise<void> {
    this.#db.updateBatch(batchId, () => ({ requeuing: false }));
  }

  async claimFinalisation(batchId: string): Promise<boolean> {
    if (this.#db.batches.get(batchId)?.requeuing) return false;
    return this.#db.transition(batchId, 'claimFinalisation', 'finalising', {});
  }

  async completeBatch(batchId: string, _manifestKey: string): Promise<boolean> {
    const batch = this.#db.batches.get(batchId);
    if (batch === undefined) return false;
    return this.#db.transition(batchId, 'complete', batch.failure ? 'failed' : 'completed', {
      completedAt: new Date(this.#db.now()).toISOString(),
    });
  }
}
