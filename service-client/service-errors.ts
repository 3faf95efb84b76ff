/**
 * What can go wrong calling the bureau API, in the four kinds the pipeline acts on differently:
 * stop the batch, wait, retry, or settle the item as failed. No error ever carries the token.
 */
export type ServiceErrorKind = 'invalid_token' | 'rate_limited' | 'transient' | 'rejected' | 'oversized';

const MAX_MESSAGE_LENGTH = 300;

/** Base of the taxonomy: the HTTP status (null when no response arrived) and the service's own message. */
export abstract class ServiceError extends Error {
  abstract readonly kind: ServiceErrorKind;

  constructor(
    message: string,
    /** HTTP status of the response, or null for network errors and timeouts. */
    readonly status: number | null,
    /** The `message` the service sent, if any, shortened. */
    readonly serviceMessage: string | null,
    /** The error `code` the service sent, if any (the AI operations' envelopes carry one). */
    readonly serviceCode: string | null = null,
  ) {
    super(message);
  }

  /** A plain object for structured logs (never includes the token or request headers). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      kind: this.kind,
      status: this.status,
      serviceMessage: this.serviceMessage,
      serviceCode: this.serviceCode,
      message: this.message,
    };
  }
}

/** The token was refused (400 `Token inválido!` on the credit queries, or 401): stop at once, retrying burns requests. */
export class InvalidTokenError extends ServiceError {
  override readonly name = 'InvalidTokenError';
  readonly kind = 'invalid_token';
}

/** 429: slow down; `retryAfterSeconds` is the service's `Retry-After` when it sent one. */
export class RateLimitedError extends ServiceError {
  override readonly name = 'RateLimitedError';
  readonly kind = 'rate_limited';

  constructor(
    message: string,
    status: number,
    serviceMessage: string | null,
    readonly retryAfterSeconds: number | null,
    serviceCode: string | null = null,
  ) {
    super(message, status, serviceMessage, serviceCode);
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), retryAfterSeconds: this.retryAfterSeconds };
  }
}

/** 5xx, network failure, timeout or an unreadable body: worth retrying with backoff. */
export class TransientError extends ServiceError {
  override readonly name = 'TransientError';
  readonly kind = 'transient';
  /**
   * Whether the request may have reached the service: false only when no connection could be made (refused, no
   * such host, no route), so nothing was sent and nothing can have been charged.
   */
  readonly requestSent: boolean;

  constructor(
    message: string,
    status: number | null,
    serviceMessage: string | null,
    serviceCode: string | null = null,
    options: { readonly requestSent?: boolean } = {},
  ) {
    super(message, status, serviceMessage, serviceCode);
    this.requestSent = options.requestSent ?? true;
  }
}

/** Any other 4xx, or a response whose `status` is not success: retrying the same request will not help. */
export class RejectedError extends ServiceError {
  override readonly name = 'RejectedError';
  readonly kind = 'rejected';
}

/**
 * A successful (2XX) response larger than the caller's cap: it was not read, so nothing can be made of it, and
 * retrying would only pay for it again. For a credit query it counts as charged.
 */
export class OversizedResponseError extends ServiceError {
  override readonly name = 'OversizedResponseError';
  readonly kind = 'oversized';

  constructor(
    status: number,
    /** The cap the body went past. */
    readonly maxBytes: number,
  ) {
    super(`response larger than ${maxBytes} bytes; not read`, status, null);
  }
}

/** Shortens a service message and removes any copy of the token from it. */
export function cleanServiceMessage(message: unknown, token: string): string | null {
  if (typeof message !== 'string' || message.trim() === '') return null;
  const redacted = token === '' ? message : message.replaceAll(token, '[redacted]');
  const trimmed = redacted.trim();
  return trimmed.length > MAX_MESSAGE_LENGTH ? `${trimmed.slice(0, MAX_MESSAGE_LENGTH)}…` : trimmed;
}

/** `Retry-After` as seconds: a number of seconds or an HTTP date; null when absent or unreadable. */
function parseRetryAfter(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

// The service's text for a refused token (`Token inválido!`), compared without accents or case.
const INVALID_TOKEN_MESSAGE = /^token invalido!?$/;

/** Text without accents, lower-cased and trimmed, for comparing what the service says. */
export function foldText(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();
}

/**
 * The error a response's HTTP status calls for, shared by every client of the service: 401, or the credit
 * queries' `Token inválido!` in any status, is `InvalidTokenError`; 429 is `RateLimitedError` (with
 * `Retry-After`); 5xx is `TransientError`; any other status from 300 up is `RejectedError`. Null for a 2XX that
 * names no refused token: what its body means is the caller's business.
 *
 * @param detail what answered and what it said, e.g. `GET /ai answered 400: bad_request: …`
 */
export function errorForStatus(
  response: { readonly status: number; readonly headers: Headers },
  detail: string,
  serviceMessage: string | null,
  serviceCode: string | null = null,
): ServiceError | null {
  const { status } = response;
  if (status === 401 || (serviceMessage !== null && INVALID_TOKEN_MESSAGE.test(foldText(serviceMessage))))
    return new InvalidTokenError(`the token was refused (${detail})`, status, serviceMessage, serviceCode);
  if (status === 429) {
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
    return new RateLimitedError(`rate limited (${detail})`, status, serviceMessage, retryAfter, serviceCode);
  }
  if (status >= 500)
    return new TransientError(`server error (${detail})`, status, serviceMessage, serviceCode);
  if (status >= 300 || status < 200)
    return new RejectedError(`request rejected (${detail})`, status, serviceMessage, serviceCode);
  return null;
}
