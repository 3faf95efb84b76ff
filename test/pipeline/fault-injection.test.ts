import { afterEach, describe, expect, it } from 'vitest';
import { CreditReportClient, ServiceTransport } from '../../service-client/index.ts';
import { CreditReportGateway } from '../../src/adapters/bureau/credit-report-gateway.ts';
import { bureausWith } from '../../src/contract/index.ts';
import type { BureauGateway } from '../../src/domain/ports/index.ts';
import { AWS_FAULTS } from '../factories/aws-faults.ts';
import { expectChargesReconciled } from '../factories/charges.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { screenFile, startTestPipeline, type TestPipeline, writeCsv } from '../factories/pipeline.ts';

let test: TestPipeline | undefined;
afterEach(async () => {
  await test?.stop();
  test = undefined;
});

/** The promises every run must keep, whatever the fault: every row once, with a final status and a reason. */
function expectNothingLost(summary: Record<string, string>[], rows: number) {
  expect(summary.map((line) => Number(line.row))).toEqual(
    Array.from({ length: rows }, (_, index) => index + 1),
  );
  for (const line of summary) {
    expect(['screened', 'cached', 'duplicate', 'invalid_document', 'failed']).toContain(line.status);
    if (line.status === 'failed') expect(line.status_detail?.length).toBeGreaterThan(5);
  }
}

const charges = (t: TestPipeline) => Object.values(t.emulator.stats().chargesByDocument);

