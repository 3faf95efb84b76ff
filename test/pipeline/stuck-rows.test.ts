import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalPipeline } from '../../cli/local/local-pipeline.ts';
import { ServiceEmulator } from '../../emulator/service-emulator.ts';
import { MemoryLogger } from '../../src/adapters/memory/memory-logger.ts';
import { cancelBatch } from '../../src/application/batch-control/batch-control.ts';
import { ingestUpload } from '../../src/application/ingest/ingest-upload.ts';
import { sweepStuckRows } from '../../src/application/sweeper/sweep-stuck-rows.ts';
import { type PipelineSettings, stuckClaimSeconds } from '../../src/contract/index.ts';
import { CHARGE_UNKNOWN_DETAIL } from '../../src/domain/batch/index.ts';
import type { BatchStore } from '../../src/domain/ports/index.ts';
import { asStores } from '../factories/batch-records.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { FAST_SETTINGS, writeCsv } from '../factories/pipeline.ts';
import { RecordingWorkQueue } from '../factories/recording-ports.ts';
import { sharedDynamoDb } from '../factories/shared-dynamodb.ts';

const open: { stop(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const resource of open.splice(0).reverse()) await resource.stop();
});

async function startEmulator(latencyMs = 0): Promise<ServiceEmulator> {
  const emulator = await ServiceEmulator.start({ latencyMs });
  open.push({ stop: () => emulator.close() });
  return emulator;
}

async function startPipeline(
  emulator: ServiceEmulator,
  stateDirectory?: string,
  options: { eventSources?: boolean; settings?: Partial<PipelineSettings> } = {},
): Promise<LocalPipeline> {
  const pipeline = await LocalPipeline.start({
    settings: { ...FAST_SETTINGS, ...options.settings },
    bureauBaseUrl: emulator.url,
    token: emulator.token,
    stateDirectory,
    sharedDynamoDb: stateDirectory === undefined ? sharedDynamoDb() : undefined,
    sweepIntervalSeconds: 1,
    eventSources: options.eventSources,
  });
  open.push(pipeline);
  return pipeline;
}

async function stopPipeline(pipeline: LocalPipeline): Promise<void> {
  open.splice(open.indexOf(pipeline), 1);
  await pipeline.stop();
}

/** Ingests a list, keeping its work messages back (the test sends them, or not). */
async function ingestHoldingMessages(
  pipeline: LocalPipeline,
  documents: readonly string[],
  bureauEndpoint: string | null = pipeline.bureauEndpoint,
) {
  const queue = new RecordingWorkQueue();
  const upload = await pipeline.upload(await writeCsv('list.csv', customerListCsv(documents)), 'a');
  const outcome = await ingestUpload(upload, {
    ...pipeline.adapters,
    queue,
    logger: new MemoryLogger(),
    settings: {
      defaultBureau: 'a',
      maxRows: 1000,
      excelSummary: false,
      ...(bureauEndpoint === null ? {} : { bureauEndpoint }),
    },
  });
  return { batchId: outcome.batchId, messages: queue.work };
}

/** The store with its `expiredClaims` replaced (every other method is the real store's). */
function withExpiredClaims(store: BatchStore, expiredClaims: BatchStore['expiredClaims']): BatchStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'expiredClaims') return expiredClaims;
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const chargesOf = (emulator: ServiceEmulator, documents: readonly string[]) =>
  documents.map((document) => emulator.stats().chargesByDocument[document] ?? 0);

