import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../emulator/seeded-random.ts';
import { ServiceEmulator } from '../../../emulator/service-emulator.ts';
import { LazyBureauGateway } from '../../../src/adapters/bureau/lazy-bureau-gateway.ts';
import type { TokenSource } from '../../../src/domain/ports/index.ts';
import { makeCpf } from '../../factories/documents.ts';

const TOKEN = 'lazy-gateway-test-token';
let emulator: ServiceEmulator;
const random = new SeededRandom('lazy-bureau-gateway');

/** A token source that fails its first `failures` reads (a Secrets Manager outage or AccessDenied), then answers. */
class FlakyTokenSource implements TokenSource {
  reads = 0;
  constructor(private failures: number) {}
  async token(): Promise<string> {
    this.reads++;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('Secrets Manager unavailable');
    }
    return TOKEN;
  }
}

beforeAll(async () => {
  emulator = await ServiceEmulator.start({ token: TOKEN });
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(() => {
  emulator.reset();
});

describe('LazyBureauGateway', () => {
  it('reads the token again on the next call after a failed read, instead of failing every later call', async () => {
    const tokens = new FlakyTokenSource(1);
    const gateway = new LazyBureauGateway(tokens, { baseUrl: emulator.url, timeoutMs: 2_000 });
    const document = makeCpf(random);

    await expect(gateway.fetchReport('a', document)).rejects.toThrow('Secrets Manager unavailable');
    const response = await gateway.fetchReport('a', document);

    expect(response.body).toBeDefined();
    expect(tokens.reads).toBe(2);
    expect(emulator.stats().charged).toBe(1);
  });

  it('reads the token once and keeps the client after a successful read', async () => {
    const tokens = new FlakyTokenSource(0);
    const gateway = new LazyBureauGateway(tokens, { baseUrl: emulator.url, timeoutMs: 2_000 });

    await gateway.fetchReport('a', makeCpf(random));
    await gateway.fetchReport('a', makeCpf(random));

    expect(tokens.reads).toBe(1);
    expect(emulator.stats().charged).toBe(2);
  });
});
