/**
 * The small interfaces the pipeline's use cases need from the outside world. The AWS adapters implement them
 * (DynamoDB, S3, SQS, EventBridge, the bureau's HTTP API); the use cases never import an SDK.
 */
import type {
  ApprovalDecision,
  BatchLayout,
  BatchPolicy,
  BatchRecord,
  CallOutcome,
  FileFailure,
  NewRow,
  ReportKey,
  RowRecord,
  Settlement,
  StoredReport,
} from '../batch/batch-model.ts';
import type { ClaimedRow } from '../batch/stuck-rows.ts';
import type { DispatchMessage, FinaliseMessage, RowRange, WorkMessage } from '../batch/work-message.ts';
import type { BureauCallError } from '../bureau/index.ts';
import type { RequestSlot } from '../rate-limit/index.ts';
import type { Bureau } from '../report/index.ts';
import type { Quote } from '../spend/index.ts';

export type * from './event-publisher.ts';
export type * from './review-cases.ts';
export type * from './spending.ts';
export type * from './upload-tickets.ts';

export interface NewBatch {
  readonly batchId: string;
  readonly sourceBucket: string;
  readonly sourceKey: string;
  /** The customer's file name, masked (see `BatchRecord.sourceName`); absent or null when unknown. */
  readonly sourceName?: string | null;
  readonly bureau: Bureau;
  readonly excelSummary: boolean;
  /** The portfolio this batch re-screens; absent for an upload. */
  readonly portfolio?: string | null;
  /** Most queries this batch may buy (from the upload); absent or null for no cap of its own. */
  readonly maxCharges?: number | null;
  /** How old a reused report may be (see `BatchRecord.freshnessHours`); absent is 0. */
  readonly freshnessHours?: number;
  /** The policy that decides the batch; absent or null for none. */
  readonly policy?: BatchPolicy | null;
  /** Where its bureau calls go (see `BatchRecord.bureauEndpoint`); absent or null when not said. */
  readonly bureauEndpoint?: string | null;
}

/** The quote ingest made of a batch, and whether the batch must wait for approval because of it. */
export interface IngestQuote {
  readonly quote: Quote;
  readonly awaitingApproval: boolean;
}

export interface IngestTotals {
  readonly rows: number;
  readonly invalid: number;
  readonly duplicates: number;
  /** Unique valid documents: queued ones plus those settled as cached at ingest. */
  readonly toScreen: number;
  /** Of those, settled as cached at ingest. */
  readonly cached: number;
}

export type ClaimResult =
  | {
      readonly claimed: true;
      readonly claimToken: string;
      readonly row: RowRecord;
      /** The previous holder left a call unaccounted for (it crashed, or could not settle a persisted answer). */
      readonly inheritedCall: boolean;
    }
  /** Settled already (a duplicate delivery), or held by another worker whose lease is running. */
  | { readonly claimed: false; readonly row: RowRecord | null };

/**
 * Batch records: their life (see `BATCH_TRANSITIONS`), ingest's bookkeeping and the counts of settled rows.
 * Outside a redrive's requeuing, counts only grow while a batch runs.
 */
