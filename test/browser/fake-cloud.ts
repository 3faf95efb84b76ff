import { createHash, generateKeyPairSync, type KeyObject, randomUUID, sign, verify } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { CONSOLE_ROUTES } from '../../src/contract/index.ts';

/**
 * What AWS puts around the console's pages, on loopback: the user pool's hosted sign-in (an OpenID Connect provider
 * that signs a person in at once, checking the client's PKCE), API Gateway's HTTP API (CORS for the site, a JWT
 * authorizer on every route but the public ones, the event it hands the function) and CloudFront (the pages with
 * their headers and `console-config.json`). Each on its own port, so the browser sees three origins as in AWS.
 */
export interface FakeCloud {
  readonly siteUrl: string;
  /** The bucket's address (path style), where upload forms are posted. */
  readonly s3Url: string;
  readonly issuer: string;
  readonly apiUrl: string;
  /** What the fake services saw: the sign-ins' PKCE challenges, the API's Authorization headers, the sign-outs. */
  readonly seen: {
    authorize: URLSearchParams[];
    tokens: URLSearchParams[];
    api: string[];
    logouts: URLSearchParams[];
    /** The objects S3 accepted from upload forms, by key, with their metadata. */
    uploads: { key: string; size: number; metadata: Record<string, string> }[];
  };
  close(): Promise<void>;
}

/** The person the hosted sign-in signs in, as the user pool would put them in an ID token. */
export interface FakePerson {
  readonly sub: string;
  readonly email: string;
  readonly groups: readonly string[];
}

type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResultV2>;

