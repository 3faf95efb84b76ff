import { setTimeout as sleep } from 'node:timers/promises';
import type {
  BatchRecord,
  CallOutcome,
  RetryPolicy,
  RowRecord,
  Settlement,
  WorkMessage,
} from '../../domain/batch/index.ts';
import { BureauCallError } from '../../domain/bureau/index.ts';
import { maskDocument } from '../../domain/documents/index.ts';
import type {
  AuditLog,
  BatchRecords,
  BatchRows,
  BureauGateway,
  ChargeBudget,
  CreditPolicyLoader,
  DocumentKeys,
  DocumentPurchases,
  EventPublisher,
  Logger,
  MessageVisibility,
  ObjectStore,
  PurchaseHolder,
  RateLimiter,
  RowRelease,
  TokenProbes,
  WorkQueue,
} from '../../domain/ports/index.ts';
import type { Bureau } from '../../domain/report/index.ts';
import type { CallSlots } from './call-slots.ts';

export interface WorkerSettings {
  readonly retry: RetryPolicy;
  /** How long a claim on a row lasts (a crash frees the row after this); a document's purchase lasts as long. */
  readonly claimLeaseSeconds: number;
  readonly callsPerInvocation: number;
  /** 429s retried inside one invocation (waiting on the shared bucket) before the message goes back to the queue. */
  readonly rateLimitRetriesPerInvocation: number;
  /** How long a worker waits for another worker's token probe before giving its message back. */
  readonly probeWaitSeconds: number;
  /** Timeout of one bureau call; no call starts later than this before the invocation's deadline. */
  readonly bureauTimeoutSeconds: number;
  /**
   * Buy again, without asking, a row whose call left and whose answer was lost (see the pipeline setting of this
   * name). Off or absent: the row settles `failed`, charge unknown, for the user to decide.
   */
  readonly rebuyChargeUnknown?: boolean;
  /** Most queries per bureau per month (null: no cap); the batch's own cap comes with the batch. */
  readonly monthlyChargeCap: Readonly<Record<Bureau, number | null>>;
  /** Where this worker's bureau calls go: a batch started against another endpoint is not screened here. */
  readonly bureauEndpoint?: string;
  /** What each bureau request's audit entry says of why it was made. */
  readonly audit: { readonly purpose: string; readonly legalBasis: string };
}

export interface WorkerDependencies {
  readonly batchRecords: Pick<BatchRecords, 'getBatch' | 'claimFinalisation'>;
  readonly batchRows: BatchRows;
  readonly tokenProbes: TokenProbes;
  readonly purchases: DocumentPurchases;
  readonly objects: ObjectStore;
  readonly bureau: BureauGateway;
  readonly limiter: RateLimiter;
  readonly budget: ChargeBudget;
  readonly events: EventPublisher;
  readonly queue: WorkQueue;
  readonly visibility: MessageVisibility;
  readonly logger: Logger;
  readonly settings: WorkerSettings;
  /**
   * Compiles batch policies, so that a row is decided as it settles, with its report in hand; without it (or when
   * the batch's policy cannot be opened) the finaliser decides the row.
   */
  readonly policyLoader?: CreditPolicyLoader;
  /** The audit log and the keyed hash that names documents in it: every request and decision is recorded. */
  readonly audit?: { readonly log: AuditLog; readonly documentKeys: DocumentKeys };
  readonly now?: () => number;
  readonly random?: () => number;
}

/** What became of one message: done (delete it), or back to the queue after `delaySeconds`. */
export type Outcome =
  | { readonly done: true }
  | { readonly done: false; readonly delaySeconds: number | null };
export const DONE: Outcome = { done: true };
export const retryAfter = (delaySeconds: number | null): Outcome => ({ done: false, delaySeconds });

/** What one invocation shares between its messages. */
export interface Invocation {
  /** Batch records read once per invocation (most messages of an invocation belong to the same batch). */
  readonly batches: Map<string, Promise<BatchRecord | null>>;
  /** Batches in which this invocation settled rows, to check once at the end whether they are complete. */
  readonly settledBatches: Set<string>;
  /** Bounds the bureau calls in flight in this invocation (`callsPerInvocation`), each behind its token. */
  readonly calls: CallSlots;
}

export function describe(error: unknown): Record<string, unknown> {
  if (error instanceof BureauCallError) return error.toJSON();
  return error instanceof Error ? { name: error.name, message: error.message } : { value: String(error) };
}

export const logFields = (message: WorkMessage) => ({
  batchId: message.batchId,
  row: message.row,
  document: maskDocument(message.document),
});

/** Settles retried within the invocation before the row is given back: a paid answer is never dropped lightly. */
const SETTLE_ATTEMPTS = 4;
export const SETTLE_BACKOFF_MS = 100;

