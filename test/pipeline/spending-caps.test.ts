import { afterEach, describe, expect, it } from 'vitest';
import { bureausWith, EVENTS } from '../../src/contract/index.ts';
import { expectChargesReconciled } from '../factories/charges.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { screenFile, startTestPipeline, type TestPipeline, writeCsv } from '../factories/pipeline.ts';

let test: TestPipeline | undefined;
afterEach(async () => {
  await test?.stop();
  test = undefined;
});

const budgetEvents = (pipeline: TestPipeline) =>
  pipeline.pipeline.events.events.filter((event) => event.detailType === EVENTS.budgetExhausted);

describe('spending caps on the whole local pipeline', () => {
  it("buys exactly the batch's own cap: 50 of 300, the other 250 not queried, and says so", async () => {
    test = await startTestPipeline();
    const documents = distinctDocuments(300, 'batch cap');

    const { manifest, summary } = await screenFile(
      test,
      await writeCsv('capped.csv', customerListCsv(documents)),
      'a',
      { maxCharges: 50 },
    );

    expect(test.emulator.stats().charged).toBe(50);
    expect(manifest.status).toBe('budget_exhausted');
    expect(manifest.counts).toMatchObject({ rows: 300, screened: 50, not_queried: 250, failed: 0 });
    expect(manifest.charges).toEqual({ charged: 50, not_charged: 250, charge_unknown: 0 });
    expect(
      summary
        .filter((line) => line.status === 'not_queried')
        .every((line) => /budget exhausted/.test(line.status_detail ?? '')),
    ).toBe(true);
    expectChargesReconciled(summary, test.emulator.stats().chargesByDocument);
    const byPercent = budgetEvents(test)
      .map((event) => event.detail)
      .sort((first, second) => first.percent - second.percent);
    expect(byPercent).toEqual([
      expect.objectContaining({ scope: 'batch', percent: 80, used: 40, cap: 50 }),
      expect.objectContaining({ scope: 'batch', percent: 100, used: 50, cap: 50 }),
    ]);
  }, 120_000);

  it('never exceeds the monthly cap with 25 calls racing for its last units, across two batches', async () => {
    test = await startTestPipeline({
      settings: {
        bureaus: bureausWith((bureau) => ({ monthlyChargeCap: bureau === 'a' ? 60 : null })),
        workerConcurrency: 5,
        callsPerInvocation: 5,
      },
      emulator: { latencyMs: 20 },
    });

    const first = await screenFile(
      test,
      await writeCsv('first.csv', customerListCsv(distinctDocuments(45, 'month one'))),
    );
    const second = await screenFile(
      test,
      await writeCsv('second.csv', customerListCsv(distinctDocuments(100, 'month two'))),
    );

    expect(first.manifest.counts).toMatchObject({ screened: 45, not_queried: 0 });
    expect(second.manifest.counts).toMatchObject({ screened: 15, not_queried: 85 });
    expect(test.emulator.stats().charged).toBe(60);
    expect(Object.values(test.emulator.stats().chargesByDocument).every((count) => count === 1)).toBe(true);
    const alerts = budgetEvents(test)
      .map((event) => event.detail)
      .sort((first, second) => first.percent - second.percent);
    expect(alerts).toEqual([
      expect.objectContaining({ scope: 'month', percent: 80, used: 48, cap: 60 }),
      expect.objectContaining({ scope: 'month', percent: 100, used: 60, cap: 60 }),
    ]);
  }, 120_000);
});
