import { describe, expect, it } from 'vitest';
import { type Invocation, measureFinaliser } from '../../bench/finaliser-scale.ts';

/** The highest peak heap among one kind of invocation, in MB. */
const peakOf = (invocations: readonly Invocation[], kind: Invocation['message']) =>
  Math.max(...invocations.filter((invocation) => invocation.message === kind).map((one) => one.peakHeapMb));

describe('the finaliser at scale', () => {
  it('keeps every invocation’s heap flat in the number of rows: ten times the rows, the same peak', async () => {
    // A first batch loads what a cold function loads once (the report page's charts): not a cost of rows.
    await measureFinaliser({ rows: 300, partRows: 100 });

    const small = await measureFinaliser({ rows: 5_000, partRows: 1_000 });
    const large = await measureFinaliser({ rows: 50_000, partRows: 1_000 });

    expect(large.filter((invocation) => invocation.message === 'part')).toHaveLength(50);
    for (const kind of ['batch', 'part', 'join'] as const)
      expect(peakOf(large, kind), kind).toBeLessThan(peakOf(small, kind) + 6);
  }, 120_000);

  it('keeps it flat with a policy too, every row decided in the finaliser', async () => {
    const policyFile = 'samples/policies/pessoa-fisica.json';
    await measureFinaliser({ rows: 300, partRows: 100, policyFile });

    const small = await measureFinaliser({ rows: 2_000, partRows: 1_000, policyFile });
    const large = await measureFinaliser({ rows: 20_000, partRows: 1_000, policyFile });

    for (const kind of ['batch', 'part', 'join'] as const)
      expect(peakOf(large, kind), kind).toBeLessThan(peakOf(small, kind) + 6);
  }, 120_000);

  it('keeps it flat for a re-screen: every row compared with its previous report, its changes announced', async () => {
    await measureFinaliser({ rows: 300, partRows: 100, rescreen: true });

    const small = await measureFinaliser({ rows: 5_000, partRows: 1_000, rescreen: true });
    const large = await measureFinaliser({ rows: 50_000, partRows: 1_000, rescreen: true });

    for (const kind of ['batch', 'part', 'join'] as const)
      expect(peakOf(large, kind), kind).toBeLessThan(peakOf(small, kind) + 6);
  }, 120_000);
});
