import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_SAMPLES } from '../../../cli/alert-samples.ts';
import { WebhookDelivery, type WebhookTarget } from '../../../src/adapters/webhook/webhook-delivery.ts';
import {
  ALERT_DETAIL_SCHEMAS,
  type AlertEnvelope,
  type WebhookSubscription,
} from '../../../src/contract/index.ts';
import { ScriptedServer } from '../../factories/scripted-server.ts';

const OK = { status: 200, body: 'ok' };
const servers: { close(): Promise<void> }[] = [];

async function receiver(otherwise = OK): Promise<ScriptedServer> {
  const server = await ScriptedServer.start(otherwise);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function target(url: string, overrides: Partial<WebhookSubscription> = {}, headers = {}): WebhookTarget {
  return {
    subscription: {
      name: 'erp',
      url,
      events: ['BatchCompleted', 'PortfolioChanged', 'DocumentChanged'],
      ...overrides,
    },
    headers,
  };
}

const received = (server: ScriptedServer): AlertEnvelope[] =>
  server.requests.map((request) => JSON.parse(request.body) as AlertEnvelope);

describe('WebhookDelivery (a real loopback receiver)', () => {
  it('POSTs the EventBridge envelope with the auth header, a detail that matches its schema, documents masked', async () => {
    const server = await receiver();
    const delivery = new WebhookDelivery({
      targets: [target(server.url, {}, { 'X-Api-Key': 's3cr3t' })],
      retryForMs: 1000,
    });

    await delivery.batchCompleted(ALERT_SAMPLES.BatchCompleted);
    await delivery.portfolioChanged(ALERT_SAMPLES.PortfolioChanged);
    const outcome = await delivery.settle();

    expect(outcome).toEqual({ delivered: 2, undelivered: [] });
    expect(server.requests.map((request) => [request.method, request.headers['x-api-key']])).toEqual([
      ['POST', 's3cr3t'],
      ['POST', 's3cr3t'],
    ]);
    const [completed, changed] = received(server);
    expect(completed).toMatchObject({
      version: '0',
      source: 'credit-screen',
      'detail-type': 'BatchCompleted',
      detail: { ...ALERT_SAMPLES.BatchCompleted, documentForm: 'none' },
    });
    expect(completed?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(ALERT_DETAIL_SCHEMAS.PortfolioChanged.parse(changed?.detail)).toBeTruthy();
    const body = server.requests.map((request) => request.body).join('\n');
    expect(body).not.toContain('52998224725');
    expect(body).not.toContain('11444777000161');
    expect(body).toContain('***.982.247-**');
  });

  it('sends documents in full only to a subscription that asks for them, each its own form', async () => {
    const masked = await receiver();
    const full = await receiver();
    const delivery = new WebhookDelivery({
      targets: [target(masked.url), target(full.url, { name: 'crm', includeDocuments: true })],
      retryForMs: 1000,
    });

    await delivery.documentsChanged([ALERT_SAMPLES.DocumentChanged]);
    await delivery.settle();

    expect(received(masked).map((event) => event.detail)).toEqual([
      expect.objectContaining({ documentForm: 'masked', document: '**.444.777/0001-**' }),
    ]);
    expect(received(full).map((event) => event.detail)).toEqual([
      expect.objectContaining({ documentForm: 'full', document: '11444777000161' }),
    ]);
    expect(received(full)[0]?.detail.eventId).toBe(received(masked)[0]?.detail.eventId);
  });

  it('sends DocumentChanged only for the change kinds a subscription selects', async () => {
    const server = await receiver();
    const delivery = new WebhookDelivery({
      targets: [target(server.url, { events: ['DocumentChanged'], changeKinds: ['score_drop'] })],
      retryForMs: 1000,
    });
    const scoreDrop = {
      ...ALERT_SAMPLES.DocumentChanged,
      row: 9,
      kinds: ['score_drop' as const],
      changes: [{ kind: 'score_drop' as const, before: '700', after: '600', delta: '-100' }],
    };

    await delivery.documentsChanged([ALERT_SAMPLES.DocumentChanged, scoreDrop]);
    await delivery.settle();

    expect(received(server).map((event) => event.detail)).toEqual([expect.objectContaining({ row: 9 })]);
  });

  it('retries a receiver that fails twice, then delivers: the same eventId every time', async () => {
    const server = await receiver();
    server.reply({ status: 503, body: 'busy' }, { status: 429, body: 'slow down' });
    const delivery = new WebhookDelivery({ targets: [target(server.url)], retryForMs: 10_000 });

    await delivery.batchCompleted(ALERT_SAMPLES.BatchCompleted);
    const outcome = await delivery.settle();

    expect(outcome).toEqual({ delivered: 1, undelivered: [] });
    const ids = received(server).map((event) => event.detail.eventId);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(1);
  });

  it('does not retry a 4xx other than those EventBridge retries, and says what it got', async () => {
    const server = await receiver({ status: 400, body: 'bad' });
    const delivery = new WebhookDelivery({ targets: [target(server.url)], retryForMs: 10_000 });

    await delivery.batchCompleted(ALERT_SAMPLES.BatchCompleted);
    const { undelivered } = await delivery.settle();

    expect(server.requests).toHaveLength(1);
    expect(undelivered).toEqual([
      expect.objectContaining({
        webhook: 'erp',
        status: 400,
        attempts: 1,
        reason: 'answered 400, which is not retried',
      }),
    ]);
  });

  it.each([
    [
      'a line break in a value',
      { 'X-Api-Key': 's3cr3t\r\nX-Injected: evil' },
      /"erp": X-Api-Key: its value holds a line break/,
    ],
    [
      'a header the client sets',
      { 'Content-Length': '0' },
      /"erp": Content-Length: the HTTP client sets this header itself/,
    ],
    ['a name that is not one', { 'X-Api-Key: s3cr3t': '' }, /"erp": a header name must be/],
  ])(
    'refuses %s when built, before any event, naming the header and never its value',
    (_label, headers, said) => {
      const build = () =>
        new WebhookDelivery({ targets: [target('http://127.0.0.1:9', {}, headers)], retryForMs: 0 });

      expect(build).toThrow(said);
      expect(build).not.toThrow(/s3cr3t|evil/);
    },
  );

  it('gives up on a receiver that is down after its retry time, keeping the event', async () => {
    const server = await ScriptedServer.start();
    const url = server.url;
    await server.close();
    const delivery = new WebhookDelivery({ targets: [target(url)], retryForMs: 600 });

    const started = Date.now();
    await delivery.batchCompleted(ALERT_SAMPLES.BatchCompleted);
    const { delivered, undelivered } = await delivery.settle();

    expect(delivered).toBe(0);
    expect(undelivered).toHaveLength(1);
    expect(undelivered[0]).toMatchObject({
      status: null,
      event: { detail: { batchId: ALERT_SAMPLES.BatchCompleted.batchId } },
    });
    expect(undelivered[0]?.attempts).toBeGreaterThan(1);
    expect(undelivered[0]?.reason).toMatch(/no answer \(ECONNREFUSED\); gave up after \d+ attempts/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('never makes the publisher wait for a slow receiver; a request past the time limit counts as no answer', async () => {
    const hanging = createServer(() => undefined);
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    servers.push({
      close: async () => {
        hanging.closeAllConnections();
        await new Promise((r) => hanging.close(r));
      },
    });
    const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
    const delivery = new WebhookDelivery({ targets: [target(url)], retryForMs: 0, requestTimeoutMs: 2000 });

    const before = performance.now();
    await delivery.batchCompleted(ALERT_SAMPLES.BatchCompleted);
    const publishMs = performance.now() - before;
    const { undelivered } = await delivery.settle();

    // Publishing returned long before the receiver's time limit ran out.
    expect(publishMs).toBeLessThan(1500);
    expect(undelivered[0]?.reason).toMatch(/no answer within the request time limit/);
  });
});
