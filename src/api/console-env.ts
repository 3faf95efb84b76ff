import type { Context } from 'hono';
import type { ConsoleIdentity, CreatedUser, NewUser, UserView } from '../contract/index.ts';

/** What every handler of the console's API can read: the person the request was authenticated as. */
export interface ConsoleEnv {
  Variables: { identity: ConsoleIdentity };
}

/**
 * Who sent a request, or null for nobody signed in. Locally, a session cookie the console issued; in AWS, the claims
 * API Gateway's JWT authorizer verified. The API never reads a person's name from what they typed.
 */
export interface Authenticator {
  identify(context: Context): Promise<ConsoleIdentity | null>;
}

/** A session begun by a one-time sign-in token. */
export interface SignedIn {
  readonly sessionId: string;
  readonly identity: ConsoleIdentity;
}

/**
 * The local console's users and sessions (in AWS, the user pool holds users and the browser holds its tokens):
 * one-time sign-in tokens, sessions, and the users an admin creates.
 */
export interface LocalUsers {
  /**
   * The session cookie's name. Browsers keep cookies per host, not per port: the console's port is in the name, so
   * another service on 127.0.0.1, or a second console, never gets or overwrites this one's session.
   */
  cookieName(): string;
  /** Exchanges a one-time token for a session; null when the token is unknown, used or expired. */
  signIn(token: string): Promise<SignedIn | null>;
  /** Ends a session (a later request with it is nobody's). */
  signOut(sessionId: string): Promise<void>;
  list(): Promise<UserView[]>;
  /**
   * Creates a user and a one-time token that signs them in; `by` is recorded as who created them.
   * @throws UserRefused when the name is another user's (a name is what records who did something)
   */
  create(user: NewUser, by: ConsoleIdentity): Promise<CreatedUser>;
}

/** The cookie that carries a local session (HttpOnly, SameSite=Strict, for the API's paths only) on `port`. */
export const sessionCookieName = (port: number | string) => `credit_screen_session_${port}`;

/** A user that cannot be created, in one line. */
export class UserRefused extends Error {
  override readonly name = 'UserRefused';
}
