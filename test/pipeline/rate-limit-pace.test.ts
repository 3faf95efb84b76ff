import { afterEach, describe, expect, it } from 'vitest';
import { localSettings } from '../../tools/local/local-settings.ts';
import { AWS_FAULTS } from '../factories/aws-faults.ts';
import { expectChargesReconciled } from '../factories/charges.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { screenFile, startTestPipeline, type TestPipeline, writeCsv } from '../factories/pipeline.ts';

const LOCAL_TIMEOUTS = localSettings();

let test: TestPipeline | undefined;
afterEach(async () => {
  await test?.stop();
  test = undefined;
});

/**
 * The pace the bureau sees, measured by the emulator as requests arrive. The bound is the one the rate limiter
 * guarantees whatever the load (`src/domain/rate-limit/gcra.ts`): rate + burst in any one-second window, with no
 * allowance for a busy machine. A worker checks its slot right before the request leaves and takes a new one when it
 * is late (a slow reservation, a starved event loop), so a stall delays requests instead of bunching them; the
 * half interval a slot keeps after that check covers the way to the emulator, whose clock runs on this same loop.
 *
 * A starved machine may make the run slow, never the pace wrong: the workers get the local runner's timeouts rather
 * than the fast ones (with 5 s, invocations beside busy processes ran out of time before they reached the bureau,
 * and the batch stalled), and the test has minutes.
 */
describe('the global rate limit as the bureau sees it', () => {
  it('equal limits: never more than rate + burst in a second, at most a handful of 429s', async () => {
    const rate = 30;
    const burst = 6;
    test = await startTestPipeline({
      strict: AWS_FAULTS,
      emulator: { rateLimitPerSecond: rate, rateLimitBurst: rate },
      settings: {
        rateLimitPerSecond: { a: rate, b: rate },
        rateLimitBurst: { a: burst, b: burst },
        bureauTimeoutSeconds: LOCAL_TIMEOUTS.bureauTimeoutSeconds,
        workerTimeoutSeconds: LOCAL_TIMEOUTS.workerTimeoutSeconds,
      },
    });
    const file = await writeCsv('equal.csv', customerListCsv(distinctDocuments(150, 'equal')));

    const { manifest, summary } = await screenFile(test, file);

    expect(manifest.counts).toMatchObject({ screened: 150 });
    expect(expectChargesReconciled(summary, test.emulator.stats().chargesByDocument).charged).toBe(150);
    expect(test.emulator.stats().byStatus['429'] ?? 0).toBeLessThanOrEqual(5);
    expect(test.emulator.stats().maxObservedRatePerSec).toBeLessThanOrEqual(rate + burst);
  }, 300_000);
});
