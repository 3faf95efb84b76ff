/**
 * What spending goes through: the caps every query reserves against, and the one purchase per bureau and document
 * that every batch shares.
 */
import type { Bureau } from '../report/index.ts';
import type { BudgetCaps, BudgetReservation, BudgetScope } from '../spend/index.ts';

/**
 * Spending caps that can never be exceeded: each query reserves one unit of budget, atomically, against its batch's
 * cap and its bureau's monthly cap before it is sent, and gives it back when the bureau did not charge it. Units
 * are counted even without a cap (they are the month's spend).
 */
export interface ChargeBudget {
  reserve(scope: BudgetScope, caps: BudgetCaps): Promise<BudgetReservation>;
  /** Returns the unit of a query the bureau did not charge (refused, 429, 5xx) or that was never sent. */
  giveBack(scope: BudgetScope): Promise<void>;
  /** Units reserved in a month, per bureau. */
  spent(month: string): Promise<Record<Bureau, number>>;
}

/** The row of a batch that buys a document. */
export interface PurchaseHolder {
  readonly batchId: string;
  readonly row: number;
}

/** A paid answer of the bureau for a document, persisted where any batch can read it. */
export interface PurchasedAnswer {
  /** Where the raw answer is kept (the buyer's `raw/…` key). */
  readonly answerKey: string;
  /** When the bureau answered (ISO 8601, UTC). */
  readonly fetchedAt: string;
}

/**
 * What a row found when it asked to buy its document: it may buy (`held`); another row is buying it (`busy`: wait
 * for that answer); or an answer recent enough is already paid for (`answered`: use it, buy nothing).
 */
export type PurchaseClaim =
  | {
      readonly kind: 'held';
      /**
       * The raw answer key of another holder whose lease ran out: it may have persisted a paid answer before it
       * died, which must be used rather than bought again. Null when nobody else held the purchase.
       */
      readonly abandonedAnswerKey: string | null;
    }
  | { readonly kind: 'busy'; readonly holder: PurchaseHolder; readonly leaseUntil: number }
  | ({ readonly kind: 'answered' } & PurchasedAnswer);

/**
 * One bureau purchase in flight per bureau and document, across batches, files, reruns and workers: a row takes
 * the document's purchase (a lease) before it buys, and records the paid answer on it, so a row of any other batch
 * waits for that answer instead of paying for its own. Every change is conditional (on the holder, on the lease).
 */
export interface DocumentPurchases {
  /**
   * Takes the purchase of `document` for `holder` for `leaseSeconds`: when nobody holds it, its lease ran out, the
   * holder is the same row (a retry), or its answer is older than `acceptAnswersSince` (ISO 8601).
   * `answerKey` is where this holder will persist its answer (told to a later taker if this holder dies).
   */
  claim(
    bureau: Bureau,
    document: string,
    holder: PurchaseHolder,
    options: {
      readonly leaseSeconds: number;
      readonly answerKey: string;
      readonly acceptAnswersSince: string;
    },
  ): Promise<PurchaseClaim>;
  /** Records the holder's persisted answer: from now on it answers every batch; false if the purchase was lost. */
  recordAnswer(
    bureau: Bureau,
    document: string,
    holder: PurchaseHolder,
    answer: PurchasedAnswer,
  ): Promise<boolean>;
  /** Keeps the purchase for the holder until `untilMs` (it retries later); false if the purchase was lost. */
  extend(bureau: Bureau, document: string, holder: PurchaseHolder, untilMs: number): Promise<boolean>;
  /** Gives up an unanswered purchase (the holder will not buy): the next row may. No-op unless held by `holder`. */
  release(bureau: Bureau, document: string, holder: PurchaseHolder): Promise<void>;
}
