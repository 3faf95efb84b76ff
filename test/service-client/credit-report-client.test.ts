import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ServiceEmulator } from '../../emulator/service-emulator.ts';
import {
  CreditReportClient,
  DEFAULT_USER_AGENT,
  InvalidTokenError,
  RateLimitedError,
  RejectedError,
  type ServiceError,
  ServiceTransport,
  TransientError,
} from '../../service-client/index.ts';
import { normaliseCreditReport } from '../../src/domain/report/index.ts';
import { scriptedRandom } from '../factories/scripted-random.ts';
import { ScriptedServer } from '../factories/scripted-server.ts';

const TOKEN = 'sk-test-6f1b2c3d-very-secret';
let emulator: ServiceEmulator;
let scripted: ScriptedServer;

const clientFor = (baseUrl: string, token = TOKEN, timeoutMs = 2_000) =>
  new CreditReportClient(new ServiceTransport({ baseUrl, token, timeoutMs }));

/** Every way an error can be printed or logged: none may contain the token. */
function expectNoToken(error: unknown): void {
  const renderings = [
    String(error),
    (error as Error).stack ?? '',
    JSON.stringify(error),
    inspect(error, { depth: 5 }),
  ];
  for (const text of renderings) expect(text).not.toContain(TOKEN);
}

async function failureOf(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    expectNoToken(error);
    return error as ServiceError;
  }
  throw new Error('expected the call to fail');
}

beforeAll(async () => {
  emulator = await ServiceEmulator.start({ token: TOKEN });
  scripted = await ScriptedServer.start();
});
afterAll(async () => {
  await emulator.close();
  await scripted.close();
});
beforeEach(() => {
  emulator.configure({ latencyMs: 0, errorRate: 0, hangRate: 0, rateLimitPerSecond: null });
  emulator.reset();
});

describe('CreditReportClient against the emulator', () => {
  it.each([
    ['a', '51954022212'],
    ['a', '11222333000181'],
    ['b', '51954022212'],
    ['b', '12ABC34501DE35'],
  ] as const)('fetches a bureau %s report for %s that normalises cleanly', async (bureau, document) => {
    const response = await clientFor(emulator.url).fetchReport(bureau, document);
    expect(response.httpStatus).toBe(200);
    expect(response.body.status).toBe('sucesso');
    expect(Date.parse(response.receivedAt)).not.toBeNaN();
    const report = normaliseCreditReport(response.body, { bureau, document, fetchedAt: response.receivedAt });
    expect(report.warnings).toEqual([]);
    expect(emulator.stats().chargesByDocument).toEqual({ [document]: 1 });
  });

  it('raises InvalidTokenError on 400 Token inválido!, carrying the status and message but never the token', async () => {
    const error = await failureOf(clientFor(emulator.url, 'a-wrong-token').fetchReport('a', '51954022212'));
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect(error).toMatchObject({ kind: 'invalid_token', status: 400, serviceMessage: 'Token inválido!' });
    expect(String(error)).not.toContain('a-wrong-token');
  });

  it('raises RateLimitedError with Retry-After seconds on 429', async () => {
    emulator.configure({ rateLimitPerSecond: 1, rateLimitBurst: 1 });
    const client = clientFor(emulator.url);
    await client.fetchReport('a', '51954022212');
    const error = await failureOf(client.fetchReport('a', '51954022212'));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 1 });
  });

  it('raises TransientError on 5xx and RejectedError on a 200 whose status is not success', async () => {
    const faulty = await ServiceEmulator.start({
      token: TOKEN,
      errorRate: 1,
      random: scriptedRandom(0.9, 0, 0.1, 0.9, 0, 0.6, 0.9, 0, 0.9),
    });
    try {
      const client = clientFor(faulty.url);
      expect(await failureOf(client.fetchReport('a', '51954022212'))).toMatchObject({
        kind: 'transient',
        status: 500,
      });
      expect(await failureOf(client.fetchReport('a', '51954022212'))).toMatchObject({
        kind: 'transient',
        status: 503,
      });
      const rejected = await failureOf(client.fetchReport('a', '51954022212'));
      expect(rejected).toBeInstanceOf(RejectedError);
      expect(rejected).toMatchObject({
        status: 200,
        serviceMessage: expect.stringContaining('Tente novamente'),
      });
    } finally {
      await faulty.close();
    }
  });

  it('raises RejectedError for a document the service refuses', async () => {
    expect(await failureOf(clientFor(emulator.url).fetchReport('a', '51954022213'))).toMatchObject({
      kind: 'rejected',
      status: 400,
      serviceMessage: 'Documento inválido',
    });
  });

  it('times out a hung query as a TransientError', async () => {
    emulator.configure({ hangRate: 1 });
    const started = Date.now();
    const error = await failureOf(clientFor(emulator.url, TOKEN, 200).fetchReport('a', '51954022212'));
    expect(error).toBeInstanceOf(TransientError);
    expect(error.message).toContain('within 200 ms');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it("stops at once with the caller's own reason when the caller aborts", async () => {
    emulator.configure({ hangRate: 1 });
    const controller = new AbortController();
    const reason = new Error('batch stopped');
    setTimeout(() => controller.abort(reason), 50);
    await expect(
      clientFor(emulator.url).fetchReport('a', '51954022212', { signal: controller.signal }),
    ).rejects.toBe(reason);
  });

  it('reuses connections (keep-alive) across queries', async () => {
    const client = clientFor(emulator.url);
    for (let index = 0; index < 20; index++) await client.fetchReport('b', '51954022212');
    expect(emulator.stats().connections).toBeLessThanOrEqual(2);
  });
});

