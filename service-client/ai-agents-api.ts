import { type AgentFileSource, agentFileForm } from './agent-file.ts';
import { pathSegment, type QueryParameters, queryString } from './request-validation.ts';
import { type CallOptions, requireObject, type ServiceCaller } from './service-caller.ts';
import type { JsonObject, ServiceReply } from './service-response.ts';

/**
 * Body of an agent's creation and update (`AIAgentRequest`). The specification names it but shows none of its
 * fields, so it is an open object: whatever the account's agents take is passed through unchanged.
 */
export type AIAgentRequest = JsonObject;

/** Body of a handoff-settings update (`AIHandoffSettingsRequest`); its fields are not shown, so it is open. */
export type AIHandoffSettingsRequest = JsonObject;

/**
 * Body of an integration with a messaging channel and routing. The specification does not show it at all, so
 * it is optional and open.
 */
export type AIAgentIntegrationRequest = JsonObject;

export interface ListOptions extends CallOptions {
  /** Query parameters, passed through (the specification does not name those of the list operations). */
  readonly query?: QueryParameters;
}

/**
 * Which form of an update or a delete to send. Both are in the specification; the POST forms exist for
 * networks and proxies that refuse PUT or DELETE.
 */
export interface UpdateOptions extends CallOptions {
  /** @default 'PUT' */
  readonly via?: 'PUT' | 'POST';
}

export interface DeleteOptions extends CallOptions {
  /** @default 'DELETE' */
  readonly via?: 'DELETE' | 'POST';
}

/** The AI agent operations (`/ai/agents…`). Every one answers the success envelope or throws a ServiceError. */
export class AiAgentsApi {
  readonly #caller: ServiceCaller;
  readonly #maxFileBytes: number;

  constructor(caller: ServiceCaller, maxFileBytes: number) {
    this.#caller = caller;
    this.#maxFileBytes = maxFileBytes;
  }

  async list(options: ListOptions = {}): Promise<ServiceReply> {
    return this.#caller.call(
      'GET',
      `/ai/agents${queryString(options.query)}`,
      'GET /ai/agents',
      undefined,
      options,
    );
  }

  async create(agent: AIAgentRequest, options: CallOptions = {}): Promise<ServiceReply> {
    return this.#caller.call('POST', '/ai/agents', 'POST /ai/agents', requireObject(agent, 'agent'), options);
  }

  async get(hash: string, options: CallOptions = {}): Promise<ServiceReply> {
    return this.#caller.call('GET', agentPath(hash), 'GET /ai/agents/{hash}', undefined, options);
  }

  async update(hash: string, agent: AIAgentRequest, options: UpdateOptions = {}): Promise<ServiceReply> {
    const via = options.via ?? 'PUT';
    const body = requireObject(agent, 'agent');
    return this.#caller.call(via, agentPath(hash), `${via} /ai/agents/{hash}`, body, options);
  }

  async delete(hash: string, options: DeleteOptions = {}): Promise<ServiceReply> {
    return options.via === 'POST'
      ? this.#caller.call(
          'POST',
          `${agentPath(hash)}/delete`,
          'POST /ai/agents/{hash}/delete',
          undefined,
          options,
        )
      : this.#caller.call('DELETE', agentPath(hash), 'DELETE /ai/agents/{hash}', undefined, options);
  }

  async listFiles(hash: string, options: ListOptions = {}): Promise<ServiceReply> {
    const path = `${agentPath(hash)}/files${queryString(options.query)}`;
    return this.#caller.call('GET', path, 'GET /ai/agents/{hash}/files', undefined, options);
  }

  /** Trains the agent with a file, sent as `multipart/form-data` in the part `file`. */
  async uploadFile(hash: string, source: AgentFileSource, options: CallOptions = {}): Promise<ServiceReply> {
    const path = `${agentPath(hash)}/files`;
    const form = await agentFileForm(source, this.#maxFileBytes);
    return this.#caller.call('POST', path, 'POST /ai/agents/{hash}/files', form, options);
  }

  async deleteFile(hash: string, file: string, options: DeleteOptions = {}): Promise<ServiceReply> {
    const path = `${agentPath(hash)}/files/${pathSegment('file', file)}`;
    return options.via === 'POST'
      ? this.#caller.call(
          'POST',
          `${path}/delete`,
          'POST /ai/agents/{hash}/files/{file}/delete',
          undefined,
          options,
        )
      : this.#caller.call('DELETE', path, 'DELETE /ai/agents/{hash}/files/{file}', undefined, options);
  }

  async getHandoff(hash: string, options: CallOptions = {}): Promise<ServiceReply> {
    return this.#caller.call(
      'GET',
      `${agentPath(hash)}/handoff`,
      'GET /ai/agents/{hash}/handoff',
      undefined,
      options,
    );
  }

  async updateHandoff(
    hash: string,
    settings: AIHandoffSettingsRequest,
    options: CallOptions = {},
  ): Promise<ServiceReply> {
    const body = requireObject(settings, 'settings');
    return this.#caller.call(
      'POST',
      `${agentPath(hash)}/handoff`,
      'POST /ai/agents/{hash}/handoff',
      body,
      options,
    );
  }

  async integrate(
    hash: string,
    integration: AIAgentIntegrationRequest = {},
    options: CallOptions = {},
  ): Promise<ServiceReply> {
    const body = requireObject(integration, 'integration');
    const path = `${agentPath(hash)}/integration`;
    return this.#caller.call('POST', path, 'POST /ai/agents/{hash}/integration', body, options);
  }
}

function agentPath(hash: string): string {
  return `/ai/agents/${pathSegment('hash', hash)}`;
}
