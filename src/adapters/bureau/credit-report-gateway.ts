import type { CreditReportClient } from '../../../service-client/credit-report-client.ts';
import {
  OversizedResponseError,
  RateLimitedError,
  ServiceError,
  TransientError,
} from '../../../service-client/service-errors.ts';
import { BureauCallError } from '../../domain/bureau/index.ts';
import type { BureauGateway, BureauResponse } from '../../domain/ports/index.ts';
import type { Bureau } from '../../domain/report/index.ts';

/** The part of the service client the gateway calls (a test may wrap it). */
export type CreditReportSource = Pick<CreditReportClient, 'fetchReport'>;

/**
 * The bureau port on the service client: answers pass through, and the client's error taxonomy becomes the
 * domain's {@link BureauCallError}, so no use case depends on the client. Anything else (a bug, a token that could
 * not be read) passes through unchanged: it is our fault, not the bureau's answer.
 */
export class CreditReportGateway implements BureauGateway {
  readonly #client: CreditReportSource;

  constructor(client: CreditReportSource) {
    this.#client = client;
  }

  async fetchReport(
    bureau: Bureau,
    document: string,
    options?: { signal?: AbortSignal },
  ): Promise<BureauResponse> {
    try {
      return await this.#client.fetchReport(bureau, document, options);
    } catch (error) {
      throw toBureauCallError(error);
    }
  }
}

/** The domain's error for one of the service client's; anything that is not the client's error, unchanged. */
export function toBureauCallError(error: unknown): unknown {
  if (!(error instanceof ServiceError)) return error;
  return new BureauCallError(error.message, {
    kind: error.kind,
    status: error.status,
    serviceMessage: error.serviceMessage,
    retryAfterSeconds: error instanceof RateLimitedError ? error.retryAfterSeconds : null,
    maxBytes: error instanceof OversizedResponseError ? error.maxBytes : null,
    sent: !(error instanceof TransientError && !error.requestSent),
  });
}
