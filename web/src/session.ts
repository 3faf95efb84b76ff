import type { ConsoleIdentity } from '../../src/contract/console-roles.ts';
import { ApiError, callApi } from './api.ts';

/**
 * Signs in with the one-time token a sign-in link carries in its fragment (never sent to a server's logs), removes
 * it from the address bar and the history, and returns who is signed in; null for nobody.
 */
export async function startSession(): Promise<{ identity: ConsoleIdentity | null; problem: string | null }> {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token');
  let problem: string | null = null;
  if (token !== null) {
    window.history.replaceState(null, '', window.location.pathname);
    await callApi('signIn', { body: { token } }).catch((error: unknown) => {
      problem = error instanceof ApiError ? error.message : 'não foi possível entrar';
    });
  }
  try {
    return { identity: await callApi<ConsoleIdentity>('me'), problem };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return { identity: null, problem };
    throw error;
  }
}
