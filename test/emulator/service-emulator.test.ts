import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateCreditReport } from '../../emulator/report-generator.ts';
import {
  DEFAULT_EMULATOR_TOKEN,
  type EmulatorStats,
  ServiceEmulator,
} from '../../emulator/service-emulator.ts';
import { postQuery } from '../factories/emulator-requests.ts';
import { scriptedRandom } from '../factories/scripted-random.ts';

let emulator: ServiceEmulator;
beforeAll(async () => {
  emulator = await ServiceEmulator.start();
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(() => {
  emulator.configure({ latencyMs: 0, errorRate: 0, hangRate: 0, rateLimitPerSecond: null });
  emulator.reset();
});

describe('ServiceEmulator', () => {
  it('answers both endpoints with the deterministic report, for bare and punctuated documents', async () => {
    const a = await postQuery(emulator.url, 'ap-bureau-a', {
      document: '519.540.222-12',
      link: 'ap-bureau-a',
    });
    const b = await postQuery(emulator.url, 'ap-bureau-b-premium', {
      document: '11222333000181',
      link: 'ap-bureau-b-premium',
    });
    expect(a.status).toBe(200);
    expect(a.body).toEqual(JSON.parse(JSON.stringify(generateCreditReport('51954022212', 'a'))));
    expect(b.body).toEqual(JSON.parse(JSON.stringify(generateCreditReport('11222333000181', 'b'))));
  });

  it('refuses any other token with 400 Token inválido! and charges nothing', async () => {
    const response = await postQuery(emulator.url, 'ap-bureau-a', { document: '51954022212' }, 'wrong');
    expect(response).toMatchObject({ status: 400, body: { status: 'error', message: 'Token inválido!' } });
    expect(emulator.stats()).toMatchObject({ requests: 1, charged: 0, byStatus: { '400': 1 } });
  });

  it('rejects invalid documents, unknown endpoints and other methods without charging', async () => {
    expect((await postQuery(emulator.url, 'ap-bureau-a', { document: '51954022213' })).status).toBe(400);
    expect((await postQuery(emulator.url, 'ap-bureau-a', {})).status).toBe(400);
    expect((await postQuery(emulator.url, 'ap-bureau-c', { document: '51954022212' })).status).toBe(404);
    expect((await fetch(`${emulator.url}/api/ap-bureau-a`)).status).toBe(405);
    expect(emulator.stats().charged).toBe(0);
  });

  it('charges only successful queries and counts them per document; /__stats and /__reset work over HTTP', async () => {
    await postQuery(emulator.url, 'ap-bureau-a', { document: '51954022212' });
    await postQuery(emulator.url, 'ap-bureau-b-premium', { document: '51954022212' });
    await postQuery(emulator.url, 'ap-bureau-a', { document: '11222333000181' });
    const stats = (await (await fetch(`${emulator.url}/__stats`)).json()) as EmulatorStats;
    expect(stats).toMatchObject({
      requests: 3,
      charged: 3,
      byStatus: { '200': 3 },
      chargesByDocument: { '51954022212': 2, '11222333000181': 1 },
    });
    expect(stats.maxObservedRatePerSec).toBeGreaterThanOrEqual(1);
    await fetch(`${emulator.url}/__reset`, { method: 'POST' });
    expect(emulator.stats()).toMatchObject({ requests: 0, charged: 0, chargesByDocument: {} });
  });

  it('limits the rate with a token bucket: 429 with Retry-After past the burst', async () => {
    emulator.configure({ rateLimitPerSecond: 2, rateLimitBurst: 2 });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let index = 0; index < 4; index++) {
      const response = await postQuery(emulator.url, 'ap-bureau-a', { document: '51954022212' });
      statuses.push(response.status);
      if (response.status === 429) retryAfter = response.headers.get('retry-after');
    }
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses.slice(2)).toContain(429);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(emulator.stats().charged).toBe(statuses.filter((status) => status === 200).length);
  });

  it('injects 500, 502, 503 and a 200 whose status is not success, none charged', async () => {
    const faulty = await ServiceEmulator.start({
      errorRate: 1,
      random: scriptedRandom(0.9, 0, 0.1, 0.9, 0, 0.3, 0.9, 0, 0.6, 0.9, 0, 0.9),
    });
    try {
      const responses = [];
      for (let index = 0; index < 4; index++)
        responses.push(await postQuery(faulty.url, 'ap-bureau-a', { document: '51954022212' }));
      expect(responses.map((response) => response.status)).toEqual([500, 502, 503, 200]);
      expect(responses[3]?.body.status).not.toBe('sucesso');
      expect(faulty.stats().charged).toBe(0);
    } finally {
      await faulty.close();
    }
  });

  it('adds latency and leaves hung queries unanswered until closed', async () => {
    const slow = await ServiceEmulator.start({ latencyMs: 120 });
    const started = Date.now();
    await postQuery(slow.url, 'ap-bureau-a', { document: '51954022212' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(85);
    slow.configure({ hangRate: 1, latencyMs: 0 });
    const hung = fetch(`${slow.url}/api/ap-bureau-a`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${DEFAULT_EMULATOR_TOKEN}` },
      body: JSON.stringify({ document: '51954022212' }),
      signal: AbortSignal.timeout(300),
    });
    await expect(hung).rejects.toThrow();
    expect(slow.stats()).toMatchObject({ hung: 1, charged: 1 });
    await slow.close();
  });
});
