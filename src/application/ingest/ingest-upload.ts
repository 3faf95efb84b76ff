import { createHash } from 'node:crypto';
import { resultKeys, sourceNameOf } from '../../contract/index.ts';
import {
  batchIdFor,
  bureauForKey,
  cachedDetail,
  type DeliveryLane,
  deliveryLaneFor,
  type NewRow,
  type WorkMessage,
} from '../../domain/batch/index.ts';
import { ERASED_METADATA } from '../../domain/data-subject/index.ts';
import {
  type CustomerRow,
  type IntakeCounts,
  IntakeTally,
  openCustomerList,
} from '../../domain/intake/index.ts';
import type {
  BatchRecords,
  BatchRows,
  EventPublisher,
  Logger,
  ObjectStore,
  ReportHistory,
  WorkQueue,
} from '../../domain/ports/index.ts';
import type { Bureau } from '../../domain/report/index.ts';
import {
  MAX_CHARGES_METADATA,
  maxChargesOf,
  overrunOf,
  type Quote,
  type QuoteOverrun,
  quoteOf,
} from '../../domain/spend/index.ts';
import { reportColumns } from '../../domain/summary/index.ts';
import { finaliseIfLast } from '../completion/finalise-if-last.ts';
import { dispatchParts } from '../queueing/dispatch-rows.ts';
import { freshReports } from '../reuse/fresh-reports.ts';
import { choosePolicy, keepPolicyCopy } from './batch-policy.ts';
import { checkWholeFile, type FileCheck, hashing } from './check-whole-file.ts';