/**
 * A row this worker holds: it settles or releases the row under its claim, and remembers what became of its
 * bureau call, so that whatever happens the row's charge evidence stays true. Once it holds its document's
 * purchase, it gives that up when it settles without a paid answer, so a row of another batch may buy it.
 */
export class HeldRow {
  /**
   * What became of this holder's call so far: `unknown` while an inherited call is unresolved, and once a paid
   * answer is persisted and not yet settled (the next holder must look for it).
   */
  call: CallOutcome;
  uncertainCalls: number;
  /** When the call pending on the row was written ahead (epoch ms; see `RowRecord.callSentAt`), or null. */
  callSentAt: number | null;
  /** This row holds its document's purchase (see {@link DocumentPurchases}). */
  holdsPurchase = false;
  /** The purchase's answer is recorded: it answers other batches now, and is never given up. */
  answerShared = false;

  constructor(
    readonly message: WorkMessage,
    /** The row's batch, as this invocation read it: its policy decides the row's report. */
    readonly batch: BatchRecord,
    readonly claimToken: string,
    readonly row: RowRecord,
    /** The previous holder left a call unaccounted for: its answer may be waiting under the row's key. */
    readonly inheritedCall: boolean,
    readonly deps: WorkerDependencies,
    readonly invocation: Invocation,
  ) {
    this.uncertainCalls = row.uncertainCalls;
    this.call = inheritedCall ? 'unknown' : 'not_sent';
    this.callSentAt = row.callSentAt ?? null;
  }

  get log() {
    return logFields(this.message);
  }

  get purchaseHolder(): PurchaseHolder {
    return { batchId: this.message.batchId, row: this.message.row };
  }

  /**
   * Settles the row, retrying what fails (a transaction conflict that outlasted the store's own retries, throttling,
   * a 500). If it still fails, the row is given back with what is known of the call: a persisted answer is then
   * found by the next holder, not bought again.
   */
  async settle(settlement: Settlement): Promise<Outcome> {
    const { batchRows, logger } = this.deps;
    for (let attempt = 1; ; attempt++) {
      try {
        const settled = await batchRows.settleRow(
          this.message.batchId,
          this.message.row,
          this.claimToken,
          settlement,
        );
        if (!settled)
          logger.warn(
            'claim lost before settling (lease expired); the other holder settles the row',
            this.log,
          );
        // Checked even when the claim was lost: a settle that went through on an attempt that seemed to fail
        // looks the same, and may have been the batch's last.
        this.invocation.settledBatches.add(this.message.batchId);
        await this.givePurchaseUp();
        return DONE;
      } catch (error) {
        if (attempt >= SETTLE_ATTEMPTS) {
          logger.error('could not settle the row; it is given back with its call recorded', {
            ...this.log,
            error: describe(error),
          });
          await this.release({ call: this.call, transientFailure: false }).catch(() => undefined);
          return retryAfter(1);
        }
        await sleep(SETTLE_BACKOFF_MS * 2 ** (attempt - 1) * (0.5 + (this.deps.random ?? Math.random)()));
      }
    }
  }

  /**
   * Gives the row back. A call that left unanswered stays pending unless the customer buys such calls again: the
   * next holder then settles the row charge unknown instead of buying it (whatever path gave the row back: a
   * failed settle, a helper that threw on the way).
   */
  async release(release: RowRelease): Promise<void> {
    const keepPending = release.call === 'unanswered' && !this.deps.settings.rebuyChargeUnknown;
    await this.deps.batchRows.releaseRow(
      this.message.batchId,
      this.message.row,
      this.claimToken,
      keepPending ? { ...release, call: 'unknown' } : release,
    );
  }

  /**
   * Keeps the document's purchase while this row waits `seconds` to try again (a 429, a transient failure), and
   * for a claim's lease after that: no other batch buys the document meanwhile.
   */
  async keepPurchaseFor(seconds: number): Promise<void> {
    if (!this.holdsPurchase || this.answerShared) return;
    const { message, deps } = this;
    const until = (deps.now ?? Date.now)() + (seconds + deps.settings.claimLeaseSeconds) * 1000;
    await deps.purchases
      .extend(message.bureau, message.document, this.purchaseHolder, until)
      .catch((error: unknown) => {
        deps.logger.warn('could not keep the document purchase; it ends with its lease', {
          ...this.log,
          error: describe(error),
        });
      });
  }

  /** Gives up an unanswered purchase: this row will not buy the document (it settled without a paid answer). */
  async givePurchaseUp(): Promise<void> {
    if (!this.holdsPurchase || this.answerShared) return;
    const { message, deps } = this;
    this.holdsPurchase = false;
    await deps.purchases
      .release(message.bureau, message.document, this.purchaseHolder)
      .catch((error: unknown) => {
        deps.logger.warn('could not give the document purchase up; it ends with its lease', {
          ...this.log,
          error: describe(error),
        });
      });
  }
}
