import type { Decision } from '../decision/index.ts';
import type { DocumentType } from '../documents/index.ts';
import type { Bureau, NormalisedReport, ReportColumns } from '../report/index.ts';
import type { Quote } from '../spend/quote.ts';
import { type ChargeState, chargeStateOf } from './charge-state.ts';

/** Life of a batch: rows are written and queued, then screened, then its results are written once. */
export type BatchStatus =
  | 'ingesting'
  | 'awaiting_approval'
  | 'running'
  | 'finalising'
  | 'completed'
  | 'failed';

/** What a person decided about a batch that waited for approval; null for a batch that needed none. */
export type ApprovalDecision = 'approved' | 'rejected';

/** Status detail of the rows of a batch whose approval was refused: nothing was bought. */
export const NOT_APPROVED_DETAIL = 'not queried: the batch was not approved';

/**
 * Whether the bureau token has been seen to work for this batch. Until it has, only one request at a time (the
 * probe) may go out, so a wrong token costs one request, not a worker fleet's worth.
 */
type TokenState = 'unverified' | 'verified' | 'rejected';

export interface FileFailure {
  readonly code: string;
  readonly message: string;
}

export interface BatchLayout {
  /** Headers of the columns documents were read from (a CPF and a CNPJ column when the file keeps them apart). */
  readonly documentColumns: readonly string[];
  readonly passThroughColumns: readonly string[];
  readonly encoding: string;
  readonly delimiter: string | null;
  readonly hasHeader: boolean;
}

/** The policy a batch is decided with: its name, the hash of its exact bytes, and where its copy is kept. */
export interface BatchPolicy {
  readonly name: string;
  readonly sha256: string;
  /** The batch's own copy (`work/<batchId>/policy.json`). */
  readonly key: string;
}

export interface BatchRecord {
  readonly batchId: string;
  readonly sourceBucket: string;
  readonly sourceKey: string;
  readonly sourceSha256: string | null;
  /**
   * The customer's file name, as the upload's metadata gave it (masked, see src/contract/source-name.ts), for the
   * report's title; null or absent when none was given (a portfolio, an upload without it, an older batch).
   */
  readonly sourceName?: string | null;
  readonly bureau: Bureau;
  readonly createdAt: string;
  readonly status: BatchStatus;
  /** Why the whole file was refused (no document column, too many rows, …); null otherwise. */
  readonly failure: FileFailure | null;
  readonly layout: BatchLayout | null;
  readonly excelSummary: boolean;
  /** The portfolio this batch re-screens (it then writes a change report); null for an upload. */
  readonly portfolio: string | null;
  readonly rows: number;
  readonly invalid: number;
  readonly duplicates: number;
  /** Unique valid documents queued; null until ingest has finished. */
  readonly toScreen: number | null;
  readonly settled: number;
  readonly screened: number;
  readonly cached: number;
  readonly failed: number;
  /** Rows cancelled before they were screened. */
  readonly cancelled: number;
  /** Rows never sent to the bureau because a spending cap was reached (or the batch was not approved). */
  readonly notQueried: number;
  /** Most queries this batch may buy (the upload's own cap); null for no cap of its own. */
  readonly maxCharges: number | null;
  /**
   * How old a report bought for another batch may be and still be reused by this one's workers (0: only a purchase
   * made since this batch was created). Batches stored before it was recorded read 0.
   */
  readonly freshnessHours: number;
  /** The credit policy that decides the batch's rows; null for a batch screened without one. */
  readonly policy: BatchPolicy | null;
  /**
   * The bureau endpoint the batch was started against (`bureauEndpointOf`, never the token): only a pipeline calling
   * it continues the batch. Null or absent for batches stored before it was recorded.
   */
  readonly bureauEndpoint?: string | null;
  /**
   * What ingest quoted for the batch (what it would buy, at the price per query it was started with, at what cost):
   * later quotes of the batch (a redrive's, its last lines) use its price. Null for batches stored before quotes.
   */
  readonly quote: Quote | null;
  readonly approval: ApprovalDecision | null;
  /**
   * Who approved or rejected the batch, as the console's sign-in names them; null when not decided, or decided from
   * the command line (whose user the pipeline cannot authenticate).
   */
  readonly approvalBy: string | null;
  /** Someone asked to cancel the batch: queued rows are settled `cancelled`, the rest finish. */
  readonly cancelRequested: boolean;
  /** 1, then one more for each redrive (the manifest carries it). */
  readonly revision: number;
  /**
   * A redrive is sending the failed rows back. Until it is done the counts can still fall (a requeued row stops
   * counting as failed), so the batch must not be finalised even when every row looks settled.
   */
  readonly requeuing: boolean;
  /** Last data row whose item is written and whose message is sent (resuming an interrupted ingest). */
  readonly ingestCheckpoint: number;
  /** Rows settled as `cached` by ingest up to the checkpoint (a fresh stored report was reused). */
  readonly ingestCached: number;
  readonly tokenState: TokenState;
  readonly completedAt: string | null;
  /**
   * When the batch's queued rows were last given work messages after ingest (an approval, a redrive, a dispatch
   * renewed before the messages could expire); null: only ingest gave them, from `createdAt` on.
   */
  readonly messagesSentAt: string | null;
}

