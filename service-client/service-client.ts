import { DEFAULT_MAX_AGENT_FILE_BYTES } from './agent-file.ts';
import { AiAgentsApi } from './ai-agents-api.ts';
import { AiStudioApi } from './ai-studio-api.ts';
import {
  type BureauEndpoints,
  CreditReportClient,
  DEFAULT_BUREAU_ENDPOINTS,
} from './credit-report-client.ts';
import { ServiceTransport, type ServiceTransportConfig } from './http-transport.ts';
import { type CallOptions, ServiceCaller } from './service-caller.ts';
import type { ServiceReply } from './service-response.ts';

export interface ServiceClientConfig extends ServiceTransportConfig {
  /**
   * Largest agent file the client uploads (the service's own limit is not specified).
   * @default 100 MiB
   */
  readonly maxAgentFileBytes?: number;
  /** Path names of the credit queries. @default DEFAULT_BUREAU_ENDPOINTS */
  readonly bureauEndpoints?: BureauEndpoints;
}

/**
 * One client of the whole service interface, on one configuration and one transport (so one connection pool and
 * one error taxonomy): the credit queries (`credit`), AI status ({@link ServiceClient.aiStatus}), AI agents
 * (`agents`) and AI Studio (`studio`).
 *
 * @example
 * const client = new ServiceClient({ baseUrl: 'https://gateway.example.com', token });
 * const { body } = await client.studio.createProject({ artifact_type: 'chart', name: 'Q3' });
 */
export class ServiceClient {
  readonly transport: ServiceTransport;
  readonly credit: CreditReportClient;
  readonly agents: AiAgentsApi;
  readonly studio: AiStudioApi;
  readonly #caller: ServiceCaller;

  constructor(config: ServiceClientConfig) {
    const maxFileBytes = config.maxAgentFileBytes ?? DEFAULT_MAX_AGENT_FILE_BYTES;
    if (!(Number.isSafeInteger(maxFileBytes) && maxFileBytes > 0))
      throw new RangeError(`maxAgentFileBytes must be a positive integer, got ${maxFileBytes}`);
    this.transport = new ServiceTransport(config);
    this.#caller = new ServiceCaller(this.transport);
    this.credit = new CreditReportClient(this.transport, config.bureauEndpoints ?? DEFAULT_BUREAU_ENDPOINTS);
    this.agents = new AiAgentsApi(this.#caller, maxFileBytes);
    this.studio = new AiStudioApi(this.#caller);
  }

  /** `GET /ai`: status of the AI API. */
  async aiStatus(options: CallOptions = {}): Promise<ServiceReply> {
    return this.#caller.call('GET', '/ai', 'GET /ai', undefined, options);
  }
}
