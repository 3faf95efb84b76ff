import {
  type BureauEndpoints,
  type CreditBureau,
  CreditReportClient,
} from '../../../service-client/credit-report-client.ts';
import { ServiceTransport, type ServiceTransportConfig } from '../../../service-client/http-transport.ts';
import type { BureauGateway, BureauResponse, TokenSource } from '../../domain/ports/index.ts';
import type { Bureau } from '../../domain/report/index.ts';
import { CreditReportGateway } from './credit-report-gateway.ts';

/**
 * The service client's name of each of the pipeline's bureaus. The two vocabularies happen to spell them alike
 * today; the map keeps the domain free to rename or add a bureau without touching the client (a new domain
 * bureau fails to compile here until it is mapped).
 */
const CLIENT_BUREAU: Readonly<Record<Bureau, CreditBureau>> = { a: 'a', b: 'b' };

/**
 * The bureau client, built on first use once the token has been read (from Secrets Manager in AWS), then kept for
 * the life of the container so its connections stay alive between invocations. A failed token read is not kept.
 * Its failures are the domain's `BureauCallError` (see {@link CreditReportGateway}).
 */
export class LazyBureauGateway implements BureauGateway {
  #client: Promise<BureauGateway> | undefined;

  constructor(
    private readonly tokenSource: TokenSource,
    private readonly config: Omit<ServiceTransportConfig, 'token'>,
    private readonly endpoints?: BureauEndpoints,
  ) {}

  /** Reads the token and builds the client, if not done yet: a call then has nothing left to fail on but the call. */
  async prepare(): Promise<void> {
    await this.#gateway();
  }

  async fetchReport(
    bureau: Bureau,
    document: string,
    options?: { signal?: AbortSignal },
  ): Promise<BureauResponse> {
    return (await this.#gateway()).fetchReport(CLIENT_BUREAU[bureau], document, options);
  }

  #gateway(): Promise<BureauGateway> {
    this.#client ??= this.tokenSource
      .token()
      .then(
        (token) =>
          new CreditReportGateway(
            new CreditReportClient(new ServiceTransport({ ...this.config, token }), this.endpoints),
          ),
      )
      .catch((error: unknown) => {
        // A failed token read must not stick for the container's life: the next call reads it again.
        this.#client = undefined;
        throw error;
      });
    return this.#client;
  }
}
