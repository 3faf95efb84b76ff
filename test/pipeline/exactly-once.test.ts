import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerSettings } from '../../lambdas/shared/pipeline-adapters.ts';
import { MemoryLogger } from '../../src/adapters/memory/memory-logger.ts';
import { redriveBatch } from '../../src/application/batch-control/batch-control.ts';
import { finaliseIfLast } from '../../src/application/completion/finalise-if-last.ts';
import { settleDeadLetters } from '../../src/application/dead-letter/settle-dead-letters.ts';
import { finaliseBatch } from '../../src/application/finalise/finalise-batch.ts';
import { ingestUpload } from '../../src/application/ingest/ingest-upload.ts';
import { screenDocuments, type WorkerSettings } from '../../src/application/worker/screen-documents.ts';
import {
  CHARGE_UNKNOWN_DETAIL,
  NOT_APPROVED_DETAIL,
  type WorkMessage,
} from '../../src/domain/batch/index.ts';
import { BureauCallError } from '../../src/domain/bureau/index.ts';
import type { BatchStore, BureauGateway, RateLimiter } from '../../src/domain/ports/index.ts';
import { asStores } from '../factories/batch-records.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { type MemoryPipeline, startMemoryPipeline } from '../factories/memory-pipeline.ts';
import { parseSummary } from '../factories/pipeline.ts';
import { deliveryOf, RecordingVisibility, RecordingWorkQueue } from '../factories/recording-ports.ts';

// The use cases on the in-memory stores (which keep DynamoDB's rules: the contract suite runs on both), against a
// real bureau emulator that counts charges.
let test: MemoryPipeline;
let bureau: BureauGateway;
beforeAll(async () => {
  test = await startMemoryPipeline();
  bureau = test.bureau;
}, 60_000);
afterAll(async () => {
  await test?.stop();
});

