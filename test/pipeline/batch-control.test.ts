import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelBatch, redriveBatch } from '../../src/application/batch-control/batch-control.ts';
import { bureausWith, EVENTS } from '../../src/contract/index.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { parseSummary, startTestPipeline, type TestPipeline, writeCsv } from '../factories/pipeline.ts';

let test: TestPipeline;

beforeAll(async () => {
  // One attempt per document, so failures settle at once; a slow-ish emulator so a batch can be caught running.
  test = await startTestPipeline({
    settings: {
      maxAttempts: 1,
      freshnessHours: 0,
      bureaus: bureausWith({ rateLimitPerSecond: 40, rateLimitBurst: 4 }),
    },
  });
}, 60_000);
afterAll(async () => {
  await test?.stop();
});

const control = () => ({
  ...test.pipeline.adapters,
  queue: test.pipeline.adapters.queue,
  logger: test.pipeline.logger,
});

async function resultsOf(batchId: string) {
  const manifest = JSON.parse(await test.pipeline.readText(`results/${batchId}/manifest.json`));
  const summary = parseSummary(await test.pipeline.readText(`results/${batchId}/summary.csv`));
  return { manifest, summary };
}

describe('cancelling a batch while it runs', () => {
  it('settles every queued row as cancelled without a bureau call, finishes the rest, and loses no row', async () => {
    test.emulator.reset();
    test.emulator.configure({ latencyMs: 50, errorRate: 0 });
    const documents = distinctDocuments(200, 'cancel');
    const outcome = await test.pipeline.submit(await writeCsv('cancel.csv', customerListCsv(documents)), 'a');
    await expect
      .poll(async () => (await test.pipeline.progress(outcome.batchId)).settledRows, {
        timeout: 30_000,
        interval: 50,
      })
      .toBeGreaterThanOrEqual(20);

    const cancelled = await cancelBatch(outcome.batchId, control());
    await test.pipeline.waitForCompletion(outcome.batchId, { pollMs: 100 });
    const { manifest, summary } = await resultsOf(outcome.batchId);
    const stats = test.emulator.stats();

    expect(cancelled).toMatchObject({ outcome: 'cancelled' });
    expect(manifest.status).toBe('cancelled');
    expect(summary).toHaveLength(documents.length);
    expect(manifest.counts.screened + manifest.counts.cancelled).toBe(documents.length);
    expect(manifest.counts.cancelled).toBeGreaterThanOrEqual(
      (cancelled as { cancelledRows: number }).cancelledRows,
    );
    expect(manifest.counts.cancelled).toBeGreaterThan(100);
    // Only what was screened was paid, once; nothing cancelled reached the bureau.
    expect(stats.charged).toBe(manifest.counts.screened);
    expect(Object.values(stats.chargesByDocument).every((count) => count === 1)).toBe(true);
    for (const line of summary.filter((row) => row.status === 'cancelled')) {
      expect(stats.chargesByDocument[line.document as string]).toBeUndefined();
      expect(line.status_detail).toBe('batch cancelled before this document was screened');
    }
  }, 60_000);

  it('refuses to cancel a batch that does not exist or has finished', async () => {
    expect(await cancelBatch('20260101-nope', control())).toMatchObject({ outcome: 'not_found' });
    const outcome = await test.pipeline.submit(
      await writeCsv('done.csv', customerListCsv(distinctDocuments(3, 'done'))),
      'a',
    );
    await test.pipeline.waitForCompletion(outcome.batchId, { pollMs: 50 });

    expect(await cancelBatch(outcome.batchId, control())).toMatchObject({ outcome: 'already_finished' });
  }, 60_000);
});

describe('redriving a batch', () => {
  it('sends only the failed rows back, rewrites the results as revision 2, and charges nothing twice', async () => {
    test.emulator.reset();
    test.emulator.configure({ latencyMs: 0, errorRate: 0.4 });
    const documents = distinctDocuments(120, 'redrive');
    const outcome = await test.pipeline.submit(
      await writeCsv('redrive.csv', customerListCsv(documents)),
      'a',
    );
    await expect(redriveBatch(outcome.batchId, control())).resolves.toMatchObject({
      outcome: 'not_completed',
    });
    await test.pipeline.waitForCompletion(outcome.batchId, { pollMs: 100 });
    const first = await resultsOf(outcome.batchId);
    const chargedFirst = { ...test.emulator.stats().chargesByDocument };
    test.emulator.configure({ errorRate: 0 });

    const redriven = await redriveBatch(outcome.batchId, control());
    await test.pipeline.waitForCompletion(outcome.batchId, { pollMs: 100 });
    const second = await resultsOf(outcome.batchId);
    const charges = test.emulator.stats().chargesByDocument;

    expect(first.manifest.counts.failed).toBeGreaterThan(10);
    expect(redriven).toEqual({
      outcome: 'redriven',
      batchId: outcome.batchId,
      requeued: first.manifest.counts.failed,
      revision: 2,
      left: 0,
    });
    expect(second.manifest).toMatchObject({ revision: 2, status: 'completed' });
    expect(second.manifest.counts).toMatchObject({
      screened: documents.length,
      failed: 0,
      rows: documents.length,
    });
    expect(second.summary.map((line) => line.status)).toEqual(documents.map(() => 'screened'));
    for (const document of documents) expect(charges[document]).toBe(1);
    for (const document of Object.keys(chargedFirst)) expect(charges[document]).toBe(chargedFirst[document]);
    const revisions = () =>
      test.pipeline.events.events.flatMap((event) =>
        event.detailType === EVENTS.batchCompleted && event.detail.batchId === outcome.batchId
          ? [event.detail.revision]
          : [],
      );
    // Announced once the batch is complete: the completion can be seen a moment before its announcement.
    await expect.poll(revisions, { timeout: 10_000 }).toEqual([1, 2]);
    expect(await redriveBatch(outcome.batchId, control())).toMatchObject({ outcome: 'nothing_to_redrive' });
  }, 90_000);
});