/** One uploaded object, as the S3 event describes it. */
export interface UploadedObject {
  readonly bucket: string;
  readonly key: string;
  readonly sequencer?: string;
  readonly eTag?: string;
  readonly versionId?: string;
  /**
   * Set when the object is a portfolio being re-screened: its name, bureau, how fresh a reused report must be, and
   * the policy that decides it (null: the deployment's default).
   */
  readonly portfolio?: {
    readonly name: string;
    readonly bureau: Bureau;
    readonly freshnessHours: number;
    readonly policy?: string | null;
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
  /** The policy (a name under `policies/`) of an upload that names none; null or absent: such batches are not decided. */
  readonly defaultPolicy?: string | null;
  /** Where this pipeline's bureau calls go, recorded on each batch (`bureauEndpointOf`); absent: not recorded. */
  readonly bureauEndpoint?: string;
}

interface ApprovalSettings {
  readonly threshold: number | null;
  readonly pricePerQuery: Readonly<Record<Bureau, number>>;
  readonly ratePerSecond: Readonly<Record<Bureau, number>>;
  /** The longest a batch's queries may take (`longestBatchSeconds`); past it, `quote.json` says what fits. */
  readonly longestBatchSeconds?: number;
}

export interface IngestDependencies {
  readonly batchRecords: BatchRecords;
  readonly batchRows: BatchRows;
  readonly reportHistory: ReportHistory;
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
  const fresh = await freshReports(deps.reportHistory, {
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

/**
 * Writes the quote of a batch that must wait for approval, with what would fit when its queries would outlast what
 * the pipeline waits for (`overrun`, null when they fit), and says so (`BatchAwaitingApproval`).
 */
async function announceAwaitingApproval(
  batchId: string,
  quote: Quote,
  overrun: QuoteOverrun | null,
  deps: IngestDependencies,
): Promise<void> {
  const key = resultKeys(batchId).quote;
  await deps.objects.putJson(key, { ...quote, overrun });
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
  await deps.batchRecords.failFile(batchId, failure);
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
  const batch = await startBatch(upload, deps);
  if ('outcome' in batch) return batch;
  // Pass 1: the whole file must be usable before anything is queued.
  const check = await checkWholeFile(upload.key, batch.batchId, deps);
  if ('failure' in check) return refuseFile(batch.batchId, check.failure, deps);
  // Pass 2: write rows and queue unique valid documents, chunk by chunk.
  const written = await writeAndQueueRows(upload, batch, check, deps);
  return finishBatch(batch, written, deps);
}

/** What the ingest of one batch settles before it reads the file. */
interface IngestBatch {
  readonly batchId: string;
  readonly bureau: Bureau;
  /** How old a reused report may be, in hours (0: never reuse). */
  readonly freshnessHours: number;
  readonly lane: DeliveryLane;
  /** The last row a previous attempt wrote and queued (0 for a first attempt). */
  readonly checkpoint: number;
  /** Rows a previous attempt settled `cached`, up to its checkpoint. */
  readonly cachedBefore: number;
  /** A batch that would buy more than this waits for a person (null: never). */
  readonly threshold: number | null;
}

/** Creates the batch (or finds the one a previous attempt created); an outcome when there is nothing to ingest. */
async function startBatch(
  upload: UploadedObject,
  deps: IngestDependencies,
): Promise<IngestBatch | IngestOutcome> {
  const { batchRecords, objects, logger, settings } = deps;
  const bureau = upload.portfolio?.bureau ?? bureauForKey(upload.key, settings.defaultBureau);
  // A portfolio says how old a reused report may be (by default it asks again); an upload uses the deployment's.
  const freshnessHours = upload.portfolio ? upload.portfolio.freshnessHours : (settings.freshnessHours ?? 0);
  const lane = deliveryLaneFor({ key: upload.key, portfolio: upload.portfolio?.name ?? null });
  const batchId = batchIdFor(upload);
  const metadata = upload.portfolio ? {} : await objects.metadataOf(upload.key);
  if (metadata[ERASED_METADATA] !== undefined) {
    // An erasure rewrote a list that was screened already (in AWS its rewrite is a new upload event): its rows
    // were screened as their batch, and screening the rest again would buy them twice.
    logger.info('list rewritten by an erasure: not screened again', { batchId, key: upload.key });
    return { batchId, outcome: 'already_ingested' };
  }
  // An upload may cap what its batch buys; a portfolio run is bounded by the monthly cap alone.
  const maxCharges = upload.portfolio ? null : maxChargesOf(metadata);
  const policy = await choosePolicy(
    batchId,
    { metadata, portfolio: upload.portfolio?.policy ?? null, fallback: settings.defaultPolicy ?? null },
    objects,
  );
  const created = await batchRecords.createBatch({
    batchId,
    sourceBucket: upload.bucket,
    sourceKey: upload.key,
    sourceName: sourceNameOf(metadata),
    bureau,
    excelSummary: settings.excelSummary,
    portfolio: upload.portfolio?.name ?? null,
    maxCharges: maxCharges === 'invalid' ? 0 : maxCharges,
    freshnessHours,
    policy: policy.kind === 'policy' ? policy.policy : null,
    bureauEndpoint: settings.bureauEndpoint ?? null,
  });
  const existing = created ? null : await batchRecords.getBatch(batchId);
  if (existing && existing.status !== 'ingesting') {
    logger.info('upload already ingested', { batchId });
    return { batchId, outcome: 'already_ingested' };
  }
  if (maxCharges === 'invalid') {
    // A cap that cannot be read is not taken for no cap: the file is refused and nothing is bought.
    return refuseFile(batchId, INVALID_MAX_CHARGES, deps);
  }
  if (policy.kind === 'refused') return refuseFile(batchId, policy.failure, deps);
  await keepPolicyCopy(policy, objects);
  const checkpoint = existing?.ingestCheckpoint ?? 0;
  logger.info('ingest started', { batchId, key: upload.key, bureau, lane, resumingAfterRow: checkpoint });
  return {
    batchId,
    bureau,
    freshnessHours,
    lane,
    checkpoint,
    cachedBefore: existing?.ingestCached ?? 0,
    // Scheduled portfolio runs were approved when they were set up: the monthly cap bounds them, not a person.
    threshold: upload.portfolio ? null : (settings.approval?.threshold ?? null),
  };
}

/** What the first pass learnt of a usable file. */
/** What the second pass wrote. */
interface WrittenRows {
  readonly counts: IntakeCounts;
  /** Rows settled `cached` (a fresh stored report reused), previous attempts included. */
  readonly cached: number;
  /** Messages were held until the quote says whether the batch waits for approval. */
  readonly heldMessages: boolean;
}

/**
 * Pass 2: writes every row and queues the unique valid documents, a chunk at a time. When the batch might need
 * approval (more valid rows than the threshold), messages are held until its quote says whether it does.
 */
async function writeAndQueueRows(
  upload: UploadedObject,
  batch: IngestBatch,
  check: FileCheck,
  deps: IngestDependencies,
): Promise<WrittenRows> {
  const heldMessages = batch.threshold !== null && check.validRows > batch.threshold;
  const hash = createHash('sha256');
  const list = await openCustomerList(hashing(deps.objects.read(upload.key), hash), {
    maxRows: deps.settings.maxRows,
  });
  const writer = new ChunkWriter(batch, { heldMessages, chunkRows: deps.settings.chunkRows }, deps);
  const tally = new IntakeTally();
  for await (const row of list.rows) {
    tally.add(row);
    await writer.add(row);
  }
  await writer.flush();
  if (hash.digest('hex') !== check.sha256) {
    // The object changed between the passes (overwritten in place): let S3's retry start over on the new one.
    throw new Error(`s3://${upload.bucket}/${upload.key} changed while it was being ingested`);
  }
  return { counts: tally.counts, cached: writer.cached, heldMessages };
}

/**
 * The second pass's batching state: the chunk being gathered, whether the half-written chunk after a previous
 * attempt's checkpoint was reconciled yet, and the rows settled `cached` so far (saved with each checkpoint).
 */
class ChunkWriter {
  #chunk: CustomerRow[] = [];
  #resumed = false;
  #cached: number;
  readonly #chunkRows: number;

  constructor(
    private readonly batch: IngestBatch,
    private readonly options: { readonly heldMessages: boolean; readonly chunkRows?: number },
    private readonly deps: IngestDependencies,
  ) {
    this.#cached = batch.cachedBefore;
    this.#chunkRows = options.chunkRows ?? DEFAULT_CHUNK_ROWS;
  }

  get cached(): number {
    return this.#cached;
  }

  async add(row: CustomerRow): Promise<void> {
    this.#chunk.push(row);
    if (this.#chunk.length >= this.#chunkRows) await this.flush();
  }

  /** Writes the chunk's rows past the checkpoint, queues their documents, and moves the checkpoint. */
  async flush(): Promise<void> {
    const chunk = this.#chunk;
    if (chunk.length === 0) return;
    const last = (chunk.at(-1) as CustomerRow).row;
    if (last > this.batch.checkpoint) {
      const { batchId, bureau, freshnessHours } = this.batch;
      const { fresh, requeue } = await this.#rowsToWrite(chunk);
      const rows = await reuseFreshReports(fresh, bureau, freshnessHours, this.deps);
      this.#cached += rows.filter((row) => row.state === 'cached').length;
      await this.deps.batchRows.writeRows(batchId, rows);
      if (!this.options.heldMessages)
        await this.deps.queue.sendWork(this.#messagesFor([...rows, ...requeue]));
      await this.deps.batchRecords.saveIngestCheckpoint(batchId, last, this.#cached);
    }
    this.#chunk = [];
  }

  /**
   * The chunk's rows past the checkpoint. The first chunk after a checkpoint may be half written: rows already
   * there are kept as they are (a worker may have touched them), and those still queued are queued again.
   */
  async #rowsToWrite(chunk: readonly CustomerRow[]): Promise<{ fresh: NewRow[]; requeue: NewRow[] }> {
    const rows = chunk.filter((row) => row.row > this.batch.checkpoint).map(newRow);
    if (this.batch.checkpoint === 0 || this.#resumed) return { fresh: rows, requeue: [] };
    this.#resumed = true;
    const existingRows = await this.deps.batchRows.getRows(
      this.batch.batchId,
      rows.map((row) => row.row),
    );
    const written = new Set(existingRows.map((row) => row.row));
    const stillQueued = new Set(existingRows.filter((row) => row.state === 'queued').map((row) => row.row));
    this.#cached += existingRows.filter((row) => row.state === 'cached').length;
    return {
      fresh: rows.filter((row) => !written.has(row.row)),
      requeue: rows.filter((row) => stillQueued.has(row.row)),
    };
  }

  /** One work message per queued row with a document. */
  #messagesFor(rows: readonly NewRow[]): WorkMessage[] {
    const { batchId, bureau, lane } = this.batch;
    return rows
      .filter((row) => row.state === 'queued' && row.document !== null)
      .map((row) => ({ version: 1, batchId, row: row.row, document: row.document as string, bureau, lane }));
  }
}

/** Quotes the batch, holds it for approval or lets it run, and records the ingest as finished. */
async function finishBatch(
  batch: IngestBatch,
  written: WrittenRows,
  deps: IngestDependencies,
): Promise<IngestOutcome> {
  const { batchRecords, queue, logger, settings } = deps;
  const { batchId, bureau, threshold } = batch;
  const { counts } = written;
  const quote = quoteOf({
    bureau,
    unique: counts.unique,
    reusable: written.cached,
    pricePerQuery: settings.approval?.pricePerQuery[bureau] ?? 0,
    ratePerSecond: settings.approval?.ratePerSecond[bureau] ?? 1,
  });
  const awaitingApproval = threshold !== null && quote.to_buy > threshold;
  const { approval } = settings;
  const limit = approval?.longestBatchSeconds;
  const overrun = limit === undefined ? null : overrunOf(quote, approval?.ratePerSecond[bureau] ?? 1, limit);
  // A batch that runs at once is told in the log only: nobody is asked (the threshold is off or not reached).
  if (overrun !== null) logger.warn('batch queries would outlast its queue', { batchId, ...overrun });
  if (awaitingApproval) await announceAwaitingApproval(batchId, quote, overrun, deps);
  // Held messages are asked for before the batch runs, from the dispatcher, in parts (sending a million of them
  // here would outlast ingest): a retried ingest finds the batch still ingesting and asks again, harmlessly.
  else if (written.heldMessages) await dispatchParts(batchId, counts.rows, queue);
  const totals = {
    rows: counts.rows,
    invalid: counts.invalid,
    duplicates: counts.duplicates,
    toScreen: counts.unique,
    cached: written.cached,
  };
  await batchRecords.finishIngest(batchId, totals, { quote, awaitingApproval });
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
  await finaliseIfLast(batchId, { batchRecords, queue });
  return { batchId, outcome: 'queued', rows: counts.rows, toScreen: counts.unique };
}
