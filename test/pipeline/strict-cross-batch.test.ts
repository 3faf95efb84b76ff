import { afterEach, describe, expect, it } from 'vitest';
import { bureausWith } from '../../src/contract/index.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { screenFile, startTestPipeline, type TestPipeline, writeCsv } from '../factories/pipeline.ts';

let test: TestPipeline | undefined;
afterEach(async () => {
  await test?.stop();
  test = undefined;
});

describe('one purchase per document across batches, under DynamoDB’s real semantics (strict mode)', () => {
  it('charges 100 for two batches sharing 100 documents started together, with AWS faults injected', async () => {
    test = await startTestPipeline({
      // 40 a second: buying 100 documents takes seconds, so both batches are surely running at once.
      settings: {
        workerConcurrency: 4,
        callsPerInvocation: 5,
        freshnessHours: 24,
        bureaus: bureausWith({ rateLimitPerSecond: 40, rateLimitBurst: 5 }),
      },
      emulator: { latencyMs: 40 },
      strict: {
        seed: 'strict cross batch',
        holdMs: 10,
        faults: {
          dynamodb: { throttling: 0.02, internalServerError: 0.01 },
          sqs: { internalFailure: 0.01, duplicateDelivery: 0.05 },
        },
      },
    });
    const shared = distinctDocuments(100, 'strict cross batch');
    const weekly = await writeCsv('weekly.csv', customerListCsv(shared));
    const newCustomers = await writeCsv('new.csv', customerListCsv([...shared].reverse()));
    const pipeline = test;

    const [first, second] = await Promise.all([
      screenFile(pipeline, weekly),
      screenFile(pipeline, newCustomers),
    ]);

    const stats = test.emulator.stats();
    expect(stats.charged).toBe(100);
    expect(Object.values(stats.chargesByDocument).every((count) => count === 1)).toBe(true);
    for (const { manifest } of [first, second])
      expect(manifest.counts).toMatchObject({ rows: 100, failed: 0, not_queried: 0 });
    expect(first.manifest.counts.screened + second.manifest.counts.screened).toBe(100);
    expect(first.manifest.counts.cached + second.manifest.counts.cached).toBe(100);
    // Both batches really overlapped: each bought some of the documents and shared the rest.
    expect(first.manifest.counts.screened).toBeGreaterThan(0);
    expect(second.manifest.counts.screened).toBeGreaterThan(0);
    // Every row of both summaries has its report, whoever bought it.
    for (const { summary } of [first, second])
      expect(summary.filter((line) => line.status === 'screened' || line.status === 'cached')).toHaveLength(
        100,
      );
  }, 300_000);
});