/** States of a row item. The first four are the life of a document to screen; the last two are settled at ingest. */
export type RowState =
  | 'queued'
  | 'claimed'
  | 'screened'
  | 'cached'
  | 'failed'
  | 'invalid_document'
  | 'duplicate'
  | 'cancelled'
  | 'not_queried';

export const SETTLED_STATES: readonly RowState[] = [
  'screened',
  'cached',
  'failed',
  'invalid_document',
  'duplicate',
  'cancelled',
  'not_queried',
];

/** Where a report is kept: one item per bureau, document and date, so the previous report is always known. */
export interface ReportKey {
  readonly bureau: Bureau;
  readonly document: string;
  readonly fetchedAt: string;
}

/** One string per report key, to match reports fetched in bulk to the rows that point at them. */
export const reportKeyId = (key: ReportKey): string => `${key.bureau}#${key.document}#${key.fetchedAt}`;

export interface StoredReport {
  readonly key: ReportKey;
  readonly report: NormalisedReport;
  /** S3 key of the archived raw response. */
  readonly rawKey: string;
}

/** A data row as ingest writes it. */
export interface NewRow {
  readonly row: number;
  readonly input: string;
  readonly document: string | null;
  readonly documentType: DocumentType | null;
  /** `cached`: a report younger than the freshness window was found at ingest and is reused; nothing is queued. */
  readonly state: 'queued' | 'cached' | 'invalid_document' | 'duplicate';
  readonly detail: string | null;
  readonly duplicateOf: number | null;
  readonly passThrough: readonly string[];
  /** For a `cached` row: the reused report's figures and where it is kept. */
  readonly report?: ReportColumns | null;
  readonly reportKey?: ReportKey | null;
  /**
   * What the batch's policy decided on the row's report when it settled, so the finaliser does not decide it again;
   * absent or null when it was not decided then (no policy, the policy could not be opened, a row reused at ingest).
   */
  readonly decision?: Decision | null;
}

export interface RowRecord extends Omit<NewRow, 'state' | 'report' | 'reportKey'> {
  readonly batchId: string;
  readonly state: RowState;
  readonly attempts: number;
  readonly transientFailures: number;
  readonly report: ReportColumns | null;
  readonly reportKey: ReportKey | null;
  /**
   * A holder of the row may have sent a bureau call whose outcome is not recorded yet. Set by every claim, cleared
   * when the holder settles or releases the row knowing what became of its call; still set after a crash, so the
   * next holder looks for a persisted answer before paying for another one.
   */
  readonly callPending: boolean;
  /**
   * When the pending call was written ahead (epoch ms): the instant its audit entry records, so that every holder
   * or handler that finds the call unanswered records one and the same entry. Absent on rows written before it.
   */
  readonly callSentAt?: number | null;
  /** Calls for this row whose answer never reached us (see {@link ChargeEvidence}). */
  readonly uncertainCalls: number;
  /** The bureau answered this row with a report (it was charged). */
  readonly answered: boolean;
  /**
   * When the row's personal data was erased on its subject's request (ISO 8601); absent or null otherwise. An erased
   * row keeps its state and charge evidence, with no document, input, report or decision.
   */
  readonly erasedAt?: string | null;
}

/** The charge state of a row from what its item records. A call still pending when the row settled is uncertain. */
export const chargeStateOfRow = (row: RowRecord): ChargeState =>
  chargeStateOf({
    answered: row.answered,
    uncertainCalls: row.uncertainCalls + (row.callPending ? 1 : 0),
  });

/**
 * Which failed rows a redrive sends back to the bureau. `not_charged` (the default): rows no call of which may have
 * been charged. `charge_unknown`: rows with a call whose answer was lost, which the bureau may have charged already;
 * they are bought again only when the user says so (`redrive --charge-unknown`, quoted first). A failed row that
 * was charged (an answer too large to read) is never sent back: buying it again buys the same answer.
 */