const CLIENT_ID = 'console-client-id';
const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => Promise<void>) {
  const server = createServer((request, response) => {
    handler(request, response).catch((error: Error) => {
      response.writeHead(500).end(error.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function rawBodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const bodyOf = async (request: IncomingMessage) => (await rawBodyOf(request)).toString('utf8');

/** Starts the three fake services around `pagesDirectory` and the console's Lambda `handler`. */
export async function startFakeCloud(options: {
  readonly pagesDirectory: string;
  readonly handler: LambdaHandler;
  readonly person: FakePerson;
  readonly contentSecurityPolicy: (origins: readonly string[]) => string;
}): Promise<FakeCloud> {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const seen: FakeCloud['seen'] = { authorize: [], tokens: [], api: [], logouts: [], uploads: [] };
  const codes = new Map<string, { challenge: string; redirectUri: string; nonce: string | null }>();
  const servers: Server[] = [];
  let siteOrigin = '';

  const idp = await listen(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://idp');
    const cors = {
      'Access-Control-Allow-Origin': siteOrigin,
      'Access-Control-Allow-Headers': 'content-type',
    };
    if (request.method === 'OPTIONS') return void response.writeHead(204, cors).end();
    if (url.pathname === '/.well-known/openid-configuration')
      return void response.writeHead(200, { ...cors, 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          issuer: idp.url,
          authorization_endpoint: `${idp.url}/oauth2/authorize`,
          token_endpoint: `${idp.url}/oauth2/token`,
          jwks_uri: `${idp.url}/jwks`,
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
        }),
      );
    if (url.pathname === '/oauth2/authorize') {
      seen.authorize.push(url.searchParams);
      const code = randomUUID();
      codes.set(code, {
        challenge: url.searchParams.get('code_challenge') ?? '',
        redirectUri: url.searchParams.get('redirect_uri') ?? '',
        nonce: url.searchParams.get('nonce'),
      });
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      return void response.writeHead(302, { Location: back.toString() }).end();
    }
    if (url.pathname === '/oauth2/token' && request.method === 'POST') {
      const form = new URLSearchParams(await bodyOf(request));
      seen.tokens.push(form);
      const granted = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const proven =
        granted && base64url(createHash('sha256').update(verifier).digest()) === granted.challenge;
      if (
        !(proven && form.get('client_id') === CLIENT_ID && form.get('redirect_uri') === granted.redirectUri)
      )
        return void response
          .writeHead(400, { ...cors, 'Content-Type': 'application/json' })
          .end('{"error":"invalid_grant"}');
      const idToken = signToken(keys.privateKey, {
        iss: idp.url,
        aud: CLIENT_ID,
        sub: options.person.sub,
        email: options.person.email,
        'cognito:groups': options.person.groups,
        token_use: 'id',
        ...(granted.nonce ? { nonce: granted.nonce } : {}),
      });
      return void response.writeHead(200, { ...cors, 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          id_token: idToken,
          access_token: 'access',
          token_type: 'Bearer',
          expires_in: 3600,
        }),
      );
    }
    if (url.pathname === '/logout') {
      seen.logouts.push(url.searchParams);
      return void response.writeHead(302, { Location: url.searchParams.get('logout_uri') ?? '/' }).end();
    }
    response.writeHead(404).end();
  });
  servers.push(idp.server);

  const api = await listen(async (request, response) => {
    const cors = {
      'Access-Control-Allow-Origin': siteOrigin,
      'Access-Control-Allow-Headers': 'authorization,content-type',
      'Access-Control-Allow-Methods': 'GET,POST,PUT,DELETE',
    };
    // API Gateway answers a CORS preflight itself, for the site's origin only.
    if (request.method === 'OPTIONS')
      return void response.writeHead(request.headers.origin === siteOrigin ? 204 : 403, cors).end();
    const url = new URL(request.url ?? '/', api.url);
    const route = Object.values(CONSOLE_ROUTES).find(
      (candidate) =>
        !('local' in candidate) &&
        candidate.method.toUpperCase() === request.method &&
        new RegExp(`^${candidate.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(url.pathname),
    );
    if (route === undefined) return void response.writeHead(404, cors).end('{"message":"Not Found"}');
    seen.api.push(request.headers.authorization ?? '');
    const claims =
      route.roles === 'public' ? undefined : verifiedClaims(request.headers.authorization, idp.url);
    if (route.roles !== 'public' && claims === undefined)
      return void response.writeHead(401, cors).end('{"message":"Unauthorized"}');
    const result = (await options.handler(
      lambdaEvent(request, url, await bodyOf(request), route, claims),
      {} as Context,
    )) as { statusCode: number; headers?: Record<string, string>; body?: string };
    response.writeHead(result.statusCode, { ...result.headers, ...cors }).end(result.body ?? '');
  });
  servers.push(api.server);

  /** The JWT authorizer: the token's signature, issuer, audience and expiry; its claims as HTTP APIs pass them. */
  function verifiedClaims(authorization: string | undefined, issuer: string) {
    const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    if (token === undefined) return undefined;
    const [header, payload, signature] = token.split('.');
    const valid = verify(
      'sha256',
      Buffer.from(`${header}.${payload}`),
      keys.publicKey,
      Buffer.from(signature ?? '', 'base64url'),
    );
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
    if (!valid || claims.iss !== issuer || claims.aud !== CLIENT_ID || Number(claims.exp) * 1000 < Date.now())
      return undefined;
    // An HTTP API hands an array claim to the function as the text `[a b]`.
    return { ...claims, 'cognito:groups': `[${(claims['cognito:groups'] as string[]).join(' ')}]` };
  }

  // S3's POST object: the form's policy (conditions on the key, the metadata and the size) holds, or 403.
  const s3 = await listen(async (request, response) => {
    const cors = { 'Access-Control-Allow-Origin': siteOrigin };
    const form = await new Request('http://s3/', {
      method: 'POST',
      headers: { 'content-type': request.headers['content-type'] ?? '' },
      body: await rawBodyOf(request),
    }).formData();
    const fields = Object.fromEntries(
      [...form.entries()].filter(([, value]) => typeof value === 'string') as [string, string][],
    );
    const file = form.get('file') as File | null;
    const policy = JSON.parse(Buffer.from(fields.Policy ?? '', 'base64').toString('utf8')) as {
      conditions: (Record<string, string> | [string, number, number])[];
    };
    const size = file?.size ?? 0;
    const holds = policy.conditions.every((condition) =>
      Array.isArray(condition)
        ? condition[0] !== 'content-length-range' || (size >= condition[1] && size <= condition[2])
        : Object.entries(condition).every(([name, value]) => name === 'bucket' || fields[name] === value),
    );
    if (!holds || file === null) return void response.writeHead(403, cors).end('<Error>AccessDenied</Error>');
    const metadata = Object.fromEntries(
      Object.entries(fields)
        .filter(([name]) => name.startsWith('x-amz-meta-'))
        .map(([name, value]) => [name.slice('x-amz-meta-'.length), value]),
    );
    seen.uploads.push({ key: fields.key ?? '', size, metadata });
    response.writeHead(204, cors).end();
  });
  servers.push(s3.server);

  const site = await listen(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://site');
    const headers = {
      'Content-Security-Policy': options.contentSecurityPolicy([idp.url, api.url, s3.url]),
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
    };
    if (url.pathname === '/console-config.json')
      return void response.writeHead(200, { ...headers, 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          apiUrl: api.url,
          signIn: { authority: idp.url, clientId: CLIENT_ID, domain: idp.url },
          resultsOrigin: api.url,
        }),
      );
    const file = url.pathname.startsWith('/assets/') ? url.pathname : '/index.html';
    const types: Record<string, string> = {
      '.js': 'text/javascript',
      '.css': 'text/css',
      '.html': 'text/html',
    };
    const text = await readFile(join(options.pagesDirectory, file)).catch(() => null);
    if (text === null) return void response.writeHead(404, headers).end();
    response.writeHead(200, {
      ...headers,
      'Content-Type': types[extname(file)] ?? 'application/octet-stream',
    });
    response.end(text);
  });
  servers.push(site.server);
  siteOrigin = site.url;

  return {
    siteUrl: site.url,
    s3Url: s3.url,
    issuer: idp.url,
    apiUrl: api.url,
    seen,
    close: async () => {
      for (const server of servers) await new Promise((resolve) => server.close(resolve));
    },
  };
}

function signToken(privateKey: KeyObject, claims: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'fake' }));
  const payload = base64url(JSON.stringify({ ...claims, iat: now, exp: now + 3600 }));
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), privateKey).toString('base64url');
  return `${header}.${payload}.${signature}`;
}

/** The HTTP API's payload 2.0 event for a request, with the authorizer's claims. */
function lambdaEvent(
  request: IncomingMessage,
  url: URL,
  body: string,
  route: { readonly method: string; readonly path: string },
  claims: Record<string, unknown> | undefined,
): APIGatewayProxyEventV2 {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(',') : value,
    ]),
  ) as Record<string, string>;
  return {
    version: '2.0',
    routeKey: `${route.method.toUpperCase()} ${route.path}`,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    body: body === '' ? undefined : body,
    isBase64Encoded: false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'fake',
      domainName: url.host,
      domainPrefix: 'fake',
      requestId: randomUUID(),
      routeKey: `${route.method.toUpperCase()} ${route.path}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      ...(claims ? { authorizer: { jwt: { claims, scopes: [] } } } : {}),
    },
  } as APIGatewayProxyEventV2;
}
