import { CONSOLE_ROUTES, type ConsoleRouteName, consolePath } from '../../src/contract/console-routes.ts';
import { apiAccess } from './deployment.ts';

/** A refusal of the API, with its one line for the person and its status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** What to tell a person about a failed call: the API's own line, or that it did not answer. */
export const problemOf = (error: unknown) =>
  error instanceof ApiError ? error.message : 'o console não respondeu; tente de novo';

/**
 * Calls route `name` of the console's API (the session travels in its cookie); its JSON answer, or an
 * {@link ApiError} carrying the API's own line. A POST or PUT always sends JSON, as the API requires.
 */
export async function callApi<T>(
  name: ConsoleRouteName,
  options: {
    readonly params?: Readonly<Record<string, string>>;
    readonly query?: Readonly<Record<string, string | number>>;
    readonly body?: unknown;
  } = {},
): Promise<T> {
  const { method } = CONSOLE_ROUTES[name];
  const sendsBody = method === 'post' || method === 'put';
  const query = new URLSearchParams(
    Object.entries(options.query ?? {}).map(([key, value]) => [key, String(value)]),
  ).toString();
  const access = apiAccess();
  const response = await fetch(
    `${access.base}${consolePath(name, options.params)}${query ? `?${query}` : ''}`,
    {
      method: method.toUpperCase(),
      // A laptop's session rides in its cookie; in AWS the ID token is the header, and no cookie goes anywhere.
      credentials: access.base === '' ? 'same-origin' : 'omit',
      headers: { ...access.headers, ...(sendsBody ? { 'Content-Type': 'application/json' } : {}) },
      body: sendsBody ? JSON.stringify(options.body ?? {}) : undefined,
    },
  );
  if (response.status === 204) return undefined as T;
  const answer = (await response.json().catch(() => ({}))) as { error?: string };
  if (!response.ok) throw new ApiError(response.status, answer.error ?? `erro ${response.status}`);
  return answer as T;
}
