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
  /** Exchanges a one-time token for a session; null when the token is unknown, used or expired. */
  signIn(token: string): Promise<SignedIn | null>;
  /** Ends a session (a later request with it is nobody's). */
  signOut(sessionId: string): Promise<void>;
  list(): Promise<UserView[]>;
  /** Creates a user and a one-time token that signs them in; `by` is recorded as who created them. */
  create(user: NewUser, by: ConsoleIdentity): Promise<CreatedUser>;
}

/** The cookie that carries a local session: HttpOnly, SameSite=Strict, for the API's paths only. */
export const SESSION_COOKIE = 'credit_screen_session';