describe('stuck rows', () => {
  it('queues again a row left claimed whose message is gone (the 399/400 hang), and the batch completes', async () => {
    const emulator = await startEmulator();
    const pipeline = await startPipeline(emulator);
    const documents = distinctDocuments(12, 'stuck claim');
    const { batchId, messages } = await ingestHoldingMessages(pipeline, documents);
    const [lost, ...delivered] = messages;
    // A worker claimed the row long ago and its message was deleted while the claim stayed.
    const longAgo = -(stuckClaimSeconds(FAST_SETTINGS) + 60);
    expect(await pipeline.store.claimRow(batchId, lost?.row ?? 0, longAgo)).toMatchObject({ claimed: true });
    await pipeline.adapters.queue.sendWork(delivered);

    const done = await pipeline.waitForCompletion(batchId, {
      pollMs: 100,
      signal: AbortSignal.timeout(30_000),
    });

    expect(done).toMatchObject({ status: 'completed', settledRows: 12, totalRows: 12 });
    expect(chargesOf(emulator, documents)).toEqual(documents.map(() => 1));
  }, 60_000);

  it('settles failed, charge unknown, a row whose worker was killed mid-call (a Lambda timeout): never bought again', async () => {
    const emulator = await startEmulator();
    const pipeline = await startPipeline(emulator);
    const documents = distinctDocuments(6, 'killed mid-call');
    const { batchId, messages } = await ingestHoldingMessages(pipeline, documents);
    const [inFlight, ...delivered] = messages;
    const row = inFlight?.row ?? 0;
    // The worker claimed the row, wrote its call ahead and sent it, then was killed: no answer, no message left.
    const longAgo = -(stuckClaimSeconds(FAST_SETTINGS) + 60);
    const claim = await pipeline.store.claimRow(batchId, row, longAgo);
    if (!claim.claimed) throw new Error('the row could not be claimed');
    expect(await pipeline.store.markCallSent(batchId, row, claim.claimToken, Date.now())).toBe(true);
    await pipeline.adapters.queue.sendWork(delivered);

    const done = await pipeline.waitForCompletion(batchId, {
      pollMs: 100,
      signal: AbortSignal.timeout(30_000),
    });
    const [settled] = await pipeline.store.getRows(batchId, [row]);

    expect(done).toMatchObject({ status: 'completed', settledRows: 6 });
    expect(settled).toMatchObject({ state: 'failed', detail: CHARGE_UNKNOWN_DETAIL });
    expect(chargesOf(emulator, documents)).toEqual(
      documents.map((document) => (document === inFlight?.document ? 0 : 1)),
    );
  }, 60_000);

  it('leaves alone, locally, a batch started against another bureau, or before endpoints were recorded', async () => {
    const emulator = await startEmulator();
    const pipeline = await startPipeline(emulator, undefined, { eventSources: false });
    const stuck = async (label: string, bureauEndpoint: string | null) => {
      const { batchId, messages } = await ingestHoldingMessages(
        pipeline,
        distinctDocuments(1, label),
        bureauEndpoint,
      );
      await pipeline.store.claimRow(batchId, messages[0]?.row ?? 0, -(stuckClaimSeconds(FAST_SETTINGS) + 60));
      return batchId;
    };
    const own = await stuck('this bureau', pipeline.bureauEndpoint);
    const other = await stuck('another bureau', 'https://another-bureau.example');
    const unrecorded = await stuck('unrecorded', null);

    const report = await pipeline.sweep();

    expect(report).toMatchObject({ batches: 1, requeued: 1 });
    expect((await pipeline.store.getRows(own, [1]))[0]).toMatchObject({ state: 'queued' });
    for (const batchId of [other, unrecorded])
      expect((await pipeline.store.getRows(batchId, [1]))[0]).toMatchObject({ state: 'claimed' });
  }, 60_000);

  it('leaves the row to a worker that took it over between the sweep reading it and releasing it', async () => {
    const emulator = await startEmulator();
    // No workers and no periodic sweep: this test is the only sweeper.
    const pipeline = await startPipeline(emulator, undefined, { eventSources: false });
    const { batchId, messages } = await ingestHoldingMessages(pipeline, distinctDocuments(1, 'taken over'));
    const row = messages[0]?.row ?? 0;
    await pipeline.store.claimRow(batchId, row, -(stuckClaimSeconds(FAST_SETTINGS) + 60));
    let takeOver: { claimed: boolean; claimToken?: string } = { claimed: false };
    // The store as the sweeper sees it: a worker claims the expired row right after the sweeper read it.
    const store = pipeline.store;
    const racing = withExpiredClaims(store, async (id, before) => {
      const claims = await store.expiredClaims(id, before);
      takeOver = await store.claimRow(batchId, row, 60);
      return claims;
    });
    const queue = new RecordingWorkQueue();

    const report = await sweepStuckRows({
      ...asStores(racing),
      queue,
      logger: new MemoryLogger(),
      settings: { stuckClaimSeconds: stuckClaimSeconds(FAST_SETTINGS) },
    });

    expect(report).toMatchObject({ requeued: 1, claimed: 1 });
    expect(queue.work.map((message) => message.row)).toEqual([row]);
    expect(takeOver.claimed).toBe(true);
    expect(await pipeline.store.getRows(batchId, [row])).toMatchObject([{ state: 'claimed' }]);
    expect(
      await pipeline.store.settleRow(batchId, row, takeOver.claimToken ?? '', {
        outcome: 'failed',
        reason: 'settled by the worker that took the row over',
      }),
    ).toBe(true);
  }, 60_000);

  it('sweeps the other batches when one cannot be swept, and still fails (for its alarm)', async () => {
    const emulator = await startEmulator();
    const pipeline = await startPipeline(emulator, undefined, { eventSources: false });
    const longAgo = -(stuckClaimSeconds(FAST_SETTINGS) + 60);
    const broken = await ingestHoldingMessages(pipeline, distinctDocuments(1, 'broken batch'));
    const fine = await ingestHoldingMessages(pipeline, distinctDocuments(1, 'fine batch'));
    for (const { batchId, messages } of [broken, fine])
      await pipeline.store.claimRow(batchId, messages[0]?.row ?? 0, longAgo);
    const store = pipeline.store;
    const failing = withExpiredClaims(store, (id, before) =>
      id === broken.batchId
        ? Promise.reject(new Error('throttled (simulated)'))
        : store.expiredClaims(id, before),
    );
    const queue = new RecordingWorkQueue();

    const sweep = sweepStuckRows({
      ...asStores(failing),
      queue,
      logger: new MemoryLogger(),
      settings: { stuckClaimSeconds: stuckClaimSeconds(FAST_SETTINGS) },
    });

    await expect(sweep).rejects.toThrow('1 batches could not be swept');
    expect(queue.work.map((message) => message.batchId)).toEqual([fine.batchId]);
  }, 60_000);

  it('leaves alone a claim whose message can still come back', async () => {
    const emulator = await startEmulator();
    const pipeline = await startPipeline(emulator, undefined, { eventSources: false });
    const { batchId, messages } = await ingestHoldingMessages(pipeline, distinctDocuments(2, 'live claim'));
    const justExpired = -1;
    await pipeline.store.claimRow(batchId, messages[0]?.row ?? 0, justExpired);

    const report = await pipeline.sweep();

    expect(report).toMatchObject({ requeued: 0, claimed: 0 });
    expect(await pipeline.store.getRows(batchId, [messages[0]?.row ?? 0])).toMatchObject([
      { state: 'claimed' },
    ]);
  }, 60_000);
});

