import type { TokenProbes } from '../../domain/ports/index.ts';

import type { MemoryTables } from './memory-tables.ts';

/** Token probes in memory, on the batch records they share a state with. */
export class MemoryTokenProbes implements TokenProbes {
  readonly #db: MemoryTables;

  constructor(tables: MemoryTables) {
    this.#db = tables;
  }

  async acquireTokenProbe(batchId: string, leaseSeconds: number): Promise<boolean> {
    const batch = this.#db.batches.get(batchId);
    const now = this.#db.now();
    if (batch?.tokenState !== 'unverified') return false;
    if (batch.probeLeaseUntil !== null && batch.probeLeaseUntil >= now) return false;
    this.#db.updateBatch(batchId, () => ({ probeLeaseUntil: now + leaseSeconds * 1000 }));
    return true;
  }

  async markToken(batchId: string, state: 'verified' | 'rejected'): Promise<void> {
    const batch = this.#db.batches.get(batchId);
    // A rejection is final: a late success of another request must not undo it.
    if (batch === undefined || (state === 'verified' && batch.tokenState === 'rejected')) return;
    this.#db.updateBatch(batchId, () => ({ tokenState: state, probeLeaseUntil: null }));
  }

  async releaseTokenProbe(batchId: string): Promise<void> {
    if (this.#db.batches.has(batchId)) this.#db.updateBatch(batchId, () => ({ probeLeaseUntil: null }));
  }
}