export interface BatchRecords {
  /** Creates the batch record; false when it exists already (the same upload event seen again). */
  createBatch(batch: NewBatch): Promise<boolean>;
  /** The batch with its counts, or null. */
  getBatch(batchId: string): Promise<BatchRecord | null>;
  /**
   * The most recently created batches, newest first; with `unfinishedOnly`, those of them not yet completed or
   * failed (a sweep then reads no finished batch's record or counts).
   */
  listBatches(limit: number, options?: { readonly unfinishedOnly?: boolean }): Promise<BatchRecord[]>;
  recordSourceCheck(batchId: string, sha256: string, layout: BatchLayout | null): Promise<void>;
  /** Refuses the whole file: no row is screened. */
  failFile(batchId: string, failure: FileFailure): Promise<void>;
  /** Moves the checkpoint, with the number of rows settled as cached so far. */
  saveIngestCheckpoint(batchId: string, row: number, cachedSoFar: number): Promise<void>;
  /**
   * Ends ingest: the batch runs, with its totals known (rows settled as cached at ingest count as settled), or
   * waits for approval with its quote.
   */
  finishIngest(batchId: string, totals: IngestTotals, quoted?: IngestQuote): Promise<void>;
  /** Records a person's decision on a batch awaiting approval, which then runs; false unless it was waiting. */
  decideApproval(batchId: string, decision: ApprovalDecision, by?: string | null): Promise<boolean>;
  /** Records that the batch is being cancelled (before its rows are). */
  markCancelRequested(batchId: string): Promise<void>;
  /**
   * Puts a completed batch back to running for a redrive, with the next revision, marked `requeuing`; false unless
   * it was completed.
   */
  reopenForRedrive(batchId: string): Promise<boolean>;
  /**
   * Records that a running batch's queued rows were given new messages now, unless someone did since `previous`
   * (the `messagesSentAt` the caller read); false then, or when the batch no longer runs.
   */
  renewMessages(batchId: string, previous: string | null): Promise<boolean>;
  /** Ends a redrive's requeuing: from now on the batch may be finalised when its rows are settled. */
  finishRequeue(batchId: string): Promise<void>;
  /**
   * Becomes the one finaliser of a running batch that is not requeuing; false for everyone else. The caller has
   * checked, on a read of the batch, that every row is settled: outside a redrive's requeuing, counts only grow
   * while a batch runs, so that read cannot be early.
   */
  claimFinalisation(batchId: string): Promise<boolean>;
  /** Marks the batch done; true only for the one caller that made the change (who then announces it). */
  completeBatch(batchId: string, manifestKey: string): Promise<boolean>;
}

/**
 * The token probe of a batch: until the bureau token has worked once, one request at a time.
 */
export interface TokenProbes {
  /** Tries to become the one request that proves the token for this batch (for a lease, in case it dies). */
  acquireTokenProbe(batchId: string, leaseSeconds: number): Promise<boolean>;
  /** Records what the probe learnt; a rejection is final. */
  markToken(batchId: string, state: 'verified' | 'rejected'): Promise<void>;
  releaseTokenProbe(batchId: string): Promise<void>;
}

/**
 * The rows of a batch, one per input row, and their life (see `ROW_TRANSITIONS`). Every change is conditional on
 * the row's state (and, for a holder, on its claim token), so repeated or late callers change nothing.
 */