/** Ingests a list without delivering its messages: the test delivers them, as often as it likes. */
async function ingestQuietly(
  documents: readonly string[],
  options: {
    chunkRows?: number;
    queue?: RecordingWorkQueue;
    freshnessHours?: number;
    now?: () => Date;
    approvalThreshold?: number;
  } = {},
) {
  const queue = options.queue ?? new RecordingWorkQueue();
  const upload = test.upload(customerListCsv(documents), 'a');
  const ingest = () =>
    ingestUpload(upload, {
      ...test.adapters,
      queue,
      logger: new MemoryLogger(),
      now: options.now,
      settings: {
        defaultBureau: 'a',
        maxRows: 1000,
        excelSummary: false,
        chunkRows: options.chunkRows,
        freshnessHours: options.freshnessHours,
        ...(options.approvalThreshold === undefined
          ? {}
          : {
              approval: {
                threshold: options.approvalThreshold,
                pricePerQuery: { a: 2.7, b: 5 },
                ratePerSecond: { a: 10, b: 10 },
              },
            }),
      },
    });
  return { upload, queue, ingest };
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

const chargesOf = (document: string) => test.emulator.stats().chargesByDocument[document] ?? 0;

describe('exactly-once screening', () => {
  it('calls the bureau once when SQS delivers the same message twice at the same moment', async () => {
    const [document] = distinctDocuments(1, 'duplicate delivery');
    const { queue, ingest } = await ingestQuietly([document as string]);
    const { batchId } = await ingest();
    const message = queue.work[0] as WorkMessage;
    const deps = workerDeps(queue);
    const [first, second] = await Promise.all([
      screenDocuments([deliveryOf(message)], deps),
      screenDocuments([deliveryOf(message)], deps),
    ]);
    expect(chargesOf(document as string)).toBe(1);
    // One delivery settled the row; the other was told to come back later, and then finds it done.
    expect(first.batchItemFailures.length + second.batchItemFailures.length).toBeLessThanOrEqual(1);
    expect((await screenDocuments([deliveryOf(message)], deps)).batchItemFailures).toEqual([]);
    expect(chargesOf(document as string)).toBe(1);
    expect(await test.store.getBatch(batchId)).toMatchObject({
      settled: 1,
      screened: 1,
      status: 'finalising',
    });
    expect(queue.finalise).toEqual([{ version: 1, batchId }]);
  });

  it('never buys again by itself the document in flight when a worker dies: charge unknown, bought once more by a redrive', async () => {
    const documents = distinctDocuments(3, 'crash');
    const { queue, ingest } = await ingestQuietly(documents);
    const { batchId } = await ingest();
    const [crashing, ...others] = queue.work as [WorkMessage, ...WorkMessage[]];
    // The worker gets the bureau's answer and then never runs again (the process was killed).
    const dying: BureauGateway = {
      fetchReport: async (...args) => {
        await bureau.fetchReport(...args);
        return new Promise(() => {});
      },
    };
    void screenDocuments(
      [deliveryOf(crashing)],
      workerDeps(queue, { bureau: dying, settings: { claimLeaseSeconds: 1 } }),
    );
    await expect.poll(() => chargesOf(crashing.document), { timeout: 5000 }).toBe(1);
    // SQS brings the message back; once the dead worker's lease has run out, another worker takes the row.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const deps = workerDeps(queue);
    expect(
      (await screenDocuments([deliveryOf(crashing), ...others.map(deliveryOf)], deps)).batchItemFailures,
    ).toEqual([]);
    expect(chargesOf(crashing.document)).toBe(1);
    for (const message of others) expect(chargesOf(message.document)).toBe(1);
    expect(await test.store.getBatch(batchId)).toMatchObject({ settled: 3, screened: 2, failed: 1 });
    // The lost answer is owned up to: the row says its charge is not known for sure, and how to buy it again.
    const manifest = await finaliseBatch(batchId, { ...deps, events: test.events });
    expect(manifest?.charges).toEqual({ charged: 2, not_charged: 0, charge_unknown: 1 });
    const failedRow = (await test.store.getRows(batchId, [crashing.row]))[0];
    expect(failedRow).toMatchObject({ state: 'failed', detail: CHARGE_UNKNOWN_DETAIL, callPending: false });

    // A plain redrive leaves it; the user's say (a redrive of the rows whose charge is unknown) sends it back, and
    // it is bought exactly once more.
    const redriveQueue = new RecordingWorkQueue();
    const control = { ...test.adapters, queue: redriveQueue, logger: new MemoryLogger() };
    const plain = await redriveBatch(batchId, control);
    expect(plain).toEqual({ outcome: 'nothing_to_redrive', batchId, left: 1 });
    expect(redriveQueue.work).toEqual([]);
    const redriven = await redriveBatch(batchId, control, 'charge_unknown');
    await screenDocuments(redriveQueue.work.map(deliveryOf), workerDeps(redriveQueue));
    expect(redriven).toMatchObject({ outcome: 'redriven', requeued: 1, left: 0 });
    expect(chargesOf(crashing.document)).toBe(2);
    expect(await test.store.getBatch(batchId)).toMatchObject({ screened: 3, failed: 0 });
  });

  it('buys a row again without a word when its holder died before its call left', async () => {
    const documents = distinctDocuments(2, 'died before the call');
    const { queue, ingest } = await ingestQuietly(documents);
    const { batchId } = await ingest();
    const [dying, other] = queue.work as [WorkMessage, WorkMessage];
    // The worker claims the row and never gets as far as the call (the process was killed).
    const claim = await test.store.claimRow(batchId, dying.row, 1);
    expect(claim.claimed).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1200));

    const deps = workerDeps(queue);
    await screenDocuments([deliveryOf(dying), deliveryOf(other)], deps);
    const manifest = await finaliseBatch(batchId, { ...deps, events: test.events });

    expect([chargesOf(dying.document), chargesOf(other.document)]).toEqual([1, 1]);
    expect(manifest?.charges).toEqual({ charged: 2, not_charged: 0, charge_unknown: 0 });
  });

  it('finalises once however many workers see the last row settle, and announces the batch once', async () => {
    const { queue, ingest } = await ingestQuietly(distinctDocuments(4, 'race'));
    const { batchId } = await ingest();
    const deps = workerDeps(queue);
    await Promise.all(queue.work.map((message) => screenDocuments([deliveryOf(message)], deps)));
    await Promise.all(Array.from({ length: 20 }, () => finaliseIfLast(batchId, deps)));
    expect(queue.finalise).toEqual([{ version: 1, batchId }]);
    // The finalise message itself may be delivered twice, concurrently.
    const eventsBefore = test.events.events.length;
    const runs = await Promise.all(
      Array.from({ length: 5 }, () => finaliseBatch(batchId, { ...deps, events: test.events })),
    );
    expect(runs.filter((manifest) => manifest !== null)).toHaveLength(1);
    expect(test.events.events.length - eventsBefore).toBe(1);
    expect(await test.store.getBatch(batchId)).toMatchObject({ status: 'completed' });
  });

  it('resumes an interrupted ingest without resetting rows a worker already settled, and charges nothing twice', async () => {
    const documents = distinctDocuments(120, 'resume');
    const queue = new RecordingWorkQueue();
    queue.failOnSend = 2; // the second chunk's messages never leave
    const { ingest } = await ingestQuietly(documents, { chunkRows: 50, queue });
    await expect(ingest()).rejects.toThrow('SQS unreachable');
    const deps = workerDeps(queue);
    // Workers screen what the first chunk queued while S3 retries the ingest.
    await screenDocuments(queue.work.slice(0, 10).map(deliveryOf), deps);
    const outcome = await ingest();
    expect(outcome).toMatchObject({ outcome: 'queued', rows: 120, toScreen: 120 });
    for (let start = 0; start < queue.work.length; start += 10) {
      await screenDocuments(queue.work.slice(start, start + 10).map(deliveryOf), deps);
    }
    for (const document of documents) expect(chargesOf(document)).toBe(1);
    const manifest = await finaliseBatch(outcome.batchId, { ...deps, events: test.events });
    expect(manifest?.counts).toMatchObject({ rows: 120, screened: 120, failed: 0 });
  }, 60_000);

  it('maps the same upload event to one batch when S3 repeats it after UTC midnight, and queues nothing again', async () => {
    const documents = distinctDocuments(5, 'repeated event');
    let clock = new Date('2026-11-21T23:59:59.500Z');
    const { queue, ingest } = await ingestQuietly(documents, { now: () => clock });

    const first = await ingest();
    clock = new Date('2026-11-22T00:00:01.000Z');
    const repeated = await ingest();

    expect(first).toMatchObject({ outcome: 'queued', toScreen: 5 });
    expect(repeated).toEqual({ batchId: first.batchId, outcome: 'already_ingested' });
    expect(queue.work).toHaveLength(5);
  });

  it('settles a row whose message reached the dead-letter queue as failed, and the batch still completes', async () => {
    const { queue, ingest } = await ingestQuietly(distinctDocuments(3, 'dead letter'));
    const { batchId } = await ingest();
    const [lost, ...rest] = queue.work as [WorkMessage, ...WorkMessage[]];
    const deps = workerDeps(queue);
    expect(await settleDeadLetters([deliveryOf(lost)], deps)).toEqual({ batchItemFailures: [] });
    // A second copy of the same dead letter changes nothing.
    await settleDeadLetters([deliveryOf(lost)], deps);
    await screenDocuments(rest.map(deliveryOf), deps);
    expect(chargesOf(lost.document)).toBe(0);
    const manifest = await finaliseBatch(batchId, { ...deps, events: test.events });
    expect(manifest?.counts).toMatchObject({ rows: 3, screened: 2, failed: 1 });
  });

  it('audits once, as charge unknown, the call a dead-lettered row’s holder wrote ahead and never saw answered', async () => {
    const [document] = distinctDocuments(1, 'dead letter, call lost') as [string];
    const { queue, ingest } = await ingestQuietly([document]);
    const { batchId } = await ingest();
    const held = await test.store.claimRow(batchId, 1, 60);
    if (!held.claimed) throw new Error('the row was not claimed');
    await test.store.markCallSent(batchId, 1, held.claimToken, Date.parse('2026-11-28T10:00:00.000Z'));
    const deps = { ...workerDeps(queue), auditBasis: { purpose: 'credit', legalBasis: 'art. 7, X' } };

    await settleDeadLetters(queue.work.map(deliveryOf), deps);
    await settleDeadLetters(queue.work.map(deliveryOf), deps);
    const [row] = await test.store.getRows(batchId, [1]);
    const entries = await test.audit.log.read({ documentKey: await test.audit.documentKeys.keyOf(document) });

    expect(row).toMatchObject({ state: 'failed' });
    expect(entries.filter((entry) => entry.batchId === batchId)).toEqual([
      expect.objectContaining({
        kind: 'bureau_request',
        at: '2026-11-28T10:00:00.000Z',
        charge: 'charge_unknown',
        httpStatus: null,
        purpose: 'credit',
      }),
    ]);
  });

  it('reuses fresh reports at ingest, counting them right across an interrupted ingest, and pays only for the rest', async () => {
    const known = distinctDocuments(60, 'known before');
    const first = await ingestQuietly(known);
    const { batchId: firstBatch } = await first.ingest();
    const deps = workerDeps(first.queue);
    for (let start = 0; start < first.queue.work.length; start += 10) {
      await screenDocuments(first.queue.work.slice(start, start + 10).map(deliveryOf), deps);
    }
    expect(await test.store.getBatch(firstBatch)).toMatchObject({ settled: 60 });
    const chargedBefore = test.emulator.stats().charged;

    // With reuse turned off (0 hours), the same documents are all queued again.
    const unfresh = await ingestQuietly(known, { freshnessHours: 0 });
    const { batchId: unfreshBatch } = await unfresh.ingest();
    expect(unfresh.queue.work).toHaveLength(60);
    expect(await test.store.getBatch(unfreshBatch)).toMatchObject({ cached: 0, settled: 0 });

    const fresh = distinctDocuments(40, 'new ones');
    const queue = new RecordingWorkQueue();
    queue.failOnSend = 2;
    const second = await ingestQuietly([...known, ...fresh], { chunkRows: 30, queue, freshnessHours: 24 });
    await expect(second.ingest()).rejects.toThrow('SQS unreachable');
    const outcome = await second.ingest();
    expect(outcome).toMatchObject({ outcome: 'queued', rows: 100, toScreen: 100 });
    const afterIngest = await test.store.getBatch(outcome.batchId);
    expect(afterIngest).toMatchObject({ cached: 60, settled: 60 });
    const secondDeps = workerDeps(queue);
    for (let start = 0; start < queue.work.length; start += 10) {
      await screenDocuments(queue.work.slice(start, start + 10).map(deliveryOf), secondDeps);
    }
    expect(test.emulator.stats().charged - chargedBefore).toBe(40);
    expect(queue.finalise).toEqual([{ version: 1, batchId: outcome.batchId }]);
    const manifest = await finaliseBatch(outcome.batchId, { ...secondDeps, events: test.events });
    expect(manifest?.counts).toMatchObject({ rows: 100, cached: 60, screened: 40 });
  }, 60_000);

  it('settles as cancelled, without a bureau call, a message of a batch being cancelled', async () => {
    const documents = distinctDocuments(3, 'cancel in flight');
    const { queue, ingest } = await ingestQuietly(documents);
    const { batchId } = await ingest();
    // A cancel has begun (the batch is marked) but has not reached these rows yet.
    await test.store.markCancelRequested(batchId);
    const deps = workerDeps(queue);

    const result = await screenDocuments(
      queue.work.map((message) => deliveryOf(message)),
      deps,
    );
    await finaliseBatch(batchId, { ...deps, events: test.events });
    const batch = await test.store.getBatch(batchId);

    expect(result.batchItemFailures).toEqual([]);
    expect(documents.map(chargesOf)).toEqual([0, 0, 0]);
    expect(batch).toMatchObject({ status: 'completed', cancelled: 3, screened: 0, settled: 3 });
  });

  it('buys nothing for a batch waiting for approval, nor for a rejected one whose reject was interrupted', async () => {
    const documents = distinctDocuments(3, 'not approved in flight');
    const { queue, ingest } = await ingestQuietly(documents, { approvalThreshold: 1 });
    const { batchId } = await ingest();
    // Messages no one should have sent: whatever sends them, a worker must not buy.
    const messages: WorkMessage[] = documents.map((document, index) => ({
      version: 1,
      batchId,
      row: index + 1,
      document,
      bureau: 'a',
    }));
    const deps = workerDeps(queue);

    await screenDocuments(messages.map(deliveryOf), deps);
    const waiting = await test.store.getBatch(batchId);
    const waitingRows = await test.store.getRows(batchId, [1, 2, 3]);
    // Rejected, but none of its rows withheld yet: the reject stopped before it reached them.
    await test.store.decideApproval(batchId, 'rejected');
    await screenDocuments(messages.map(deliveryOf), deps);
    const rejectedRows = await test.store.getRows(batchId, [1, 2, 3]);

    expect(waiting).toMatchObject({ status: 'awaiting_approval', settled: 0 });
    expect(waitingRows.map((row) => row.state)).toEqual(['queued', 'queued', 'queued']);
    expect(rejectedRows.map((row) => [row.state, row.detail])).toEqual(
      Array(3).fill(['not_queried', NOT_APPROVED_DETAIL]),
    );
    expect(documents.map(chargesOf)).toEqual([0, 0, 0]);
    expect(test.emulator.stats().chargesByDocument).not.toHaveProperty(documents[0] as string);
  });
});