describe('fault injection on the whole local pipeline', () => {
  it('30% upstream errors (5xx and 200-not-success): every row once, nothing charged twice, the batch completes', async () => {
    test = await startTestPipeline({
      strict: AWS_FAULTS,
      emulator: { errorRate: 0.3 },
      settings: { maxAttempts: 3, maxReceiveCount: 8 },
    });
    const documents = distinctDocuments(200, 'thirty percent');
    const { summary, manifest } = await screenFile(
      test,
      await writeCsv('faulty.csv', customerListCsv(documents)),
    );
    expectNothingLost(summary, 200);
    expect(charges(test).every((count) => count === 1)).toBe(true);
    expect(expectChargesReconciled(summary, test.emulator.stats().chargesByDocument)).toMatchObject({
      charged: manifest.counts.screened,
      unknown: 0,
    });
    expect(manifest.charges).toEqual({
      charged: manifest.counts.screened,
      not_charged: manifest.counts.failed,
      charge_unknown: 0,
    });
    expect(manifest.counts.screened + manifest.counts.failed).toBe(200);
    expect(manifest.counts.screened).toBe(test.emulator.stats().charged);
    // Some queries fail for good (refused, or out of attempts), each with its reason.
    const failed = summary.filter((line) => line.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(
      failed.every((line) =>
        /^(rejected by the bureau|bureau unavailable after 3 attempts)/.test(line.status_detail ?? ''),
      ),
    ).toBe(true);
  }, 120_000);

  it('an upstream limit below ours: 429s are honoured with Retry-After and the batch completes', async () => {
    test = await startTestPipeline({
      strict: AWS_FAULTS,
      emulator: { rateLimitPerSecond: 20, rateLimitBurst: 5 },
      // Time enough for a loaded machine: the rows must end screened, not out of attempts on our own timeouts.
      settings: {
        bureaus: bureausWith({ rateLimitPerSecond: 60, rateLimitBurst: 10 }),
        bureauTimeoutSeconds: 5,
        workerTimeoutSeconds: 12,
        maxAttempts: 8,
        maxReceiveCount: 12,
      },
    });
    const { summary, manifest } = await screenFile(
      test,
      await writeCsv('limited.csv', customerListCsv(distinctDocuments(120, 'limited'))),
    );
    const stats = test.emulator.stats();
    expectNothingLost(summary, 120);
    expect(manifest.counts).toMatchObject({ screened: 120, failed: 0 });
    expect(stats.byStatus['429']).toBeGreaterThan(0);
    expect(charges(test).every((count) => count === 1)).toBe(true);
    // A 429 is an answer, not a charge: nothing is left uncertain.
    expect(expectChargesReconciled(summary, stats.chargesByDocument)).toMatchObject({
      charged: 120,
      unknown: 0,
    });
  }, 120_000);

  it('a hanging upstream: timeouts fire, a call that got no answer is not bought again, nothing waits forever', async () => {
    test = await startTestPipeline({
      strict: AWS_FAULTS,
      emulator: { hangRate: 0.15 },
      // 1 s calls, and 4 s of each invocation to start them (6 − 1 − 1): with 3 s functions an invocation had
      // 1 s, which a loaded machine with AWS faults spends before the first call.
      settings: { bureauTimeoutSeconds: 1, workerTimeoutSeconds: 6 },
    });
    const started = Date.now();
    const { summary, manifest } = await screenFile(
      test,
      await writeCsv('hanging.csv', customerListCsv(distinctDocuments(60, 'hanging'))),
    );
    expectNothingLost(summary, 60);
    expect(test.emulator.stats().hung).toBeGreaterThan(0);
    expect(manifest.counts.screened + manifest.counts.failed).toBe(60);
    expect(manifest.counts.screened).toBeGreaterThan(35);
    expect(charges(test).every((count) => count === 1)).toBe(true);
    // A call that timed out may have been charged: its row ends failed and says so (not bought again), and the
    // others reconcile exactly.
    const reconciled = expectChargesReconciled(summary, test.emulator.stats().chargesByDocument);
    expect(reconciled.unknown).toBeGreaterThan(0);
    expect(manifest.counts.failed).toBe(reconciled.unknown);
    expect(manifest.chargeUnknownFailed).toBe(reconciled.unknown);
    expect(reconciled.charged + reconciled.notCharged + reconciled.unknown).toBe(60);
    expect(Date.now() - started).toBeLessThan(90_000);
  }, 120_000);

  /** A pipeline whose bureau client fails once, for `victim`, after the bureau answered (and charged). */
  async function failingOnceAfterTheAnswer(victim: string, rebuyChargeUnknown: boolean) {
    let crashed = false;
    const started = await startTestPipeline({
      strict: AWS_FAULTS,
      settings: { rebuyChargeUnknown },
      bureau: (emulator) => {
        const real = new CreditReportGateway(
          new CreditReportClient(new ServiceTransport({ baseUrl: emulator.url, token: emulator.token })),
        );
        const crashing: BureauGateway = {
          fetchReport: async (bureau, document, options) => {
            const response = await real.fetchReport(bureau, document, options);
            if (document === victim && !crashed) {
              crashed = true;
              throw new Error('worker crashed after the bureau answered (simulated)');
            }
            return response;
          },
        };
        return crashing;
      },
    });
    test = started;
    return started;
  }

  /** Screens 40 documents through that pipeline; the 18th is the one whose answer our failure loses. */
  async function screenWithOneFailure(label: string, rebuyChargeUnknown: boolean) {
    const documents = distinctDocuments(40, label);
    const victim = documents[17] as string;
    const pipeline = await failingOnceAfterTheAnswer(victim, rebuyChargeUnknown);
    const screened = await screenFile(pipeline, await writeCsv('crash.csv', customerListCsv(documents)));
    return { ...screened, victim, stats: pipeline.emulator.stats() };
  }

  it.each([
    {
      title: 'that row ends charge unknown, bought once',
      rebuyChargeUnknown: false,
      counts: { screened: 39, failed: 1 },
      victimRow: { status: 'failed', charge_state: 'charge_unknown' },
      victimCharges: 1,
    },
    {
      title: 'with rebuyChargeUnknown, only that document is paid twice, and its row says so',
      rebuyChargeUnknown: true,
      counts: { screened: 40, failed: 0 },
      victimRow: { status: 'screened', charge_state: 'charge_unknown' },
      victimCharges: 2,
    },
  ])(
    'a worker that fails between the bureau answer and the settle: $title',
    async (expected) => {
      const { summary, manifest, victim, stats } = await screenWithOneFailure(
        `crash mid batch ${expected.rebuyChargeUnknown}`,
        expected.rebuyChargeUnknown,
      );

      expectNothingLost(summary, 40);
      expect(manifest.counts).toMatchObject(expected.counts);
      expect(stats.chargesByDocument[victim]).toBe(expected.victimCharges);
      expect(
        Object.entries(stats.chargesByDocument)
          .filter(([document]) => document !== victim)
          .every(([, count]) => count === 1),
      ).toBe(true);
      expect(stats.charged).toBe(39 + expected.victimCharges);
      // The one document whose answer was lost is the one row whose charges the summary does not vouch for.
      expect(expectChargesReconciled(summary, stats.chargesByDocument)).toEqual({
        charged: 39,
        notCharged: 0,
        unknown: 1,
        chargesOnUnknown: expected.victimCharges,
      });
      expect(summary.find((line) => line.document === victim)).toMatchObject(expected.victimRow);
    },
    120_000,
  );
});
