import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerSettings } from '../../lambdas/shared/pipeline-adapters.ts';
import { MemoryLogger } from '../../src/adapters/memory/memory-logger.ts';
import { finaliseBatch } from '../../src/application/finalise/finalise-batch.ts';
import { ingestUpload } from '../../src/application/ingest/ingest-upload.ts';
import { PURCHASE_POLL_SECONDS } from '../../src/application/worker/document-purchase.ts';
import { screenDocuments, type WorkerSettings } from '../../src/application/worker/screen-documents.ts';
import type { WorkMessage } from '../../src/domain/batch/index.ts';
import { BureauCallError } from '../../src/domain/bureau/index.ts';
import type { BureauGateway } from '../../src/domain/ports/index.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { type MemoryPipeline, startMemoryPipeline } from '../factories/memory-pipeline.ts';
import { deliveryOf, RecordingVisibility, RecordingWorkQueue } from '../factories/recording-ports.ts';

// One purchase per document across batches, on the in-memory stores (the purchases contract holds them to the
// DynamoDB adapter), against a bureau emulator that counts charges.
let test: MemoryPipeline;
let bureau: BureauGateway;
beforeAll(async () => {
  test = await startMemoryPipeline();
  bureau = test.bureau;
}, 60_000);
afterAll(async () => {
  await test?.stop();
});

const chargesOf = (document: string) => test.emulator.stats().chargesByDocument[document] ?? 0;

/** Ingests a list as an upload would, keeping its messages for the test to deliver. */
async function ingestBatch(documents: readonly string[], freshnessHours = 24) {
  const queue = new RecordingWorkQueue();
  const { batchId } = await ingestUpload(test.upload(customerListCsv(documents), 'a'), {
    ...test.adapters,
    queue,
    logger: new MemoryLogger(),
    settings: { defaultBureau: 'a', maxRows: 1000, excelSummary: false, freshnessHours },
  });
  return { batchId, queue };
}

function workerDeps(
  queue: RecordingWorkQueue,
  overrides: { bureau?: BureauGateway; settings?: Partial<WorkerSettings> } = {},
) {
  return {
    ...test.adapters,
    queue,
    visibility: new RecordingVisibility(),
    logger: new MemoryLogger(),
    bureau: overrides.bureau ?? bureau,
    settings: { ...workerSettings(test.settings), ...overrides.settings },
  };
}

/**
 * Delivers every message of the queues, and those sent again (deferred or given back), until each batch is
 * settled: several workers at once, the batches' messages interleaved, as SQS would hand them out.
 */
