import type { UserManager } from 'oidc-client-ts';
import type { CloudDeployment } from './deployment.ts';

/** The pages' own address, where the hosted sign-in returns people (the user pool's client names it). */
const returnUrl = () => `${window.location.origin}/`;

let manager: UserManager | null = null;

/** The OpenID Connect client for the user pool, loaded only in AWS (the library is not in the laptop's first page). */
async function userManager(config: CloudDeployment): Promise<UserManager> {
  if (manager !== null) return manager;
  const { UserManager: Manager, WebStorageStateStore } = await import('oidc-client-ts');
  manager = new Manager({
    authority: config.signIn.authority,
    client_id: config.signIn.clientId,
    redirect_uri: returnUrl(),
    response_type: 'code',
    scope: 'openid email',
    // The tab's own storage: closing it signs out; another site cannot read it.
    userStore: new WebStorageStateStore({ store: window.sessionStorage }),
    automaticSilentRenew: false,
  });
  return manager;
}

/**
 * Finishes a return from the hosted sign-in (the code in the address, exchanged with PKCE, then removed from it),
 * and returns the ID token of who is signed in; null for nobody or an expired sign-in.
 */
export async function cloudToken(config: CloudDeployment): Promise<string | null> {
  const users = await userManager(config);
  const query = new URLSearchParams(window.location.search);
  if (query.has('code') && query.has('state')) {
    try {
      const signedIn = await users.signinRedirectCallback();
      // Nothing renews a sign-in here: the refresh token is not kept (an ID token lasts an hour, then sign in again).
      if (signedIn.refresh_token) {
        signedIn.refresh_token = undefined;
        await users.storeUser(signedIn);
      }
    } finally {
      window.history.replaceState(null, '', '/');
    }
  }
  const user = await users.getUser();
  return user === null || user.expired ? null : (user.id_token ?? null);
}

/** Sends the browser to the hosted sign-in (the code flow with PKCE). */
export async function cloudSignIn(config: CloudDeployment): Promise<void> {
  await (await userManager(config)).signinRedirect();
}

/** Forgets the tokens and ends the hosted sign-in's own session too. */
export async function cloudSignOut(config: CloudDeployment): Promise<void> {
  await (await userManager(config)).removeUser();
  const query = new URLSearchParams({ client_id: config.signIn.clientId, logout_uri: returnUrl() });
  window.location.assign(`${config.signIn.domain}/logout?${query}`);
}
