import { ServiceClient, type ServiceClientConfig } from 'credit-screen/client';
import { ServiceEmulator } from '../../emulator/service-emulator.ts';

/** One request as the client sent it, seen through an injected fetch. */
export interface SentRequest {
  readonly method: string;
  /** Path and query, exactly as they went on the wire (still URL-encoded). */
  readonly path: string;
  readonly contentType: string | null;
}

/** A client of `emulator` whose requests are recorded, so tests can assert on what was (or was not) sent. */
export function recordingClient(
  emulator: ServiceEmulator,
  overrides: Partial<ServiceClientConfig> = {},
): { readonly client: ServiceClient; readonly sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    const body = init?.body;
    sent.push({
      method: init?.method ?? 'GET',
      path: `${url.pathname}${url.search}`,
      contentType: body instanceof FormData ? 'multipart/form-data' : headers.get('content-type'),
    });
    return fetch(input, init);
  };
  const client = new ServiceClient({
    baseUrl: emulator.url,
    token: emulator.token,
    timeoutMs: 5_000,
    fetch: recordingFetch,
    ...overrides,
  });
  return { client, sent };
}

/** Starts an emulator whose generation jobs move quickly (queued and running for `jobStepMs` each). */
export function startAiEmulator(jobStepMs = 150): Promise<ServiceEmulator> {
  return ServiceEmulator.start({ ai: { jobStepMs, maxAgentFileBytes: 1024 * 1024 } });
}
