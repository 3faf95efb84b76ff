import type { ServiceTransport } from './http-transport.ts';
import {
  cleanServiceMessage,
  errorForStatus,
  RejectedError,
  type ServiceError,
  TransientError,
} from './service-errors.ts';

/** The two credit bureaus the service queries: bureau A and bureau B. */
export type CreditBureau = 'a' | 'b';

/** The body `status` of a successful credit query (the legacy rule: checked whatever the HTTP status). */
export const CREDIT_QUERY_SUCCESS_STATUS = 'sucesso';

/** Path names of the two credit-report queries. */
export type BureauEndpoints = Readonly<Record<CreditBureau, string>>;

export const DEFAULT_BUREAU_ENDPOINTS: BureauEndpoints = { a: 'ap-bureau-a', b: 'ap-bureau-b-premium' };

/** A successful credit query: the whole parsed body, to archive and to normalise. */
export interface CreditReportResponse {
  /** The body as received (status `sucesso`), unknown fields included. */
  readonly body: Readonly<Record<string, unknown>>;
  readonly httpStatus: number;
  /** When the response arrived (ISO 8601). */
  readonly receivedAt: string;
}

export interface CreditReportRequestOptions {
  readonly signal?: AbortSignal;
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * Client of the two credit-report queries (`POST {base}/api/{endpoint}`).
 *
 * Success is the body's `status == "sucesso"`, whatever the HTTP status says (the legacy rule). Everything else
 * becomes one of the {@link ServiceError} kinds:
 * - `InvalidTokenError`: 401, or a 400 (or any non-success body) whose message is `Token inválido!`;
 * - `RateLimitedError`: 429, with `Retry-After` in seconds when sent;
 * - `TransientError`: 5xx, network errors, timeouts, an unreadable body;
 * - `RejectedError`: any other 4xx or 3xx, and a readable body whose status is not `sucesso`.
 */
export class CreditReportClient {
  readonly #transport: ServiceTransport;
  readonly #endpoints: BureauEndpoints;

  constructor(transport: ServiceTransport, endpoints: BureauEndpoints = DEFAULT_BUREAU_ENDPOINTS) {
    this.#transport = transport;
    this.#endpoints = endpoints;
  }

  /** Queries one document (normalised: bare, uppercase) at one bureau. */
  async fetchReport(
    bureau: CreditBureau,
    document: string,
    options: CreditReportRequestOptions = {},
  ): Promise<CreditReportResponse> {
    const endpoint = this.#endpoints[bureau];
    const response = await this.#transport.request({
      method: 'POST',
      path: `/api/${encodeURIComponent(endpoint)}`,
      body: { document, link: endpoint },
      signal: options.signal,
    });
    const body = parseJsonObject(response.text);
    const serviceMessage = cleanServiceMessage(body?.message, this.#transport.token);
    const where = `bureau ${bureau.toUpperCase()} answered ${response.status}`;

    if (
      body !== null &&
      body.status === CREDIT_QUERY_SUCCESS_STATUS &&
      response.status >= 200 &&
      response.status < 300
    ) {
      return { body, httpStatus: response.status, receivedAt: new Date().toISOString() };
    }
    throw this.#classify(response.status, response.headers, body, serviceMessage, where);
  }

  #classify(
    status: number,
    headers: Headers,
    body: Record<string, unknown> | null,
    serviceMessage: string | null,
    where: string,
  ): ServiceError {
    const detail = serviceMessage ? `${where}: ${serviceMessage}` : where;
    const byStatus = errorForStatus({ status, headers }, detail, serviceMessage);
    if (byStatus !== null) return byStatus;
    if (body === null) return new TransientError(`unreadable response body (${where})`, status, null);
    return new RejectedError(
      `query not successful: status ${JSON.stringify(body.status)}${serviceMessage ? `: ${serviceMessage}` : ''}`,
      status,
      serviceMessage,
    );
  }
}
