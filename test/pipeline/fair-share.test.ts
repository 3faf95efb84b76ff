import { afterEach, describe, expect, it } from 'vitest';
import type { BatchManifest } from '../../src/contract/index.ts';
import { bureausWith, resultKeys } from '../../src/contract/index.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { startTestPipeline, type TestPipeline, writeCsv } from '../factories/pipeline.ts';

/**
 * Batches share the pipeline: a small list uploaded while a large one floods the work queue finishes first, and
 * neither pays twice. Small sizes, a low rate so the large batch lasts a few seconds, no timing beyond order.
 */
const LARGE = 400;
const SMALL = 12;
const RATE = 80;

let test: TestPipeline | undefined;
afterEach(async () => {
  await test?.stop();
  test = undefined;
});

/** Resolves with the time each batch's manifest appeared, and the manifest. */
async function completion(running: TestPipeline, batchId: string, other?: string) {
  await running.pipeline.waitForCompletion(batchId, { pollMs: 50 });
  const at = Date.now();
  // How far the other batch had got when this one completed.
  const otherSettled = other === undefined ? null : (await running.pipeline.progress(other)).settledRows;
  const manifest = JSON.parse(await running.pipeline.readText(resultKeys(batchId).manifest)) as BatchManifest;
  return { at, manifest, otherSettled };
}

async function contention(options: { fairQueues: boolean; priority?: boolean }) {
  test = await startTestPipeline({
    settings: {
      fairQueues: options.fairQueues,
      bureaus: bureausWith({ rateLimitPerSecond: RATE, rateLimitBurst: 5 }),
      workerBatchingWindowSeconds: 0,
    },
  });
  const running = test;
  const largeDocuments = distinctDocuments(LARGE, 'large-batch');
  const smallDocuments = distinctDocuments(SMALL + 20, 'small-batch')
    .filter((document) => !largeDocuments.includes(document))
    .slice(0, SMALL);
  const large = await running.pipeline.submit(
    await writeCsv('portfolio.csv', customerListCsv(largeDocuments)),
    'a',
  );
  const largeDone = completion(running, large.batchId);
  // The large batch is well under way (its whole backlog queued) before the small one arrives.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const small = await running.pipeline.submit(
    await writeCsv('new-customers.csv', customerListCsv(smallDocuments)),
    'a',
    { priority: options.priority ?? false },
  );
  const [largeResult, smallResult] = await Promise.all([
    largeDone,
    completion(running, small.batchId, large.batchId),
  ]);
  return {
    large: largeResult,
    small: smallResult,
    stats: running.emulator.stats(),
    smallDocuments,
    largeDocuments,
  };
}

describe('batches sharing the pipeline', () => {
  it('finishes a small batch uploaded during a large one first, every row of both settled and none paid twice', async () => {
    const { large, small, stats, smallDocuments, largeDocuments } = await contention({ fairQueues: true });

    expect(small.at).toBeLessThan(large.at);
    // Not just first by a hair: the large batch still had rows to settle when the small one was done.
    expect(small.otherSettled).toBeLessThan(LARGE);
    expect(small.manifest.counts).toMatchObject({ rows: SMALL, screened: SMALL, failed: 0 });
    expect(large.manifest.counts).toMatchObject({ rows: LARGE, screened: LARGE, failed: 0 });
    // One charge per unique valid document of either batch, never two.
    expect(stats.charged).toBe(SMALL + LARGE);
    expect(Object.keys(stats.chargesByDocument).sort()).toEqual(
      [...smallDocuments, ...largeDocuments].sort(),
    );
    expect(Math.max(...Object.values(stats.chargesByDocument))).toBe(1);
    expect(stats.byStatus['429'] ?? 0).toBe(0);
  }, 120_000);

  it('finishes a priority upload during a large one first, too', async () => {
    const { large, small, stats } = await contention({ fairQueues: true, priority: true });

    expect(small.at).toBeLessThan(large.at);
    expect(small.otherSettled).toBeLessThan(LARGE);
    expect(small.manifest.counts).toMatchObject({ rows: SMALL, screened: SMALL });
    expect(stats.charged).toBe(SMALL + LARGE);
  }, 120_000);
});
