import type { ServiceTransport, TransportRequest } from './http-transport.ts';
import { RequestValidationError } from './request-validation.ts';
import { classifyServiceResponse, type JsonObject, type ServiceReply } from './service-response.ts';

/** Options every operation takes. */
export interface CallOptions {
  /** Aborts the request (the transport's own timeout still applies). */
  readonly signal?: AbortSignal;
}

/** Sends one request over the shared transport and classifies the answer; the APIs are thin on top of this. */
export class ServiceCaller {
  constructor(readonly transport: ServiceTransport) {}

  /**
   * @param operation the route's template (e.g. `GET /ai/agents/{hash}`), used in error messages so that they
   *   name the operation without echoing caller data.
   */
  async call(
    method: TransportRequest['method'],
    path: string,
    operation: string,
    body?: JsonObject | FormData,
    options: CallOptions = {},
  ): Promise<ServiceReply> {
    const response = await this.transport.request({ method, path, body, signal: options.signal });
    return classifyServiceResponse(response, operation, this.transport.token);
  }
}

/** Refuses a body that is not a JSON object (the operations that require one take an object, never an array). */
export function requireObject(body: unknown, field: string): JsonObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || body instanceof FormData)
    throw new RequestValidationError(`${field} must be a JSON object`, field);
  return body as JsonObject;
}