/** A store whose settles fail as DynamoDB's do under contention, `failures` times in a row, then work again. */
function contendedStore(failures: number): { store: BatchStore; failed: () => number } {
  const real = test.store;
  let failed = 0;
  const store = new Proxy(real, {
    get(target, property, receiver) {
      if (property === 'settleRow')
        return async (...args: Parameters<BatchStore['settleRow']>) => {
          if (failed < failures) {
            failed++;
            throw new TransactionCanceledException({
              message: 'Transaction cancelled [None, TransactionConflict]',
              $metadata: {},
              CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
            });
          }
          return target.settleRow(...args);
        };
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store, failed: () => failed };
}

describe('a paid answer is never bought again because of us', () => {
  it('settles from the persisted answer when the settle keeps failing after the bureau answered', async () => {
    const [document] = distinctDocuments(1, 'settle conflicts');
    const { queue, ingest } = await ingestQuietly([document as string]);
    const { batchId } = await ingest();
    const message = queue.work[0] as WorkMessage;
    const contended = contendedStore(4);

    const first = await screenDocuments([deliveryOf(message)], {
      ...workerDeps(queue),
      batchRows: contended.store,
    });
    const redelivered = await screenDocuments([deliveryOf(message)], workerDeps(queue));

    expect(contended.failed()).toBe(4);
    expect(first.batchItemFailures).toHaveLength(1); // given back to SQS, not settled
    expect(redelivered.batchItemFailures).toEqual([]);
    expect(chargesOf(document as string)).toBe(1);
    const manifest = await finaliseBatch(batchId, { ...workerDeps(queue), events: test.events });
    expect(manifest?.counts).toMatchObject({ screened: 1, failed: 0 });
    expect(manifest?.charges).toEqual({ charged: 1, not_charged: 0, charge_unknown: 0 });
  });

  it('audits, as charged, the answer a dead-lettered row’s holder persisted and never settled', async () => {
    const [document] = distinctDocuments(1, 'dead letter, answer persisted') as [string];
    const { queue, ingest } = await ingestQuietly([document]);
    const { batchId } = await ingest();
    const message = queue.work[0] as WorkMessage;
    const deps = { ...workerDeps(queue), auditBasis: { purpose: 'credit', legalBasis: 'art. 7, X' } };
    await screenDocuments([deliveryOf(message)], { ...deps, batchRows: contendedStore(4).store });

    await settleDeadLetters([deliveryOf(message)], deps);
    await settleDeadLetters([deliveryOf(message)], deps);
    const [row] = await test.store.getRows(batchId, [1]);
    const entries = await test.audit.log.read({ documentKey: await test.audit.documentKeys.keyOf(document) });

    expect(row).toMatchObject({ state: 'failed', answered: true });
    expect(chargesOf(document)).toBe(1);
    expect(entries.filter((entry) => entry.batchId === batchId)).toEqual([
      expect.objectContaining({ kind: 'bureau_request', charge: 'charged', httpStatus: 200 }),
    ]);
  });

  it('rides out settle conflicts within the invocation, without giving the message back', async () => {
    const [document] = distinctDocuments(1, 'settle conflicts once');
    const { queue, ingest } = await ingestQuietly([document as string]);
    await ingest();
    const contended = contendedStore(2);

    const outcome = await screenDocuments([deliveryOf(queue.work[0] as WorkMessage)], {
      ...workerDeps(queue),
      batchRows: contended.store,
    });

    expect(outcome.batchItemFailures).toEqual([]);
    expect(chargesOf(document as string)).toBe(1);
  });

  it('settles from the persisted answer after a worker died between persisting it and settling', async () => {
    const [document] = distinctDocuments(1, 'crash after persist');
    const { queue, ingest } = await ingestQuietly([document as string]);
    await ingest();
    const message = queue.work[0] as WorkMessage;
    // The worker persists the answer, then dies before its settle reaches DynamoDB.
    const dyingStore = new Proxy(test.store, {
      get(target, property, receiver) {
        if (property === 'settleRow') return () => new Promise(() => {});
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    void screenDocuments([deliveryOf(message)], {
      ...workerDeps(queue, { settings: { claimLeaseSeconds: 1 } }),
      batchRows: dyingStore,
    });
    await expect.poll(() => chargesOf(document as string), { timeout: 5000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1200));

    expect((await screenDocuments([deliveryOf(message)], workerDeps(queue))).batchItemFailures).toEqual([]);
    expect(chargesOf(document as string)).toBe(1);
    const [row] = await test.store.getRows(message.batchId, [message.row]);
    expect(row).toMatchObject({ state: 'screened', answered: true, callPending: false, uncertainCalls: 0 });
  });

  /** A bureau that answers (and charges) every call, but whose answer for `document` comes after our timeout, once. */
  function lateOnceFor(document: string): BureauGateway {
    let timedOut = false;
    return {
      fetchReport: async (bureauName, asked, options) => {
        const response = await bureau.fetchReport(bureauName, asked, options);
        if (asked !== document || timedOut) return response;
        timedOut = true;
        throw new BureauCallError('no complete response within 2000 ms', { kind: 'transient', status: null });
      },
    };
  }

  it('never buys again by itself a row whose call timed out after it was sent: failed, charge unknown', async () => {
    const documents = distinctDocuments(3, 'timed out');
    const { queue, ingest } = await ingestQuietly(documents);
    const { batchId } = await ingest();
    const [timingOut, ...others] = queue.work as [WorkMessage, ...WorkMessage[]];
    const deps = workerDeps(queue, { bureau: lateOnceFor(timingOut.document) });

    await screenDocuments(queue.work.map(deliveryOf), deps);
    await screenDocuments([deliveryOf(timingOut)], deps);
    const manifest = await finaliseBatch(batchId, { ...deps, events: test.events });
    const summary = parseSummary(await test.readText(manifest?.files?.summary ?? ''));
    const row = summary.find((line) => line.document === timingOut.document);

    expect(chargesOf(timingOut.document)).toBe(1);
    for (const message of others) expect(chargesOf(message.document)).toBe(1);
    expect(manifest?.counts).toMatchObject({ screened: 2, failed: 1 });
    expect(manifest).toMatchObject({
      charges: { charged: 2, not_charged: 0, charge_unknown: 1 },
      chargeUnknownFailed: 1,
    });
    expect(row).toMatchObject({ status: 'failed', charge_state: 'charge_unknown' });
    expect(row?.status_detail).toMatch(
      /^its bureau call got no answer \(no complete response within 2000 ms\): .*--charge-unknown/,
    );
  });

  it('keeps a timed-out call pending when recording it fails: the next holder settles it, never buys it', async () => {
    const [document] = distinctDocuments(1, 'timed out, record failed') as [string];
    const { queue, ingest } = await ingestQuietly([document]);
    const { batchId } = await ingest();
    let thrown = false;
    const flaky = new Proxy(test.store, {
      get(target, property, receiver) {
        if (property === 'recordUncertainCall' && !thrown)
          return async () => {
            thrown = true;
            throw new Error('DynamoDB throttled (simulated)');
          };
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const deps = { ...workerDeps(queue, { bureau: lateOnceFor(document) }), batchRows: flaky };

    const first = await screenDocuments(queue.work.map(deliveryOf), deps);
    const afterFailure = (await test.store.getRows(batchId, [1]))[0];
    await screenDocuments(queue.work.map(deliveryOf), deps);
    const [settled] = await test.store.getRows(batchId, [1]);

    const documentKey = await test.audit.documentKeys.keyOf(document);
    const entries = await test.audit.log.read({ documentKey });

    expect(first.batchItemFailures).toHaveLength(1);
    expect(afterFailure).toMatchObject({ state: 'queued', callPending: true });
    expect(settled).toMatchObject({ state: 'failed', detail: CHARGE_UNKNOWN_DETAIL });
    expect(chargesOf(document)).toBe(1);
    // Both holders found that one call unanswered and audited it, at the instant it was written ahead: one entry.
    const requests = entries.filter((entry) => entry.batchId === batchId && entry.kind === 'bureau_request');
    expect(requests).toEqual([
      expect.objectContaining({
        charge: 'charge_unknown',
        httpStatus: null,
        at: new Date(afterFailure?.callSentAt ?? 0).toISOString(),
      }),
    ]);
  });

  it('buys again a row whose call timed out when the customer chose coverage over cost (rebuyChargeUnknown)', async () => {
    const documents = distinctDocuments(3, 'timed out, bought again');
    const { queue, ingest } = await ingestQuietly(documents);
    const { batchId } = await ingest();
    const [timingOut, ...others] = queue.work as [WorkMessage, ...WorkMessage[]];
    const deps = workerDeps(queue, {
      bureau: lateOnceFor(timingOut.document),
      settings: { rebuyChargeUnknown: true },
    });

    await screenDocuments(queue.work.map(deliveryOf), deps);
    await screenDocuments([deliveryOf(timingOut)], deps);
    const manifest = await finaliseBatch(batchId, { ...deps, events: test.events });
    const summary = parseSummary(await test.readText(manifest?.files?.summary ?? ''));

    expect(chargesOf(timingOut.document)).toBe(2);
    for (const message of others) expect(chargesOf(message.document)).toBe(1);
    expect(manifest?.counts).toMatchObject({ screened: 3 });
    expect(manifest?.charges).toEqual({ charged: 2, not_charged: 0, charge_unknown: 1 });
    expect(summary.find((line) => line.document === timingOut.document)?.charge_state).toBe('charge_unknown');
  });

  it('buys again, as not charged, a row whose connection was refused: nothing left, nothing uncertain', async () => {
    const [document] = distinctDocuments(1, 'connection refused') as [string];
    const { queue, ingest } = await ingestQuietly([document]);
    const { batchId } = await ingest();
    let refused = false;
    const refusing: BureauGateway = {
      fetchReport: async (...args) => {
        if (refused) return bureau.fetchReport(...args);
        refused = true;
        throw new BureauCallError('network error: ECONNREFUSED', {
          kind: 'transient',
          status: null,
          sent: false,
        });
      },
    };
    const deps = workerDeps(queue, { bureau: refusing });

    const first = await screenDocuments(queue.work.map(deliveryOf), deps);
    const afterRefusal = (await test.store.getRows(batchId, [1]))[0];
    await screenDocuments(queue.work.map(deliveryOf), deps);
    const manifest = await finaliseBatch(batchId, { ...deps, events: test.events });

    expect(first.batchItemFailures).toHaveLength(1);
    expect(afterRefusal).toMatchObject({ state: 'queued', uncertainCalls: 0, callPending: false });
    expect(chargesOf(document)).toBe(1);
    expect(manifest?.charges).toEqual({ charged: 1, not_charged: 0, charge_unknown: 0 });
  });

  it('never buys again by itself a row whose call left before a failure of ours; reads the token before writing ahead', async () => {
    const [failing, unreadable] = distinctDocuments(2, 'own failure') as [string, string];
    const { queue, ingest } = await ingestQuietly([failing, unreadable]);
    const { batchId } = await ingest();
    let tokenReads = 0;
    const flaky: BureauGateway = {
      // The first token read fails (Secrets Manager throttled): nothing may count as sent.
      prepare: async () => {
        tokenReads++;
        if (tokenReads === 1) throw new Error('token could not be read (simulated)');
      },
      fetchReport: async (bureauName, document, options) => {
        const response = await bureau.fetchReport(bureauName, document, options);
        if (document === failing) throw new Error('our bug after the bureau answered (simulated)');
        return response;
      },
    };
    const deps = workerDeps(queue, { bureau: flaky, settings: { callsPerInvocation: 1 } });
    const byDocument = new Map(queue.work.map((message) => [message.document, message]));

    await screenDocuments([deliveryOf(byDocument.get(unreadable) as WorkMessage)], deps).catch(
      () => undefined,
    );
    const afterTokenFailure = (await test.store.getRows(batchId, [byDocument.get(unreadable)?.row ?? 0]))[0];
    await screenDocuments(queue.work.map(deliveryOf), deps);
    const rows = await test.store.getRows(batchId, [1, 2]);

    expect(afterTokenFailure).toMatchObject({ state: 'queued', uncertainCalls: 0, callPending: false });
    expect(chargesOf(failing)).toBe(1);
    expect(chargesOf(unreadable)).toBe(1);
    expect(rows.find((row) => row.document === failing)).toMatchObject({
      state: 'failed',
      detail: CHARGE_UNKNOWN_DETAIL,
    });
    expect(rows.find((row) => row.document === unreadable)).toMatchObject({ state: 'screened' });
  });

  it('counts as charged a dead-lettered row whose answer was persisted, and as not charged one never called', async () => {
    const documents = distinctDocuments(2, 'dead letter charges');
    const { queue, ingest } = await ingestQuietly(documents);
    const { batchId } = await ingest();
    const [answered, neverCalled] = queue.work as [WorkMessage, WorkMessage];
    // The first row's settle keeps failing after its answer was persisted, until SQS gives up on it.
    await screenDocuments([deliveryOf(answered)], {
      ...workerDeps(queue),
      batchRows: contendedStore(99).store,
    });
    const deps = workerDeps(queue);

    await settleDeadLetters([deliveryOf(answered), deliveryOf(neverCalled)], deps);

    expect(documents.map(chargesOf)).toEqual([1, 0]);
    const manifest = await finaliseBatch(batchId, { ...deps, events: test.events });
    expect(manifest?.counts).toMatchObject({ failed: 2 });
    expect(manifest?.charges).toEqual({ charged: 1, not_charged: 1, charge_unknown: 0 });
  });
  it('settles an answer too large to read as failed, counted as charged, and never asks again', async () => {
    const [document] = distinctDocuments(1, 'oversized');
    const { queue, ingest } = await ingestQuietly([document as string]);
    const { batchId } = await ingest();
    const oversized: BureauGateway = {
      fetchReport: async () => {
        throw new BureauCallError('response larger than 1048576 bytes; not read', {
          kind: 'oversized',
          status: 200,
          maxBytes: 1024 * 1024,
        });
      },
    };
    const deps = workerDeps(queue, { bureau: oversized });

    expect(
      (await screenDocuments([deliveryOf(queue.work[0] as WorkMessage)], deps)).batchItemFailures,
    ).toEqual([]);

    const manifest = await finaliseBatch(batchId, { ...deps, events: test.events });
    expect(manifest?.counts).toMatchObject({ failed: 1 });
    expect(manifest?.charges).toEqual({ charged: 1, not_charged: 0, charge_unknown: 0 });
    const summary = parseSummary(await test.readText(manifest?.files?.summary ?? ''));
    expect(summary[0]?.status_detail).toContain('larger than 1048576 bytes');
  });
  it('withdraws the call written ahead when no rate slot is left after a slow write: given back, bought once', async () => {
    // Arrange: the write ahead outlasts its rate slot, and the invocation runs out of time waiting for another.
    const [document] = distinctDocuments(1, 'slow write ahead, no slot left');
    const { queue, ingest } = await ingestQuietly([document as string]);
    const { batchId } = await ingest();
    const message = queue.work[0] as WorkMessage;
    const deadline = new AbortController();
    let acquired = 0;
    const oneSlotOnly: RateLimiter = {
      pauseUntil: (bureau, untilMs) => test.adapters.limiter.pauseUntil(bureau, untilMs),
      acquire: (_bureau, abort) => {
        acquired++;
        if (acquired === 1) return Promise.resolve({ at: Date.now(), until: Date.now() + 20 });
        deadline.abort(new Error('invocation out of time'));
        return Promise.reject(abort?.reason ?? new Error('no slot'));
      },
    };
    const slowWrite = new Proxy(test.store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property === 'markCallSent')
          return async (...args: Parameters<BatchStore['markCallSent']>) => {
            await new Promise((resolve) => setTimeout(resolve, 60));
            return target.markCallSent(...args);
          };
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

    // Act
    const first = await screenDocuments(
      [deliveryOf(message)],
      { ...workerDeps(queue), ...asStores(slowWrite), limiter: oneSlotOnly },
      deadline.signal,
    );
    const [afterDeadline] = await test.store.getRows(batchId, [message.row]);
    const second = await screenDocuments([deliveryOf(message)], workerDeps(queue));

    // Assert: nothing left the first time, so nothing is uncertain; the second time buys it, once.
    expect(acquired).toBe(2);
    // Out of time before the call left: a wait, the row comes back as a new message.
    expect(first.batchItemFailures).toEqual([]);
    expect(queue.deferred).toMatchObject([{ message: { batchId, row: message.row, waits: 1 } }]);
    expect(afterDeadline).toMatchObject({ state: 'queued', callPending: false, uncertainCalls: 0 });
    expect(second.batchItemFailures).toEqual([]);
    expect(chargesOf(document as string)).toBe(1);
    const manifest = await finaliseBatch(batchId, { ...workerDeps(queue), events: test.events });
    expect(manifest?.charges).toEqual({ charged: 1, not_charged: 0, charge_unknown: 0 });
  });

  it('gives a row back without a call counted when our storage fails before the call, and screens it next time', async () => {
    const [document] = distinctDocuments(1, 'storage fails before the call');
    const { queue, ingest } = await ingestQuietly([document as string]);
    const { batchId } = await ingest();
    const message = queue.work[0] as WorkMessage;
    const failingProbe = new Proxy(test.store, {
      get(target, property, receiver) {
        if (property === 'acquireTokenProbe') return () => Promise.reject(new Error('DynamoDB unavailable'));
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

    const first = await screenDocuments([deliveryOf(message)], {
      ...workerDeps(queue),
      ...asStores(failingProbe),
    });
    const [afterFailure] = await test.store.getRows(batchId, [message.row]);
    const second = await screenDocuments([deliveryOf(message)], workerDeps(queue));

    expect(first.batchItemFailures).toHaveLength(1);
    expect(afterFailure).toMatchObject({ state: 'queued', callPending: false, uncertainCalls: 0 });
    expect(second.batchItemFailures).toEqual([]);
    expect(chargesOf(document as string)).toBe(1);
    const manifest = await finaliseBatch(batchId, { ...workerDeps(queue), events: test.events });
    expect(manifest?.charges).toEqual({ charged: 1, not_charged: 0, charge_unknown: 0 });
  });
});
