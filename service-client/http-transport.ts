import { OversizedResponseError, TransientError } from './service-errors.ts';
import { CLIENT_VERSION } from './version.ts';

/** How to reach the bureau API. The token is held here and sent only as the Authorization header. */
export interface ServiceTransportConfig {
  /** Base URL of the API gateway, e.g. `https://gateway.example.com` (no trailing path needed). */
  readonly baseUrl: string;
  /** The customer account's Bearer token. */
  readonly token: string;
  /**
   * Per-request timeout, headers and body included.
   * @default 30_000
   */
  readonly timeoutMs?: number;
  /**
   * `User-Agent` header; some gateways refuse requests without one.
   * @default `credit-screen/<version>`
   */
  readonly userAgent?: string;
  /** The fetch implementation (tests may inject one); defaults to Node's, which keeps connections alive. */
  readonly fetch?: typeof fetch;
  /**
   * Largest response body read, in bytes. A longer body is not read past this (so it never takes more memory
   * than this): a 2XX one fails with {@link OversizedResponseError}, any other with {@link TransientError}.
   * @default 20 MiB
   */
  readonly maxResponseBytes?: number;
}

export interface TransportRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below the base URL, starting with `/`; path values must already be URL-encoded. */
  readonly path: string;
  /** A JSON body, or FormData for multipart uploads. */
  readonly body?: unknown;
  readonly signal?: AbortSignal;
}

export interface TransportResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_USER_AGENT = `credit-screen/${CLIENT_VERSION}`;
// A report is tens of kilobytes; anything near this is not a report and must not exhaust a Lambda's memory.
export const DEFAULT_MAX_RESPONSE_BYTES = 20 * 1024 * 1024;

/** Reads the configuration once, failing loudly on what cannot work. */
function validated(
  config: ServiceTransportConfig,
): Required<Omit<ServiceTransportConfig, 'fetch'>> & { fetch: typeof fetch } {
  let url: URL;
  try {
    url = new URL(config.baseUrl);
  } catch {
    throw new Error(`bureau API base URL is not a URL: ${JSON.stringify(config.baseUrl)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`bureau API base URL must be http(s), got ${url.protocol}`);
  }
  if (config.token.trim() === '') throw new Error('bureau API token is empty');
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeoutMs > 0)) throw new Error(`bureau API timeout must be positive, got ${timeoutMs}`);
  const maxResponseBytes = config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  if (!(Number.isInteger(maxResponseBytes) && maxResponseBytes > 0))
    throw new Error(`largest response must be a positive number of bytes, got ${maxResponseBytes}`);
  return {
    baseUrl: url.href.replace(/\/+$/, ''),
    token: config.token,
    timeoutMs,
    userAgent: config.userAgent ?? DEFAULT_USER_AGENT,
    fetch: config.fetch ?? globalThis.fetch,
    maxResponseBytes,
  };
}

/**
 * HTTP transport of the bureau API: Bearer auth, JSON, a timeout per request combined with the caller's
 * AbortSignal, connection reuse (Node's fetch keeps connections alive), and no redirects, so the token is never
 * sent anywhere but the configured host. It throws only {@link TransientError} (network, timeout) or the caller's
 * abort reason; classifying HTTP statuses is the callers' business.
 */
export class ServiceTransport {
  readonly #config: ReturnType<typeof validated>;

  constructor(config: ServiceTransportConfig) {
    this.#config = validated(config);
  }

  get baseUrl(): string {
    return this.#config.baseUrl;
  }

  /** The token, for callers that must scrub it from messages; never log it. */
  get token(): string {
    return this.#config.token;
  }

  async request(request: TransportRequest): Promise<TransportResponse> {
    const { baseUrl, token, timeoutMs, userAgent } = this.#config;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    const headers: Record<string, string> = {
      Authorization: `Bearer ${token}`,
      Accept: 'application/json',
      'User-Agent': userAgent,
    };
    let body: string | FormData | undefined;
    if (request.body instanceof FormData) body = request.body;
    else if (request.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(request.body);
    }
    try {
      const response = await this.#config.fetch(`${baseUrl}${request.path}`, {
        method: request.method,
        headers,
        body,
        signal,
        redirect: 'manual',
      });
      const text = await readCapped(response, this.#config.maxResponseBytes);
      if (text === null) {
        if (response.status >= 200 && response.status < 300)
          throw new OversizedResponseError(response.status, this.#config.maxResponseBytes);
        throw new TransientError(
          `response larger than ${this.#config.maxResponseBytes} bytes`,
          response.status,
          null,
        );
      }
      return { status: response.status, headers: response.headers, text };
    } catch (error) {
      if (error instanceof TransientError || error instanceof OversizedResponseError) throw error;
      // The caller gave up (a batch stopping, Lambda running out of time): not the service's fault.
      if (request.signal?.aborted) throw request.signal.reason;
      if (timeout.aborted)
        throw new TransientError(`no complete response within ${timeoutMs} ms`, null, null);
      throw new TransientError(`network error: ${describeNetworkError(error)}`, null, null, null, {
        requestSent: !neverConnected(causeCodeOf(error) ?? ''),
      });
    }
  }
}

/**
 * The body as text, or null when it is longer than `maxBytes`: reading stops there and the rest is discarded, so an
 * oversized answer never takes more memory than the cap.
 */
async function readCapped(response: Response, maxBytes: number): Promise<string | null> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body?.cancel();
    return null;
  }
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(chunk);
  }
  // As fetch's text() does: UTF-8, a leading byte-order mark dropped.
  return new TextDecoder().decode(Buffer.concat(chunks, size));
}

/**
 * Failures to connect at all: the request never left, so the service cannot have acted on it (or charged it). A
 * reset or a closed socket may come after the request was written, so they are not here.
 */
const NOT_CONNECTED: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * The request never left: no connection was made, or the TLS handshake failed (a certificate refused, a protocol
 * mismatch), and nothing is sent before the handshake completes.
 */
function neverConnected(code: string): boolean {
  return NOT_CONNECTED.has(code) || /^(CERT_|ERR_TLS_|ERR_SSL_)/.test(code) || TLS_TRUST_FAILURES.has(code);
}

/** Node's names for a certificate chain it cannot trust (OpenSSL's, without a common prefix). */
const TLS_TRUST_FAILURES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/** The system or undici code of a fetch failure's cause (`ECONNREFUSED`…), if it has one. */
function causeCodeOf(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

/** The code and message of a fetch failure, without the request (and so without headers). */
function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = causeCodeOf(error);
  const message =
    typeof cause?.message === 'string'
      ? cause.message
      : error instanceof Error
        ? error.message
        : String(error);
  return code ? `${code} ${message}` : message;
}
