import type { Context } from 'hono';
import { CONSOLE_ROLES, type ConsoleIdentity, type ConsoleRole } from '../contract/index.ts';
import type { Authenticator } from './console-env.ts';

/** The claims API Gateway's JWT authorizer verified, as an HTTP API hands them to the function. */
type Claims = Readonly<Record<string, unknown>>;

/**
 * A claim that lists values: an array in a token, but API Gateway's HTTP API passes an array claim as the text
 * `[a b]` (its documented behaviour for `cognito:groups`); both are read, anything else is no values.
 */
function listClaim(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  if (typeof value !== 'string') return [];
  const inner = value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
  return inner.split(/[\s,]+/).filter(Boolean);
}

/**
 * The person a verified token names: `sub` as the subject, the e-mail (or the user name) as the name recorded in
 * what they do, the user pool's groups that are console roles as their roles. Null when the claims are missing (a
 * request that did not pass the authorizer, which in AWS cannot reach the function) or name no one.
 */
export function identityOfClaims(claims: Claims | undefined): ConsoleIdentity | null {
  if (claims === undefined) return null;
  // An ID token names its person (e-mail, groups); an access token the authorizer also accepts does not: refused.
  if (claims.token_use !== 'id') return null;
  const subject = claims.sub;
  if (typeof subject !== 'string' || subject === '') return null;
  const name = [claims.email, claims['cognito:username'], claims.username].find(
    (value): value is string => typeof value === 'string' && value !== '',
  );
  const roles = listClaim(claims['cognito:groups']).filter((group): group is ConsoleRole =>
    (CONSOLE_ROLES as readonly string[]).includes(group),
  );
  return { subject, name: name ?? subject, roles };
}

/** The claims of the request's Lambda event, where `hono/aws-lambda` puts it (`c.env.event`). */
function claimsOf(context: Context): Claims | undefined {
  const event = (
    context.env as { event?: { requestContext?: { authorizer?: { jwt?: { claims?: Claims } } } } }
  )?.event;
  return event?.requestContext?.authorizer?.jwt?.claims;
}

/** In AWS: who sent a request is who the JWT authorizer verified. */
export const jwtClaimsAuthenticator: Authenticator = {
  identify: async (context) => identityOfClaims(claimsOf(context)),
};