describe('CreditReportClient against scripted answers', () => {
  it('sends the specified request: path, body, Bearer token, Accept, Content-Type and a User-Agent', async () => {
    scripted.reply({ status: 200, body: JSON.stringify({ status: 'sucesso', dados: {} }) });
    await clientFor(scripted.url).fetchReport('b', '11222333000181');
    const request = scripted.requests.at(-1);
    expect(request).toMatchObject({ method: 'POST', url: '/api/ap-bureau-b-premium' });
    expect(JSON.parse(request?.body ?? '')).toEqual({
      document: '11222333000181',
      link: 'ap-bureau-b-premium',
    });
    expect(request?.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      accept: 'application/json',
      'content-type': 'application/json',
      'user-agent': DEFAULT_USER_AGENT,
    });
  });

  it('uses configured endpoint names', async () => {
    scripted.reply({ status: 200, body: JSON.stringify({ status: 'sucesso', dados: {} }) });
    const client = new CreditReportClient(
      new ServiceTransport({ baseUrl: `${scripted.url}/gateway/`, token: TOKEN }),
      {
        a: 'bureau-a-v2',
        b: 'ap-bureau-b-premium',
      },
    );
    await client.fetchReport('a', '51954022212');
    expect(scripted.requests.at(-1)?.url).toBe('/gateway/api/bureau-a-v2');
  });

  it.each([
    ['401', { status: 401, body: '{"message":"Unauthorized"}' }, InvalidTokenError],
    [
      '429 with an HTTP date',
      { status: 429, body: '', headers: { 'Retry-After': new Date(Date.now() + 3_000).toUTCString() } },
      RateLimitedError,
    ],
    ['502 with an HTML body', { status: 502, body: '<html>bad gateway</html>' }, TransientError],
    ['200 with a body that is not JSON', { status: 200, body: '<html>maintenance</html>' }, TransientError],
    ['200 with a truncated body', { status: 200, body: '{"status":"suc' }, TransientError],
    ['404', { status: 404, body: '{"status":"error","message":"Not found"}' }, RejectedError],
    [
      'a redirect (never followed, so the token stays here)',
      { status: 302, body: '', headers: { Location: 'http://127.0.0.2/' } },
      RejectedError,
    ],
    [
      'a 200 error body echoing the token',
      { status: 200, body: JSON.stringify({ status: 'error', message: `bad ${TOKEN}` }) },
      RejectedError,
    ],
  ])('classifies %s', async (_label, reply, errorClass) => {
    scripted.reply(reply);
    const error = await failureOf(clientFor(scripted.url).fetchReport('a', '51954022212'));
    expect(error).toBeInstanceOf(errorClass);
    if (error instanceof RateLimitedError) expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(2);
  });

  it('raises TransientError on a network failure (nothing listening)', async () => {
    const closed = await ScriptedServer.start();
    const url = closed.url;
    await closed.close();
    const error = await failureOf(clientFor(url).fetchReport('a', '51954022212'));
    expect(error).toBeInstanceOf(TransientError);
    expect(error.status).toBeNull();
    expect(error.message).toContain('ECONNREFUSED');
    // Nothing was sent: the pipeline may try again without counting a possible charge.
    expect((error as TransientError).requestSent).toBe(false);
  });

  it.each([
    ['a refused certificate', 'SELF_SIGNED_CERT_IN_CHAIN', false],
    ['a failed TLS handshake', 'ERR_TLS_CERT_ALTNAME_INVALID', false],
    ['a name that does not resolve', 'ENOTFOUND', false],
    ['a reset connection (may come after the request was written)', 'ECONNRESET', true],
    ['a socket closed mid-answer', 'UND_ERR_SOCKET', true],
  ])('says whether the request may have left on %s', async (_label, code, sent) => {
    const failing = (async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });
    }) as typeof fetch;
    const client = new CreditReportClient(
      new ServiceTransport({ baseUrl: 'https://bureau.example', token: TOKEN, fetch: failing }),
    );

    const error = await failureOf(client.fetchReport('a', '51954022212'));

    expect(error).toBeInstanceOf(TransientError);
    expect((error as TransientError).requestSent).toBe(sent);
  });

  it('refuses a configuration that cannot work, naming the problem', () => {
    expect(() => new ServiceTransport({ baseUrl: 'not a url', token: TOKEN })).toThrow(
      'base URL is not a URL',
    );
    expect(() => new ServiceTransport({ baseUrl: 'ftp://x', token: TOKEN })).toThrow('must be http(s)');
    expect(() => new ServiceTransport({ baseUrl: 'http://x', token: ' ' })).toThrow('token is empty');
  });
});
