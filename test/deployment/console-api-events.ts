import type { ConsoleRole } from '../../src/contract/index.ts';

/** Who an event is from: the claims API Gateway's JWT authorizer would pass for a user pool member. */
export interface ConsoleCaller {
  readonly sub: string;
  readonly email: string;
  readonly groups: readonly ConsoleRole[];
}

/**
 * An HTTP API (payload 2.0) event for the console's function, as API Gateway sends it once the JWT authorizer has
 * verified the caller's token: the groups claim as HTTP APIs pass an array claim (`[a b]`).
 */
export function consoleApiEvent(
  caller: ConsoleCaller,
  request: {
    readonly method: 'GET' | 'POST';
    readonly routeKey: string;
    readonly path: string;
    readonly body?: unknown;
  },
) {
  const [rawPath, rawQueryString = ''] = request.path.split('?');
  return {
    version: '2.0',
    routeKey: `${request.method} ${request.routeKey}`,
    rawPath,
    rawQueryString,
    headers: {
      host: 'console.execute-api.sa-east-1.amazonaws.com',
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    requestContext: {
      accountId: '123456789012',
      apiId: 'console',
      domainName: 'console.execute-api.sa-east-1.amazonaws.com',
      domainPrefix: 'console',
      http: {
        method: request.method,
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.9',
        userAgent: 'test',
      },
      requestId: `request-${Math.random().toString(36).slice(2)}`,
      routeKey: `${request.method} ${request.routeKey}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
      authorizer: {
        jwt: {
          claims: {
            token_use: 'id',
            sub: caller.sub,
            email: caller.email,
            'cognito:groups': `[${caller.groups.join(' ')}]`,
          },
          scopes: null,
        },
      },
    },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    isBase64Encoded: false,
  };
}
