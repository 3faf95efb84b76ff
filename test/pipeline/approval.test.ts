import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decideBatchApproval } from '../../src/application/batch-control/batch-control.ts';
import { bureausWith, EVENTS, resultKeys } from '../../src/contract/index.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { screenFile, startTestPipeline, type TestPipeline, writeCsv } from '../factories/pipeline.ts';

let test: TestPipeline | undefined;
afterEach(async () => {
  await test?.stop();
  test = undefined;
});

async function pipelineWithThreshold(approvalThreshold: number | null) {
  test = await startTestPipeline({
    settings: {
      approvalThreshold,
      bureaus: bureausWith((bureau) => ({ pricePerQuery: bureau === 'a' ? 2.7 : 5 })),
    },
  });
  return test;
}

/** Submits a list and waits until ingest has decided: it runs, or it waits for approval. */
async function submitList(pipeline: TestPipeline, documents: readonly string[]) {
  return pipeline.pipeline.submit(await writeCsv('list.csv', customerListCsv(documents)), 'a');
}

describe('approval of large batches', () => {
  it('says in quote.json, before anything is bought, when the queries would outlast the batch, and what fits', async () => {
    // 30 documents at one query a day: a month of queries, past what a queued document waits for.
    test = await startTestPipeline({
      settings: { approvalThreshold: 10, bureaus: bureausWith({ rateLimitPerSecond: 1 / 86_400 }) },
    });

    const outcome = await submitList(test, distinctDocuments(30, 'approval overrun'));
    const quote = JSON.parse(await test.pipeline.readText(resultKeys(outcome.batchId).quote));

    expect(outcome).toMatchObject({ outcome: 'awaiting_approval' });
    expect(quote).toMatchObject({ to_buy: 30, overrun: { documents_per_part: expect.any(Number) } });
    expect(quote.overrun.parts).toBeGreaterThan(1);
    expect(quote.overrun.parts * quote.overrun.documents_per_part).toBeGreaterThanOrEqual(30);
    expect(quote.overrun.rate_per_second).toBeGreaterThan(1 / 86_400);
    expect(test.emulator.stats().requests).toBe(0);
  });

  it('buys nothing above the threshold until approved, then screens every document once', async () => {
    const pipeline = await pipelineWithThreshold(10);
    const documents = distinctDocuments(30, 'approval');

    const outcome = await submitList(pipeline, documents);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const waiting = await pipeline.pipeline.store.getBatch(outcome.batchId);
    const quote = JSON.parse(await pipeline.pipeline.readText(resultKeys(outcome.batchId).quote));
    const chargedWhileWaiting = pipeline.emulator.stats().requests;

    const approved = await decideBatchApproval(outcome.batchId, 'approved', {
      ...pipeline.pipeline.adapters,
      logger: pipeline.pipeline.logger,
    });
    const done = await pipeline.pipeline.waitForCompletion(outcome.batchId, { pollMs: 100 });

    expect(outcome).toMatchObject({
      outcome: 'awaiting_approval',
      quote: { to_buy: 30, estimated_cost: 81 },
    });
    expect(waiting).toMatchObject({ status: 'awaiting_approval', quote: { unique: 30, to_buy: 30 } });
    expect(quote).toEqual({ ...waiting?.quote, overrun: null });
    expect(chargedWhileWaiting).toBe(0);
    expect(pipeline.pipeline.events.events.map((event) => event.detailType)).toContain(
      EVENTS.batchAwaitingApproval,
    );
    expect(approved).toEqual({ outcome: 'approved', batchId: outcome.batchId, rows: 30 });
    expect(done).toMatchObject({ status: 'completed', settledRows: 30 });
    expect(pipeline.emulator.stats().charged).toBe(30);
    expect(Object.values(pipeline.emulator.stats().chargesByDocument).every((count) => count === 1)).toBe(
      true,
    );
  }, 120_000);

  it('completes a rejected batch with every valid row not queried, and charges nothing', async () => {
    const pipeline = await pipelineWithThreshold(10);
    const outcome = await submitList(pipeline, [...distinctDocuments(20, 'rejected'), 'not a document']);

    const rejected = await decideBatchApproval(outcome.batchId, 'rejected', {
      ...pipeline.pipeline.adapters,
      logger: pipeline.pipeline.logger,
    });
    const again = await decideBatchApproval(outcome.batchId, 'approved', {
      ...pipeline.pipeline.adapters,
      logger: pipeline.pipeline.logger,
    });
    await pipeline.pipeline.waitForCompletion(outcome.batchId, { pollMs: 100 });
    const { manifest } = await pipeline.pipeline.downloadResults(
      outcome.batchId,
      await mkdtemp(join(tmpdir(), 'credit-screen-approval-')),
    );

    expect(rejected).toEqual({ outcome: 'rejected', batchId: outcome.batchId, rows: 20 });
    expect(again).toMatchObject({ outcome: 'not_awaiting_approval' });
    expect(pipeline.emulator.stats().requests).toBe(0);
    expect(manifest.status).toBe('rejected');
    expect(manifest.counts).toMatchObject({ rows: 21, not_queried: 20, invalid_document: 1, screened: 0 });
    expect(manifest.charges).toEqual({ charged: 0, not_charged: 21, charge_unknown: 0 });
  }, 120_000);

  it('runs at once when reused reports bring what it buys under the threshold', async () => {
    const pipeline = await pipelineWithThreshold(10);
    const known = distinctDocuments(25, 'known');
    // The first list waits (25 to buy); approved, its reports are stored.
    const first = await submitList(pipeline, known);
    await decideBatchApproval(first.batchId, 'approved', {
      ...pipeline.pipeline.adapters,
      logger: pipeline.pipeline.logger,
    });
    await pipeline.pipeline.waitForCompletion(first.batchId, { pollMs: 100 });

    const second = await screenFile(
      pipeline,
      await writeCsv('second.csv', customerListCsv([...known, ...distinctDocuments(5, 'new ones')])),
    );

    expect(second.manifest).toMatchObject({ status: 'completed', counts: { cached: 25, screened: 5 } });
    expect(second.manifest.quote).toMatchObject({ unique: 30, reusable: 25, to_buy: 5 });
    expect(pipeline.emulator.stats().charged).toBe(30);
  }, 120_000);
});
