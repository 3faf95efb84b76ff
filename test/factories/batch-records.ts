import type { BatchRecord, NewRow, RowRecord } from '../../src/domain/batch/index.ts';
import type { BatchStore } from '../../src/domain/ports/index.ts';
import { distinctDocuments } from './customer-lists.ts';

/** A row item as the store returns it: a queued CPF unless told otherwise. */
export function rowRecord(overrides: Partial<RowRecord> = {}): RowRecord {
  return {
    batchId: 'batch-1',
    row: 1,
    input: '529.982.247-25',
    document: '52998224725',
    documentType: 'cpf',
    state: 'queued',
    detail: null,
    duplicateOf: null,
    passThrough: [],
    attempts: 0,
    transientFailures: 0,
    report: null,
    reportKey: null,
    callPending: false,
    uncertainCalls: 0,
    answered: false,
    ...overrides,
  };
}

/** A batch record as the store returns it: a running upload of ten documents unless told otherwise. */
export function batchRecord(overrides: Partial<BatchRecord> = {}): BatchRecord {
  return {
    batchId: 'batch-1',
    sourceBucket: 'bucket',
    sourceKey: 'incoming/a/list.csv',
    sourceSha256: null,
    bureau: 'a',
    createdAt: '2026-11-22T00:00:00.000Z',
    status: 'running',
    failure: null,
    layout: null,
    excelSummary: false,
    portfolio: null,
    rows: 10,
    invalid: 0,
    duplicates: 0,
    toScreen: 10,
    settled: 0,
    screened: 0,
    cached: 0,
    failed: 0,
    cancelled: 0,
    notQueried: 0,
    maxCharges: null,
    freshnessHours: 0,
    policy: null,
    quote: null,
    approval: null,
    approvalBy: null,
    cancelRequested: false,
    requeuing: false,
    revision: 1,
    ingestCheckpoint: 10,
    ingestCached: 0,
    tokenState: 'unverified',
    completedAt: null,
    messagesSentAt: null,
    ...overrides,
  };
}

/** Rows as ingest writes them: `count` fresh documents (distinct per `seed`), all queued, numbered from 1. */
export function queuedRows(
  count: number,
  seed: string,
  passThrough = (row: number) => [`customer-${row}`],
): NewRow[] {
  return distinctDocuments(count, seed).map((document, index) => ({
    row: index + 1,
    input: document,
    document,
    documentType: 'cpf',
    state: 'queued',
    detail: null,
    duplicateOf: null,
    passThrough: passThrough(index + 1),
  }));
}

/** One object that holds every batch store (a joined store, a test double) given as each of the four ports. */
export function asStores<Store extends BatchStore>(store: Store) {
  return { batchRecords: store, batchRows: store, tokenProbes: store, reportHistory: store };
}
