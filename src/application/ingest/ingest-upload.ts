import { createHash } from 'node:crypto';
import { resultKeys, S3_LAYOUT } from '../../contract/index.ts';
import {
  batchIdFor,
  bureauForKey,
  cachedDetail,
  deliveryLaneFor,
  type NewRow,
  type WorkMessage,
} from '../../domain/batch/index.ts';
import {
  CustomerListError,
  type CustomerRow,
  IntakeTally,
  openCustomerList,
} from '../../domain/intake/index.ts';
import type { BatchStore, EventPublisher, Logger, ObjectStore, WorkQueue } from '../../domain/ports/index.ts';
import type { Bureau } from '../../domain/report/index.ts';
import { MAX_CHARGES_METADATA, maxChargesOf, type Quote, quoteOf } from '../../domain/spend/index.ts';
import { reportColumns } from '../../domain/summary/index.ts';
import { finaliseIfLast } from '../completion/finalise-if-last.ts';
import { sendQueuedRows } from '../queueing/send-queued-rows.ts';
import { freshReports } from '../reuse/fresh-reports.ts';

/** One uploaded object, as the S3 event describes it. */
export interface UploadedObject {
  readonly bucket: string;
  readonly key: string;
  readonly sequencer?: string;
  readonly eTag?: string;
  readonly versionId?: string;
  /** Set when the object is a portfolio being re-screened: its name, bureau and how fresh a reused report must be. */
  readonly portfolio?: {
    readonly name: string;
    readonly bureau: Bureau;
    readonly freshnessHours: number;
  };
}

export interface IngestSettings {
  readonly defaultBureau: Bureau;
  /** Reuse a stored report younger than this instead of queuing the document; 0 turns reuse off. @default 0 */
  readonly freshnessHours?: number;
  readonly maxRows: number;
  readonly excelSummary: boolean;
  /** Rows written and queued per step; the checkpoint moves after each step. @default 1000 */
  readonly chunkRows?: number;
  /**
   * When a batch must wait for a person: one that would buy more than `threshold` documents (null: never), quoted
   * at these prices and rates. Without it, every batch runs at once.
   */
  readonly approval?: ApprovalSettings;
}

export interface ApprovalSettings {
  readonly threshold: number | null;
  readonly pricePerQuery: Readonly<Record<Bureau, number>>;
  readonly ratePerSecond: Readonly<Record<Bureau, number>>;
}

export interface IngestDependencies {
  readonly store: BatchStore;
  readonly objects: ObjectStore;
  readonly queue: WorkQueue;
  readonly events: EventPublisher;
  readonly logger: Logger;
  readonly settings: IngestSettings;
  readonly now?: () => Date;
}

export type IngestOutcome =
  | { readonly batchId: string; readonly outcome: 'queued'; readonly rows: number; readonly toScreen: number }
  | { readonly batchId: string; readonly outcome: 'file_rejected'; readonly reason: string }
  | { readonly batchId: string; readonly outcome: 'awaiting_approval'; readonly quote: Quote }
  | { readonly batchId: string; readonly outcome: 'already_ingested' };

const DEFAULT_CHUNK_ROWS = 1000;

/**
 * Settles as `cached` the queued rows whose document has a stored report younger than the freshness window: one
 * read per hundred documents here instead of a query per document in the workers, and nothing queued or paid.
 */
async function reuseFreshReports(
  rows: NewRow[],
  bureau: Bureau,
  hours: number,
  deps: IngestDependencies,
): Promise<NewRow[]> {
  const queued = rows.filter((row) => row.state === 'queued' && row.document !== null);
  const fresh = await freshReports(deps.store, {
    bureau,
    documents: queued.map((row) => row.document as string),
    freshnessHours: hours,
    nowMs: (deps.now ?? (() => new Date()))().getTime(),
  });
  return rows.map((row) => {
    const report = row.state === 'queued' && row.document !== null ? fresh.get(row.document) : undefined;
    if (report === undefined) return row;
    return {
      ...row,
      state: 'cached',
      detail: cachedDetail(report),
      report: reportColumns(report.report),
      reportKey: report.key,
    };
  });
}

/** Key of the list of rows that have duplicates (the finaliser repeats their report columns on the duplicates). */
export const duplicateTargetsKey = (batchId: string) => `${S3_LAYOUT.work}${batchId}/duplicate-targets.json`;

function newRow(row: CustomerRow): NewRow {
  return {
    row: row.row,
    input: row.input,
    document: row.document,
    documentType: row.type,
    state: row.status === 'valid' ? 'queued' : row.status === 'duplicate' ? 'duplicate' : 'invalid_document',
    detail:
      row.status === 'invalid' ? row.reason : row.status === 'duplicate' ? `row ${row.duplicateOf}` : null,
    duplicateOf: row.duplicateOf,
    passThrough: row.passThrough,
  };
}