export type RedriveSelection = 'not_charged' | 'charge_unknown';

/** Whether a redrive of `selection` sends this row back (a failed row with its document, of that charge state). */
export const isRedrivable = (row: RowRecord, selection: RedriveSelection): boolean =>
  row.state === 'failed' && row.document !== null && chargeStateOfRow(row) === selection;

/**
 * How a queued document ends. `answered` says whether the bureau answered it with a report (so it was charged):
 * always for `screened`, sometimes for `failed` (an answer too large to read is charged all the same).
 */
export type Settlement =
  | { readonly outcome: 'screened'; readonly report: StoredReport; readonly decision?: Decision | null }
  /** Another batch's purchase of the same document answered this row: nothing was bought for it. */
  | { readonly outcome: 'cached'; readonly report: StoredReport; readonly decision?: Decision | null }
  | { readonly outcome: 'failed'; readonly reason: string; readonly answered?: boolean }
  | { readonly outcome: 'cancelled'; readonly reason: string }
  | { readonly outcome: 'not_queried'; readonly reason: string };

/** The batch counter a settled outcome adds to. */
export const counterOf = (
  outcome: Settlement['outcome'],
): 'screened' | 'cached' | 'failed' | 'cancelled' | 'notQueried' =>
  outcome === 'not_queried' ? 'notQueried' : outcome;

/** The report a settlement stores on its row (a screened or a shared one); null for the others. */
export const settlementReport = (settlement: Settlement): StoredReport | null =>
  settlement.outcome === 'screened' || settlement.outcome === 'cached' ? settlement.report : null;

/** What the batch's policy decided on a settlement's report, when the holder decided it; else null. */
export const settlementDecision = (settlement: Settlement): Decision | null =>
  settlement.outcome === 'screened' || settlement.outcome === 'cached' ? (settlement.decision ?? null) : null;

/** Whether a settlement records a paid answer. */
export const settlementAnswered = (settlement: Settlement): boolean =>
  settlement.outcome === 'screened' || (settlement.outcome === 'failed' && settlement.answered === true);

/**
 * What became of the call of a holder that gives its row back, which decides the row's charge evidence:
 * `not_sent`: no call went out; `answered`: the bureau answered without a report (429, 5xx), nothing charged;
 * `unanswered`: the call went out and no answer came (a timeout), it may have been charged; `unknown`: the holder
 * cannot tell (the sweeper releasing a dead worker's claim, or an answer persisted whose settle failed), so the
 * next holder inherits the pending call and looks for a persisted answer.
 */
export type CallOutcome = 'not_sent' | 'answered' | 'unanswered' | 'unknown';

/** Status detail of a row settled by a cancellation: it was never sent to the bureau. */
export const CANCELLED_DETAIL = 'batch cancelled before this document was screened';
/**
 * A row whose bureau call left and whose answer was lost with the process that sent it (killed, out of time): the
 * bureau may have charged it, so it is not bought again without the user's say (`redrive --charge-unknown` buys it).
 */
export const CHARGE_UNKNOWN_DETAIL =
  'its bureau call left and the answer was lost (the process stopped or failed): it may have been charged, so it is not bought again automatically; redrive the batch with --charge-unknown to buy it again';

/** Status detail of a row whose call left and got no answer (a timeout): it may have been charged. */
export const noAnswerDetail = (failure: string): string =>
  `its bureau call got no answer (${failure}): it may have been charged, so it is not bought again automatically; redrive the batch with --charge-unknown to buy it again`;

/** Status detail of a row whose batch was started against another bureau endpoint: nothing was sent for it. */
export const otherEndpointDetail = (endpoint: string): string =>
  `its batch was started against ${endpoint}, not the bureau this pipeline calls: nothing was sent (continue the batch where it was started)`;

/** The status detail of a row that reuses a stored report. */
export const cachedDetail = (report: StoredReport): string => `report of ${report.key.fetchedAt} reused`;

/** The status detail a settlement leaves on its row: none for a screened row, the reuse or the reason otherwise. */
export function settlementDetail(settlement: Settlement): string | null {
  if (settlement.outcome === 'screened') return null;
  if (settlement.outcome === 'cached') return cachedDetail(settlement.report);
  return settlement.reason;
}

/** The result of a finished batch, as the manifest and the `BatchCompleted` event carry it. */
export interface BatchCounts {
  readonly rows: number;
  readonly screened: number;
  readonly cached: number;
  readonly duplicate: number;
  readonly invalid_document: number;
  readonly failed: number;
  readonly cancelled: number;
  readonly not_queried: number;
}