export interface BatchRows {
  writeRows(batchId: string, rows: readonly NewRow[]): Promise<void>;
  /** Rows that exist among these numbers (resuming an interrupted ingest). */
  getRows(batchId: string, rows: readonly number[]): Promise<RowRecord[]>;
  /** Every row of a batch in input order, page by page; only those numbered within `range` when one is given. */
  rows(batchId: string, range?: RowRange): AsyncIterable<readonly RowRecord[]>;
  /** Takes a row for screening (conditional: queued, or claimed with an expired lease). */
  claimRow(batchId: string, row: number, leaseSeconds: number): Promise<ClaimResult>;
  /**
   * Gives a claimed row back (a transient failure, a 429, a failed settle), recording what became of the holder's
   * call (see {@link CallOutcome}); counts the transient failure when there was one.
   */
  releaseRow(batchId: string, row: number, claimToken: string, release: RowRelease): Promise<void>;
  /**
   * Writes ahead, on a held row, that its bureau call is about to leave: a holder that dies after this leaves the row
   * marked, so that the next one knows a call may have been charged (and one that dies before, that none was).
   * False when the claim is no longer this holder's (nothing may be sent then). `sentAtMs` is kept as the row's
   * `callSentAt`.
   */
  markCallSent(batchId: string, row: number, claimToken: string, sentAtMs: number): Promise<boolean>;
  /** Records on a held row that a call inherited from an earlier holder was never answered; false if not held. */
  recordUncertainCall(batchId: string, row: number, claimToken: string): Promise<boolean>;
  /**
   * Settles a claimed row, counts it on the batch and, for a screened row, stores its report, atomically; false
   * when the claim was lost meanwhile.
   */
  settleRow(batchId: string, row: number, claimToken: string, settlement: Settlement): Promise<boolean>;
  /**
   * Settles as failed a row whose message reached the dead-letter queue (queued or stuck in a claim), counting
   * it on the batch; false when it was settled already. `answered`: its answer had been persisted (charged).
   */
  settleAbandonedRow(
    batchId: string,
    row: number,
    abandoned: { readonly reason: string; readonly answered: boolean },
  ): Promise<boolean>;
  /**
   * Settles a row still queued without a bureau call (`cancelled`, or `not_queried` when its batch was not
   * approved); false when it was no longer queued.
   */
  withholdQueuedRow(
    batchId: string,
    row: number,
    withheld: { readonly outcome: 'cancelled' | 'not_queried'; readonly reason: string },
  ): Promise<boolean>;
  /**
   * Puts a failed row back in the queue state with fresh attempts; false when it was not failed (or its pending
   * call is not as the caller read it). A call still pending on it (a row the dead-letter handler settled) becomes
   * one of its uncertain calls: the row's next holder must not take it for a call of its own to settle.
   */
  requeueFailedRow(batchId: string, row: number, read?: { readonly callPending: boolean }): Promise<boolean>;
  /**
   * Rows of a batch held by a claim that ran out before `before` (epoch ms), oldest first. Read from an index that
   * may lag a moment behind: a caller acts on them only through conditional writes.
   */
  expiredClaims(batchId: string, before: number): Promise<ClaimedRow[]>;
}

/** Stored reports: one per bureau, document and date, so the previous one of a document is always known. */
export interface ReportHistory {
  /** The newest stored reports of many documents at once (ingest's freshness check), by document. */
  latestReports(bureau: Bureau, documents: readonly string[]): Promise<Map<string, StoredReport>>;
  /** Stored reports by key, for `reports.jsonl`. */
  getReports(keys: readonly ReportKey[]): Promise<Map<string, StoredReport>>;
  /** The report stored for the same bureau and document just before `key` (null for a first report). */
  previousReport(key: ReportKey): Promise<StoredReport | null>;
}

/**
 * The four batch stores seen as one (one DynamoDB table in AWS; memory in unit tests), for what reads across them:
 * the command line, the local runner, tests. Use cases and handlers never take it: each asks for the ports it uses.
 */
export interface BatchStore extends BatchRecords, TokenProbes, BatchRows, ReportHistory {}

/** How a holder gives its row back. */
export interface RowRelease {
  readonly call: CallOutcome;
  /** Count a transient failure against the row's attempts. */
  readonly transientFailure: boolean;
}

export interface ObjectStore {
  readonly bucket: string;
  /** The object's bytes as a stream. */
  read(key: string): AsyncIterable<Uint8Array>;
  /** A small object's text (settings files), or null when there is no such object. */
  readTextIfExists(key: string): Promise<string | null>;
  /** Whether an object exists. */
  exists(key: string): Promise<boolean>;
  /** An object's user metadata (S3's `x-amz-meta-*`, names in lower case). */
  metadataOf(key: string): Promise<Readonly<Record<string, string>>>;
  putJson(key: string, value: unknown): Promise<void>;
  /** Streams text, or bytes as they are (another object's), into an object (multipart for large ones). */
  writeStream(key: string, contentType: string, body: AsyncIterable<string | Uint8Array>): Promise<void>;
  /** The keys under a prefix, in key order. */
  list(prefix: string): AsyncIterable<string>;
  /**
   * Replaces an existing object's bytes, keeping its content type and user metadata (plus `metadata`), and leaves no
   * earlier version of it behind: what an erasure rewrites must not survive as an older version.
   */
  rewrite(key: string, bytes: Uint8Array, metadata?: Readonly<Record<string, string>>): Promise<void>;
  /** Removes an object with every version of it; nothing when it does not exist. */
  remove(key: string): Promise<void>;
}

