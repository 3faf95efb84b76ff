import type {
  BatchRecords,
  BatchRows,
  BatchStore,
  ReportHistory,
  TokenProbes,
} from '../domain/ports/index.ts';

/** The four stores of a pipeline's batches: each use case is given the ones it uses. */
export interface BatchStores {
  readonly batchRecords: BatchRecords;
  readonly batchRows: BatchRows;
  readonly tokenProbes: TokenProbes;
  readonly reportHistory: ReportHistory;
}

/**
 * One object with every method of the four stores, for what reads across them (the command line, the local
 * runner's progress, tests); use cases never take it. Each method stays bound to the store that implements it.
 */
export function joinBatchStores(stores: BatchStores): BatchStore {
  const joined: Record<string, unknown> = {};
  for (const store of [stores.batchRecords, stores.batchRows, stores.tokenProbes, stores.reportHistory]) {
    const prototype = Object.getPrototypeOf(store) as object;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const member = (store as unknown as Record<string, unknown>)[name];
      if (name !== 'constructor' && typeof member === 'function') joined[name] = member.bind(store);
    }
  }
  return joined as unknown as BatchStore;
}