async function* hashing(
  source: AsyncIterable<Uint8Array>,
  hash: ReturnType<typeof createHash>,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    hash.update(chunk);
    yield chunk;
  }
}

/** Writes the quote of a batch that must wait for approval, and says so (`BatchAwaitingApproval`). */
async function announceAwaitingApproval(
  batchId: string,
  quote: Quote,
  deps: IngestDependencies,
): Promise<void> {
  const key = resultKeys(batchId).quote;
  await deps.objects.putJson(key, quote);
  await deps.events.batchAwaitingApproval({ batchId, quote, keys: { quote: key } });
}

const INVALID_MAX_CHARGES = {
  code: 'invalid_max_charges',
  message: `the upload's ${MAX_CHARGES_METADATA} metadata is not a whole number of queries`,
};

/** Refuses the whole file: nothing of it is queued, and the finaliser writes a manifest that says why. */
async function refuseFile(
  batchId: string,
  failure: { readonly code: string; readonly message: string },
  deps: IngestDependencies,
): Promise<IngestOutcome> {
  // The reason is for the customer (batch record, manifest), not for logs: it may quote the file's first row.
  deps.logger.warn('file rejected', { batchId, code: failure.code });
  await deps.store.failFile(batchId, failure);
  await deps.queue.sendFinalise({ version: 1, batchId });
  return { batchId, outcome: 'file_rejected', reason: failure.message };
}

/**
 * Turns an uploaded customer list into a batch: one item per row, one SQS message per unique valid document.
 * Invalid and duplicate rows are settled here and never queued.
 *
 * The file is read twice. The first pass validates it whole (layout, row limit, hash) and spends nothing, so a file
 * refused at row 900,000 never started a single bureau query. The second pass writes and queues in chunks, moving a
 * checkpoint; an interrupted invocation retried by S3 resumes from it without resetting rows a worker has settled.
 */