async function deliverAll(batches: readonly { batchId: string; queue: RecordingWorkQueue }[]) {
  const delivered = batches.map(() => 0);
  for (let round = 0; round < 200; round++) {
    const invocations: Promise<void>[] = [];
    batches.forEach(({ queue }, index) => {
      const pending = queue.work.slice(delivered[index]);
      delivered[index] = queue.work.length;
      for (let start = 0; start < pending.length; start += 5) {
        const records = pending.slice(start, start + 5).map(deliveryOf);
        invocations.push(
          screenDocuments(records, workerDeps(queue)).then(({ batchItemFailures }) => {
            // What the worker gave back comes again, as SQS redelivers it after its visibility delay.
            const failed = new Set(batchItemFailures.map((failure) => failure.itemIdentifier));
            for (const record of records)
              if (failed.has(record.messageId)) queue.work.push(JSON.parse(record.body) as WorkMessage);
          }),
        );
      }
    });
    await Promise.all(invocations);
    const unsettled = await Promise.all(
      batches.map(async ({ batchId }) => {
        const batch = await test.store.getBatch(batchId);
        return batch?.settled !== batch?.rows;
      }),
    );
    if (!unsettled.some(Boolean)) return;
    if (invocations.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the batches did not settle in 200 rounds');
}

describe('one purchase per document across batches', () => {
  it('buys each of 100 documents two batches share once, the second batch settling them from the first’s answers', async () => {
    const shared = distinctDocuments(100, 'two batches share');
    const first = await ingestBatch(shared);
    const second = await ingestBatch([...shared].reverse());

    await deliverAll([first, second]);

    expect(shared.map(chargesOf)).toEqual(shared.map(() => 1));
    const firstBatch = await test.store.getBatch(first.batchId);
    const secondBatch = await test.store.getBatch(second.batchId);
    expect((firstBatch?.screened ?? 0) + (secondBatch?.screened ?? 0)).toBe(100);
    expect((firstBatch?.cached ?? 0) + (secondBatch?.cached ?? 0)).toBe(100);
    const manifest = await finaliseBatch(second.batchId, {
      ...workerDeps(second.queue),
      events: test.events,
    });
    expect(manifest?.counts).toMatchObject({ rows: 100, failed: 0 });
    expect((manifest?.charges.charged ?? 0) + (manifest?.charges.not_charged ?? 0)).toBe(100);
  }, 60_000);

  it('shares a purchase in flight even with freshness off, and never a report bought before the batch', async () => {
    const [document] = distinctDocuments(1, 'freshness off') as [string];
    const first = await ingestBatch([document], 0);
    const second = await ingestBatch([document], 0);
    await deliverAll([first, second]);
    expect(chargesOf(document)).toBe(1);
    // Strictly after that purchase: one made in the very millisecond a batch is created counts as made since (>=),
    // which a fast run could otherwise hit.
    await new Promise((resolve) => setTimeout(resolve, 5));

    const later = await ingestBatch([document], 0);
    await deliverAll([later]);

    expect(chargesOf(document)).toBe(2);
    expect(await test.store.getBatch(later.batchId)).toMatchObject({ screened: 1, cached: 0 });
  });

  it.each([
    ['a 429', new BureauCallError('slow down', { kind: 'rate_limited', status: 429, retryAfterSeconds: 1 })],
    ['a timeout', new BureauCallError('no answer within 2000 ms', { kind: 'transient', status: null })],
  ])(
    'does not let a second batch buy the document while %s on the first batch’s purchase waits to be retried',
    async (_, failure) => {
      const [document] = distinctDocuments(1, `retried purchase ${failure.kind}`) as [string];
      const first = await ingestBatch([document]);
      const second = await ingestBatch([document]);
      let failed = false;
      const failingOnce: BureauGateway = {
        fetchReport: async (...args) => {
          if (!failed) {
            failed = true;
            throw failure;
          }
          return bureau.fetchReport(...args);
        },
      };
      const [firstMessage] = first.queue.work as [WorkMessage];
      const [secondMessage] = second.queue.work as [WorkMessage];

      // A timed-out call is retried only for a customer who buys such calls again (by default its row would end
      // failed, charge unknown, and give the purchase up).
      const firstAttempt = await screenDocuments(
        [deliveryOf(firstMessage)],
        workerDeps(first.queue, {
          bureau: failingOnce,
          settings: { rateLimitRetriesPerInvocation: 0, rebuyChargeUnknown: true },
        }),
      );
      // Meanwhile the second batch's row comes, again and again: it waits, and buys nothing.
      for (let attempt = 0; attempt < 3; attempt++)
        await screenDocuments([deliveryOf(secondMessage)], workerDeps(second.queue));
      const chargesWhileWaiting = chargesOf(document);
      await screenDocuments([deliveryOf(firstMessage)], workerDeps(first.queue));
      await screenDocuments([deliveryOf(secondMessage)], workerDeps(second.queue));

      expect(firstAttempt.batchItemFailures).toHaveLength(1);
      // Each wait is a new message due soon (never a receive of the old one, which SQS would count to the DLQ).
      expect(second.queue.deferred.map(({ delaySeconds }) => delaySeconds <= PURCHASE_POLL_SECONDS)).toEqual([
        true,
        true,
        true,
      ]);
      expect(chargesWhileWaiting).toBe(0);
      expect(chargesOf(document)).toBe(1);
      expect(await test.store.getBatch(first.batchId)).toMatchObject({ screened: 1 });
      expect(await test.store.getBatch(second.batchId)).toMatchObject({ cached: 1, screened: 0 });
    },
  );

  it('settles a waiting batch from the answer a dead buyer persisted, once its lease ran out', async () => {
    const [document] = distinctDocuments(1, 'dead buyer') as [string];
    const first = await ingestBatch([document]);
    const second = await ingestBatch([document]);
    // The buyer persists the answer and dies before it records it on the purchase or settles its row.
    const dyingPurchases = new Proxy(test.purchases, {
      get(target, property, receiver) {
        if (property === 'recordAnswer') return () => new Promise(() => {});
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    void screenDocuments([deliveryOf(first.queue.work[0] as WorkMessage)], {
      ...workerDeps(first.queue, { settings: { claimLeaseSeconds: 1 } }),
      purchases: dyingPurchases,
    });
    await expect.poll(() => chargesOf(document), { timeout: 5000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1200));

    await screenDocuments([deliveryOf(second.queue.work[0] as WorkMessage)], workerDeps(second.queue));
    await screenDocuments([deliveryOf(first.queue.work[0] as WorkMessage)], workerDeps(first.queue));

    expect(chargesOf(document)).toBe(1);
    expect(await test.store.getBatch(second.batchId)).toMatchObject({ cached: 1, screened: 0 });
    expect(await test.store.getBatch(first.batchId)).toMatchObject({ screened: 1 });
  });

  it('lets the waiting batch buy when the first batch gave its purchase up without an answer', async () => {
    const [document] = distinctDocuments(1, 'given up') as [string];
    const first = await ingestBatch([document]);
    const second = await ingestBatch([document]);
    const refusing: BureauGateway = {
      fetchReport: async () => {
        throw new BureauCallError('refused', {
          kind: 'rejected',
          status: 422,
          serviceMessage: 'documento bloqueado',
        });
      },
    };

    await screenDocuments(
      [deliveryOf(first.queue.work[0] as WorkMessage)],
      workerDeps(first.queue, { bureau: refusing }),
    );
    await screenDocuments([deliveryOf(second.queue.work[0] as WorkMessage)], workerDeps(second.queue));

    expect(await test.store.getBatch(first.batchId)).toMatchObject({ failed: 1 });
    expect(await test.store.getBatch(second.batchId)).toMatchObject({ screened: 1 });
    expect(chargesOf(document)).toBe(1);
  });
});