export interface WorkQueue {
  /** Sends work messages in batches of ten, several calls in flight; resolves when all are accepted. */
  sendWork(messages: readonly WorkMessage[]): Promise<void>;
  /**
   * Sends one work message again, delivered after `delaySeconds` (at most 900, SQS's longest delay): a row that
   * waits for another batch's purchase comes back as a new message, so its waits never count towards the queue's
   * `maxReceiveCount`.
   */
  deferWork(message: WorkMessage, delaySeconds: number): Promise<void>;
  sendFinalise(message: FinaliseMessage): Promise<void>;
  /** Asks the dispatcher to send the work messages of a batch's queued rows (or of parts of them). */
  sendDispatch(messages: readonly DispatchMessage[]): Promise<void>;
}

/** One queue message as delivered to a function (the worker's and the dead-letter settler's input). */
export interface QueueRecord {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
}

/** Changes when an SQS message becomes visible again: the retry delay of a document. */
export interface MessageVisibility {
  delay(receiptHandle: string, seconds: number): Promise<void>;
}

/** The global rate limit across every worker, per bureau. */
export interface RateLimiter {
  /**
   * Waits for a request slot and returns it; rejects with the signal's reason if aborted while waiting. The caller
   * sends by the slot's `until`, or takes another slot (see `RequestSlot`).
   */
  acquire(bureau: Bureau, signal?: AbortSignal): Promise<RequestSlot>;
  /** Holds every worker off until `untilMs` (the upstream answered 429). */
  pauseUntil(bureau: Bureau, untilMs: number): Promise<void>;
}

export interface BureauResponse {
  readonly body: Readonly<Record<string, unknown>>;
  readonly httpStatus: number;
  readonly receivedAt: string;
}

/**
 * The credit bureau. Its failures are the domain's {@link BureauCallError} (dispatched on `kind`); the adapter
 * translates its HTTP client's errors into it. Anything else thrown is a fault of ours (a token that could not be
 * read, a bug), never an answer of the bureau.
 */
export interface BureauGateway {
  /**
   * Gets ready what a call needs before anything leaves (the token, read once): a failure here is ours, and no
   * request was sent. Absent: nothing to get ready.
   */
  prepare?(): Promise<void>;
  /** @throws {BureauCallError} when the bureau refused, limited, failed, or sent an answer too large to read */
  fetchReport(bureau: Bureau, document: string, options?: { signal?: AbortSignal }): Promise<BureauResponse>;
}

