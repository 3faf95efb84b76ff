import { DEFAULT_EMULATOR_TOKEN } from '../../emulator/service-emulator.ts';

/** A raw HTTP query to the emulator, bypassing the client, to see exactly what the service answers. */
export async function postQuery(
  baseUrl: string,
  endpoint: string,
  body: unknown,
  token: string = DEFAULT_EMULATOR_TOKEN,
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}/api/${endpoint}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}
