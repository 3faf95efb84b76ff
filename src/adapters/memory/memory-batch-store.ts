import type { BatchStore } from '../../domain/ports/index.ts';
import { type BatchStores, joinBatchStores } from '../batch-stores.ts';
import { MemoryBatchRecords } from './memory-batch-records.ts';
import { MemoryBatchRows } from './memory-batch-rows.ts';
import { MemoryReportHistory } from './memory-report-history.ts';
import { type MemoryBatchStoreConfig, MemoryTables } from './memory-tables.ts';
import { MemoryTokenProbes } from './memory-token-probes.ts';

/** The four batch stores in memory, on one shared state, with the DynamoDB stores' semantics. */
export function memoryBatchStores(config: MemoryBatchStoreConfig = {}): BatchStores {
  return memoryBatchStoresOn(new MemoryTables(config));
}

/** The four batch stores on state the caller keeps (to erase from it too: see `MemorySubjectErasure`). */
export function memoryBatchStoresOn(tables: MemoryTables): BatchStores {
  return {
    batchRecords: new MemoryBatchRecords(tables),
    batchRows: new MemoryBatchRows(tables),
    tokenProbes: new MemoryTokenProbes(tables),
    reportHistory: new MemoryReportHistory(tables),
  };
}

/** The four stores as one object, for tests that read across them (see {@link joinBatchStores}). */
export function memoryBatchStore(config: MemoryBatchStoreConfig = {}): BatchStore {
  return joinBatchStores(memoryBatchStores(config));
}