/** Minimal structured logger (Powertools-compatible); documents must be masked before they get here. */
export interface Logger {
  debug(message: string, details?: Record<string, unknown>): void;
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

/** A portfolio's recurring re-screen, as the scheduler keeps it. */
export interface PortfolioSchedule {
  readonly portfolio: string;
  /** `cron(…)` or `rate(…)`. */
  readonly expression: string;
  /** IANA time zone of a cron expression; null is UTC. */
  readonly timezone: string | null;
}

/** Where portfolio schedules live (EventBridge Scheduler in AWS). */
export interface PortfolioScheduler {
  /** Creates the portfolio's schedule, or updates it to this one. */
  put(schedule: PortfolioSchedule): Promise<void>;
  /** Deletes the portfolio's schedule; false when it had none. */
  remove(portfolio: string): Promise<boolean>;
}

/** Where the bureau token comes from: read when first needed and kept, never put in an environment variable. */
export interface TokenSource {
  token(): Promise<string>;
}

/**
 * A customer's credit policy, loaded and checked: it turns the decision input of a report into a decision. `decide`
 * never rejects and never approves by failure: an engine error, an answer without a decision or outside the
 * contract is a `review` with the reason `POLICY_ERROR` (see `src/domain/decision/`).
 */
export interface CreditPolicy {
  /** The policy's file name (or key), as the user named it. */
  readonly name: string;
  /** SHA-256 of the policy's exact bytes, hex: which policy decided. */
  readonly sha256: string;
  /** The customer columns the policy reads (`input.requested_amount` → `requested_amount`), to warn when a file lacks one. */
  readonly customerColumnsRead: readonly string[];
  decide(
    input: import('../decision/index.ts').DecisionInput,
  ): Promise<import('../decision/index.ts').Decision>;
}

/**
 * The append-only audit log: entries are added, read and expire with their retention; none is ever changed or
 * removed by the pipeline.
 */
export interface AuditLog {
  /** Adds entries; an entry already recorded (the same instant, batch, row and kind) is kept as it was. */
  append(entries: readonly import('../audit/index.ts').AuditEntry[]): Promise<void>;
  /** A document's entries, or a batch's (through its documents' keys), in time order. */
  read(query: import('../audit/index.ts').AuditQuery): Promise<import('../audit/index.ts').AuditEntry[]>;
}

/** Names a document in the audit log: a keyed hash only the deployment can compute, never the document itself. */
export interface DocumentKeys {
  keyOf(document: string): Promise<string>;
}

/**
 * People's final decisions on decided rows, kept beside their batch and append-only: an override is never updated
 * nor removed (a later one of the same row corrects it), so who decided what, and when, stays known.
 */
export interface DecisionOverrides {
  /** Records one override; refused when that row already has one recorded at the same instant. */
  recordOverride(override: import('../decision/index.ts').DecisionOverride): Promise<void>;
  /** Every override of a batch, in row order, then in the order they were recorded. */
  overridesOf(batchId: string): Promise<import('../decision/index.ts').DecisionOverride[]>;
}

/**
 * What an erasure (LGPD art. 18, VI) changes in the stores: it finds every row that holds a document, empties their
 * personal data, and deletes the document's stored reports, purchases and the overrides of its rows. Outside the
 * pipeline's own life on purpose: no function of the pipeline is given it, only the person who answers a request.
 */
export interface SubjectErasureStore {
  /**
   * Every row of every batch that holds the document (as its document, or in its input cell), wherever it is: one read of the whole table in DynamoDB (a
   * scan; erasure is rare and must not miss a row of a batch nobody remembers).
   */
  rowsHolding(document: string): Promise<RowRecord[]>;
  /** The document's stored reports, every bureau and date (their raw answers are erased with them). */
  reportsOf(document: string): Promise<StoredReport[]>;
  /**
   * Empties a settled row's personal data (document, input cell, customer columns, report, decision) and marks it
   * erased; its state, counts and charge evidence stay, so the batch still adds up. False unless the row is settled.
   */
  eraseRow(batchId: string, row: number, erasedAt: string): Promise<boolean>;
  /** Deletes every stored report of the document (dated and latest): the next screen of it is bought again. */
  eraseReports(document: string): Promise<number>;
  /** Deletes the document's purchases (their leases name it and point at its raw answers). */
  erasePurchases(document: string): Promise<number>;
  /**
   * Deletes the overrides and the review case of a row (a reason or a comment written about a person is personal
   * data too); how many items went.
   */
  eraseOverrides(batchId: string, row: number): Promise<number>;
}

/** A policy's loading: the policy and its warnings, or the one line that says why it was refused. */
export type CreditPolicyLoad =
  | {
      readonly ok: true;
      readonly policy: CreditPolicy;
      /** One line each, naming the field and the node: fields the decision input does not have (they read null). */
      readonly warnings: readonly string[];
    }
  | { readonly ok: false; readonly error: string };

/**
 * Reads a policy file's contents: refuses what is not a valid policy, before any report is bought (asynchronous: the
 * policy is tried on synthetic customers by its engine).
 */
export interface CreditPolicyLoader {
  load(name: string, contents: Uint8Array | string): Promise<CreditPolicyLoad>;
}

/**
 * Short-lived links to result files: presigned S3 URLs in AWS, one-time links the local console serves on a laptop.
 * The file is named by the link's download, never by a person's data.
 */
export interface DownloadLinks {
  linkTo(key: string, fileName: string): Promise<{ readonly url: string; readonly expiresAt: string }>;
}
