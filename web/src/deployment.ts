/**
 * Where the pages run: on a laptop, served by `credit-screen console` (the API beside them, a session cookie); in
 * AWS, from CloudFront beside a `console-config.json` the stack wrote at deploy (the API's address, the user pool's
 * sign-in), signing in there and sending the ID token with each call.
 */
export interface CloudDeployment {
  readonly apiUrl: string;
  readonly signIn: { readonly authority: string; readonly clientId: string; readonly domain: string };
}

let cloud: CloudDeployment | null = null;
let bearer: string | null = null;

/** Reads the deployment's configuration once; null on a laptop (the local console serves none). */
export async function loadDeployment(): Promise<CloudDeployment | null> {
  const response = await fetch('/console-config.json', { cache: 'no-store' }).catch(() => null);
  if (response === null || !response.ok) return null;
  if (!(response.headers.get('content-type') ?? '').includes('json')) return null;
  const config = (await response.json().catch(() => null)) as Partial<CloudDeployment> | null;
  if (typeof config?.apiUrl !== 'string' || typeof config.signIn?.clientId !== 'string') return null;
  cloud = config as CloudDeployment;
  return cloud;
}

/** The deployment the pages run in, once loaded; null on a laptop. */
export const deployment = (): CloudDeployment | null => cloud;

/** The ID token sent with every call in AWS (held in memory and the tab's session storage, never in a cookie). */
export function setBearerToken(token: string | null): void {
  bearer = token;
}

/** How a call reaches the API: its base address, and the headers that say who calls. */
export function apiAccess(): { readonly base: string; readonly headers: Record<string, string> } {
  if (cloud === null) return { base: '', headers: {} };
  return {
    base: cloud.apiUrl.replace(/\/$/, ''),
    headers: bearer === null ? {} : { Authorization: `Bearer ${bearer}` },
  };
}