export async function ingestUpload(upload: UploadedObject, deps: IngestDependencies): Promise<IngestOutcome> {
  const { store, objects, queue, logger, settings } = deps;
  const bureau = upload.portfolio?.bureau ?? bureauForKey(upload.key, settings.defaultBureau);
  // A portfolio says how old a reused report may be (by default it asks again); an upload uses the deployment's.
  const freshnessHours = upload.portfolio ? upload.portfolio.freshnessHours : (settings.freshnessHours ?? 0);
  const lane = deliveryLaneFor({ key: upload.key, portfolio: upload.portfolio?.name ?? null });
  const batchId = batchIdFor(upload);
  // An upload may cap what its batch buys; a portfolio run is bounded by the monthly cap alone.
  const maxCharges = upload.portfolio ? null : maxChargesOf(await objects.metadataOf(upload.key));
  const created = await store.createBatch({
    batchId,
    sourceBucket: upload.bucket,
    sourceKey: upload.key,
    bureau,
    excelSummary: settings.excelSummary,
    portfolio: upload.portfolio?.name ?? null,
    maxCharges: maxCharges === 'invalid' ? 0 : maxCharges,
  });
  const existing = created ? null : await store.getBatch(batchId);
  if (existing && existing.status !== 'ingesting') {
    logger.info('upload already ingested', { batchId });
    return { batchId, outcome: 'already_ingested' };
  }
  if (maxCharges === 'invalid') {
    // A cap that cannot be read is not taken for no cap: the file is refused and nothing is bought.
    return refuseFile(batchId, INVALID_MAX_CHARGES, deps);
  }
  const checkpoint = existing?.ingestCheckpoint ?? 0;
  logger.info('ingest started', { batchId, key: upload.key, bureau, lane, resumingAfterRow: checkpoint });

  // Pass 1: the whole file must be usable before anything is queued.
  const firstHash = createHash('sha256');
  let validRows = 0;
  let layout: Awaited<ReturnType<typeof openCustomerList>>['layout'];
  try {
    // Validation only: duplicates are found (and counted) by the second pass, so this one keeps no table of them.
    const list = await openCustomerList(hashing(objects.read(upload.key), firstHash), {
      maxRows: settings.maxRows,
      detectDuplicates: false,
    });
    // Read to the end: the file is usable only if every row parses within the limits.
    for await (const row of list.rows) if (row.status !== 'invalid') validRows++;
    layout = list.layout;
  } catch (error) {
    if (!(error instanceof CustomerListError)) throw error;
    return refuseFile(batchId, { code: error.code, message: error.message }, deps);
  }
  const sha256 = firstHash.digest('hex');
  await store.recordSourceCheck(batchId, sha256, {
    documentColumns: layout.documentColumns.map((column) => column.header),
    passThroughColumns: layout.passThroughColumns,
    encoding: layout.encoding,
    delimiter: layout.delimiter,
    hasHeader: layout.hasHeader,
  });

  // Pass 2: write rows and queue unique valid documents, chunk by chunk. When the batch might need approval (more
  // valid rows than the threshold), messages are held until its quote says whether it does.
  // Scheduled portfolio runs were approved when they were set up: the monthly cap bounds them, not a person.
  const threshold = upload.portfolio ? null : (settings.approval?.threshold ?? null);
  const holdMessages = threshold !== null && validRows > threshold;
  const secondHash = createHash('sha256');
  const list = await openCustomerList(hashing(objects.read(upload.key), secondHash), {
    maxRows: settings.maxRows,
  });
  const tally = new IntakeTally();
  const duplicateTargets = new Set<number>();
  let chunk: CustomerRow[] = [];
  let resumed = false;
  let cachedSoFar = existing?.ingestCached ?? 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    const last = (chunk.at(-1) as CustomerRow).row;
    if (last > checkpoint) {
      let rows = chunk.filter((row) => row.row > checkpoint).map(newRow);
      let requeue: NewRow[] = [];
      if (checkpoint > 0 && !resumed) {
        // The chunk after the checkpoint may be half written: keep what a worker may already have touched.
        resumed = true;
        const existingRows = await store.getRows(
          batchId,
          rows.map((row) => row.row),
        );
        const written = new Set(existingRows.map((row) => row.row));
        const stillQueued = new Set(
          existingRows.filter((row) => row.state === 'queued').map((row) => row.row),
        );
        requeue = rows.filter((row) => stillQueued.has(row.row));
        rows = rows.filter((row) => !written.has(row.row));
        cachedSoFar += existingRows.filter((row) => row.state === 'cached').length;
      }
      rows = await reuseFreshReports(rows, bureau, freshnessHours, deps);
      cachedSoFar += rows.filter((row) => row.state === 'cached').length;
      await store.writeRows(batchId, rows);
      const messages: WorkMessage[] = [...rows, ...requeue]
        .filter((row) => row.state === 'queued' && row.document !== null)
        .map((row) => ({
          version: 1,
          batchId,
          row: row.row,
          document: row.document as string,
          bureau,
          lane,
        }));
      if (!holdMessages) await queue.sendWork(messages);
      await store.saveIngestCheckpoint(batchId, last, cachedSoFar);
    }
    chunk = [];
  };
  for await (const row of list.rows) {
    tally.add(row);
    if (row.duplicateOf !== null) duplicateTargets.add(row.duplicateOf);
    chunk.push(row);
    if (chunk.length >= (settings.chunkRows ?? DEFAULT_CHUNK_ROWS)) await flush();
  }
  await flush();
  if (secondHash.digest('hex') !== sha256) {
    // The object changed between the passes (overwritten in place): let S3's retry start over on the new one.
    throw new Error(`s3://${upload.bucket}/${upload.key} changed while it was being ingested`);
  }
  await objects.putJson(
    duplicateTargetsKey(batchId),
    [...duplicateTargets].sort((first, second) => first - second),
  );

  const counts = tally.counts;
  const quote = quoteOf({
    bureau,
    unique: counts.unique,
    reusable: cachedSoFar,
    pricePerQuery: settings.approval?.pricePerQuery[bureau] ?? 0,
    ratePerSecond: settings.approval?.ratePerSecond[bureau] ?? 1,
  });
  const awaitingApproval = threshold !== null && quote.to_buy > threshold;
  if (awaitingApproval) await announceAwaitingApproval(batchId, quote, deps);
  // Held messages go out before the batch runs: a retried ingest finds it still ingesting and sends them again.
  else if (holdMessages) await sendQueuedRows({ batchId, bureau, lane }, deps);
  const totals = {
    rows: counts.rows,
    invalid: counts.invalid,
    duplicates: counts.duplicates,
    toScreen: counts.unique,
    cached: cachedSoFar,
  };
  await store.finishIngest(batchId, totals, { quote, awaitingApproval });
  if (awaitingApproval) {
    logger.info('batch awaits approval', { batchId, toBuy: quote.to_buy, threshold });
    return { batchId, outcome: 'awaiting_approval', quote };
  }
  logger.info('ingest finished', {
    batchId,
    rows: counts.rows,
    toScreen: counts.unique,
    invalid: counts.invalid,
    duplicates: counts.duplicates,
  });
  // Fast workers (or a file without a single valid document) may have settled everything already.
  await finaliseIfLast(batchId, { store, queue });
  return { batchId, outcome: 'queued', rows: counts.rows, toScreen: counts.unique };
}
