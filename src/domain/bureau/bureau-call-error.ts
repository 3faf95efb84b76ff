/**
 * The ways a call to the credit bureau can fail, in the kinds the pipeline acts on differently:
 * - `invalid_token`: the token was refused; the batch stops querying (retrying only burns requests);
 * - `rate_limited`: slow down (429), for `retryAfterSeconds` when the bureau said how long;
 * - `transient`: 5xx, a network failure, a timeout or an unreadable answer; worth retrying with backoff;
 * - `rejected`: the bureau refused this query; retrying the same one will not help;
 * - `oversized`: a successful answer too large to read; it was not read, and it was charged.
 */
const BUREAU_CALL_ERROR_KINDS = [
  'invalid_token',
  'rate_limited',
  'transient',
  'rejected',
  'oversized',
] as const;
export type BureauCallErrorKind = (typeof BUREAU_CALL_ERROR_KINDS)[number];

/** What the bureau may have charged for a failed call (see `charge-state.ts` for the assumption behind it). */
export type BureauCallCharge = 'charged' | 'not_charged' | 'unknown';

export interface BureauCallFailure {
  readonly kind: BureauCallErrorKind;
  /** HTTP status of the bureau's answer, or null when no answer arrived (network failure, timeout). */
  readonly status: number | null;
  /** What the bureau said about the failure, if anything (already shortened, never the token). */
  readonly serviceMessage?: string | null;
  /** `rate_limited`: the bureau's `Retry-After`, in seconds (the unit of the retry policy); null when not sent. */
  readonly retryAfterSeconds?: number | null;
  /** `oversized`: the cap the answer went past, in bytes. */
  readonly maxBytes?: number | null;
  /** Whether the request may have reached the bureau: false only when no connection was made. @default true */
  readonly sent?: boolean;
}

/**
 * A failed call to the credit bureau, as the bureau port raises it: the adapter translates its HTTP client's errors
 * into this one type, so the use cases dispatch on `kind` and never see the client. It never carries the token.
 */
export class BureauCallError extends Error {
  override readonly name = 'BureauCallError';
  readonly kind: BureauCallErrorKind;
  readonly status: number | null;
  readonly serviceMessage: string | null;
  readonly retryAfterSeconds: number | null;
  readonly maxBytes: number | null;
  /** The request may have reached the bureau; false when no connection was made (nothing sent, nothing charged). */
  readonly sent: boolean;

  constructor(message: string, failure: BureauCallFailure) {
    super(message);
    this.kind = failure.kind;
    this.status = failure.status;
    this.serviceMessage = failure.serviceMessage ?? null;
    this.retryAfterSeconds = failure.retryAfterSeconds ?? null;
    this.maxBytes = failure.maxBytes ?? null;
    this.sent = failure.sent ?? true;
  }

  /** The bureau answered the call (any HTTP status); false when no answer arrived. */
  get answered(): boolean {
    return this.status !== null;
  }

  /**
   * What the call may have cost: an answer too large to read was a report, so charged; any other answer is a
   * refusal, not charged; a call that got no answer may have been charged.
   */
  get charge(): BureauCallCharge {
    if (this.kind === 'oversized') return 'charged';
    return this.answered || !this.sent ? 'not_charged' : 'unknown';
  }

  /** A plain object for structured logs: what failed and how, never a request, a header or the token. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      kind: this.kind,
      status: this.status,
      serviceMessage: this.serviceMessage,
      message: this.message,
      ...(this.retryAfterSeconds === null ? {} : { retryAfterSeconds: this.retryAfterSeconds }),
      ...(this.maxBytes === null ? {} : { maxBytes: this.maxBytes }),
      ...(this.sent ? {} : { sent: false }),
    };
  }
}
