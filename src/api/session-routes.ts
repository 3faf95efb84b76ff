import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import { CreatedUser, NewUser, SignedInUser, SignInRequest, UserList } from '../contract/index.ts';
import { type Authenticator, type ConsoleEnv, type LocalUsers, UserRefused } from './console-env.ts';
import { json, refusals } from './openapi-parts.ts';
import { guard, routeBasics } from './route-guard.ts';

/** The local console's sign-in and users: what a user pool and its hosted sign-in page do in AWS. */
export function addLocalSessionRoutes(
  app: OpenAPIHono<ConsoleEnv>,
  authenticator: Authenticator,
  users: LocalUsers,
): void {
  const signIn = createRoute({
    ...routeBasics('signIn'),
    request: { body: json(SignInRequest, 'The one-time token of a sign-in link', true) },
    responses: { 200: json(SignedInUser, 'Signed in: the session cookie is set'), ...refusals(400, 401) },
  });
  app.openapi(signIn, async (context) => {
    const signedIn = await users.signIn(context.req.valid('json').token);
    if (signedIn === null)
      return context.json(
        { error: 'this sign-in link was used already or has expired; ask for a new one' },
        401,
      );
    // HttpOnly: no script reads it; SameSite=Strict: no other site's page sends it.
    setCookie(context, users.cookieName(), signedIn.sessionId, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/api',
    });
    return context.json(signedIn.identity, 200);
  });
  const signOut = createRoute({
    ...routeBasics('signOut'),
    middleware: [guard('signOut', authenticator)] as const,
    responses: { 204: { description: 'Signed out' }, ...refusals(401) },
  });
  app.openapi(signOut, async (context) => {
    const session = getCookie(context, users.cookieName());
    if (session !== undefined) await users.signOut(session);
    deleteCookie(context, users.cookieName(), { path: '/api' });
    return context.body(null, 204);
  });
  addUserRoutes(app, authenticator, users);
}

function addUserRoutes(app: OpenAPIHono<ConsoleEnv>, authenticator: Authenticator, users: LocalUsers): void {
  const list = createRoute({
    ...routeBasics('users'),
    middleware: [guard('users', authenticator)] as const,
    responses: { 200: json(UserList, 'Every local user'), ...refusals(401, 403) },
  });
  app.openapi(list, async (context) => context.json({ users: await users.list() }, 200));
  const create = createRoute({
    ...routeBasics('createUser'),
    middleware: [guard('createUser', authenticator)] as const,
    request: { body: json(NewUser, 'The new user’s name and roles', true) },
    responses: {
      201: json(CreatedUser, 'Created, with the token of their sign-in link'),
      ...refusals(400, 401, 403, 409),
    },
  });
  app.openapi(create, async (context) => {
    try {
      return context.json(await users.create(context.req.valid('json'), context.get('identity')), 201);
    } catch (error) {
      if (error instanceof UserRefused) return context.json({ error: error.message }, 409);
      throw error;
    }
  });
}

/** Who is signed in: any role may ask. */
export function addIdentityRoute(app: OpenAPIHono<ConsoleEnv>, authenticator: Authenticator): void {
  const me = createRoute({
    ...routeBasics('me'),
    middleware: [guard('me', authenticator)] as const,
    responses: { 200: json(SignedInUser, 'The signed-in person'), ...refusals(401) },
  });
  app.openapi(me, (context) => context.json(z.parse(SignedInUser, context.get('identity')), 200));
}
