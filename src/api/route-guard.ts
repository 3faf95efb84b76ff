import type { MiddlewareHandler } from 'hono';
import { CONSOLE_ROUTES, type ConsoleRouteName } from '../contract/index.ts';
import type { Authenticator, ConsoleEnv } from './console-env.ts';

/**
 * The middleware that lets a request through to route `name` only when its roles allow: 401 when nobody is signed
 * in, 403 when the person's roles do not include one the route names. Every route but the public ones gets it, from
 * the one table of routes, so a route cannot be added without saying who may call it.
 */
export function guard(name: ConsoleRouteName, authenticator: Authenticator): MiddlewareHandler<ConsoleEnv> {
  const { roles } = CONSOLE_ROUTES[name];
  return async (context, next) => {
    if (roles === 'public') return next();
    const identity = await authenticator.identify(context);
    if (identity === null) return context.json({ error: 'sign in to the console first' }, 401);
    if (roles !== 'signed-in' && !identity.roles.some((role) => (roles as readonly string[]).includes(role)))
      return context.json({ error: `this needs the role ${roles.join(' or ')}` }, 403);
    context.set('identity', identity);
    return next();
  };
}

/** The parts of a route's OpenAPI definition its table entry gives: method, path, summary and its refusals. */
export function routeBasics<Name extends ConsoleRouteName>(name: Name) {
  const { method, path, summary, roles } = CONSOLE_ROUTES[name];
  const signedIn = roles !== 'public';
  return {
    method,
    path,
    summary,
    ...(signedIn ? { description: `Roles: ${roles === 'signed-in' ? 'any' : roles.join(', ')}.` } : {}),
  } as {
    method: (typeof CONSOLE_ROUTES)[Name]['method'];
    path: (typeof CONSOLE_ROUTES)[Name]['path'];
    summary: string;
    description?: string;
  };
}