describe('an interrupted local run', () => {
  /** Runs a batch until some rows are settled, then stops the pipeline as Ctrl-C would, a worker's claim left. */
  async function interruptedBatch(emulator: ServiceEmulator, state: string, documents: readonly string[]) {
    // Two calls at a time: the batch is still well under way when the run stops.
    const first = await startPipeline(emulator, state, {
      settings: { workerConcurrency: 2, callsPerInvocation: 1 },
    });
    const { batchId } = await first.submit(await writeCsv('list.csv', customerListCsv(documents)), 'a');
    for (;;) {
      const progress = await first.progress(batchId);
      if (progress.settledRows >= 3) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // A worker that dies holding a row (killed mid-call) leaves its claim behind. Its lease outlasts any restart
    // (ten minutes): a resume requeues the claims of an interrupted batch whatever their lease says, while a lease
    // that ran out during a slow restart (60 s did, at load 12+) lets the new run's workers take rows over first.
    const rows = await first.store.getRows(
      batchId,
      documents.map((_, index) => index + 1),
    );
    let deadClaims = 0;
    for (const row of rows.filter((candidate) => candidate.state === 'queued').slice(0, 3)) {
      if ((await first.store.claimRow(batchId, row.row, 600)).claimed) deadClaims++;
    }
    await stopPipeline(first);
    return { batchId, deadClaims };
  }

  it('resumes on the next run on the same state: every row settled once, no document charged twice', async () => {
    const emulator = await startEmulator(200);
    const state = await mkdtemp(join(tmpdir(), 'credit-screen-state-'));
    const documents = distinctDocuments(30, 'interrupted');
    const { batchId, deadClaims } = await interruptedBatch(emulator, state, documents);

    const second = await startPipeline(emulator, state);
    const done = await second.waitForCompletion(batchId, {
      pollMs: 100,
      signal: AbortSignal.timeout(150_000),
    });

    expect(second.resumed?.requeued).toBeGreaterThan(0);
    expect(deadClaims).toBeGreaterThan(0);
    expect(second.resumed?.claimed).toBe(deadClaims);
    expect(done).toMatchObject({ status: 'completed', settledRows: 30, totalRows: 30 });
    expect(chargesOf(emulator, documents)).toEqual(documents.map(() => 1));
  }, 240_000);

  it('cancels an interrupted batch to the end: every row settled, none charged twice', async () => {
    const emulator = await startEmulator(200);
    const state = await mkdtemp(join(tmpdir(), 'credit-screen-state-'));
    const documents = distinctDocuments(30, 'interrupted cancel');
    const { batchId } = await interruptedBatch(emulator, state, documents);

    const second = await startPipeline(emulator, state);
    const outcome = await cancelBatch(batchId, { ...second.adapters, logger: second.logger });
    const done = await second.waitForCompletion(batchId, {
      pollMs: 100,
      signal: AbortSignal.timeout(150_000),
    });
    const batch = await second.store.getBatch(batchId);

    expect(outcome.outcome).toBe('cancelled');
    expect(done).toMatchObject({ status: 'completed', settledRows: 30 });
    expect((batch?.screened ?? 0) + (batch?.cancelled ?? 0)).toBe(30);
    expect(Math.max(...chargesOf(emulator, documents))).toBe(1);
  }, 240_000);
});
