import type { ConsoleIdentity } from '../../src/contract/console-roles.ts';
import { ApiError, callApi } from './api.ts';
import { deployment, loadDeployment, setBearerToken } from './deployment.ts';

/**
 * Signs in with the one-time token a sign-in link carries in its fragment (never sent to a server's logs), removes
 * it from the address bar and the history, and returns who is signed in; null for nobody.
 */
export async function startSession(): Promise<{ identity: ConsoleIdentity | null; problem: string | null }> {
  const cloud = await loadDeployment();
  if (cloud !== null) {
    const { cloudToken } = await import('./cloud-session.ts');
    const idToken = await cloudToken(cloud).catch(() => null);
    if (idToken === null) return { identity: null, problem: null };
    setBearerToken(idToken);
    return signedIn(null);
  }
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token');
  let problem: string | null = null;
  if (token !== null) {
    window.history.replaceState(null, '', window.location.pathname);
    await callApi('signIn', { body: { token } }).catch((error: unknown) => {
      problem = error instanceof ApiError ? error.message : 'não foi possível entrar';
    });
  }
  return signedIn(problem);
}

/** Who the API says is signed in; null for nobody. */
async function signedIn(problem: string | null) {
  try {
    return { identity: await callApi<ConsoleIdentity>('me'), problem };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return { identity: null, problem };
    throw error;
  }
}

/** Ends the session: the local console's, or the hosted sign-in's (which leaves the page). */
export async function endSession(): Promise<void> {
  const cloud = deployment();
  if (cloud === null) {
    await callApi('signOut').catch(() => undefined);
    return;
  }
  setBearerToken(null);
  const { cloudSignOut } = await import('./cloud-session.ts');
  await cloudSignOut(cloud);
}

/** Starts a sign-in at the hosted sign-in (AWS only; a laptop signs in from its console's link). */
export async function beginCloudSignIn(): Promise<void> {
  const cloud = deployment();
  if (cloud === null) return;
  const { cloudSignIn } = await import('./cloud-session.ts');
  await cloudSignIn(cloud);
}
