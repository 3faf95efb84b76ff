/**
 * What deciding adds to the worker, per row: the real `screenDocuments` settling batches of CPFs on the in-memory
 * stores, alternately without a policy and with the sample policy (`samples/policies/pessoa-fisica.json`), in one
 * process. Run with `npm run bench:worker-decisions` (`-- --rows 2000 --runs 2` for a shorter run).
 *
 * The bureau answers at once from the emulator's report generator (no HTTP, no rate limit worth the name), so
 * what is measured is the worker's own work per row: claim, purchase, persist the answer, normalise, decide, settle.
 * Each run screens its own documents, so no run reuses another's purchases.
 */
import { parseArgs } from 'node:util';
import { generateCreditReport } from '../emulator/report-generator.ts';
import { SeededRandom } from '../emulator/seeded-random.ts';
import { workerSettings } from '../lambdas/shared/pipeline-adapters.ts';
import { zenCreditPolicyLoader } from '../src/adapters/decision/zen-credit-policy.ts';
import { memoryBatchStores } from '../src/adapters/memory/memory-batch-store.ts';
import { MemoryChargeBudget } from '../src/adapters/memory/memory-charge-budget.ts';
import { MemoryDocumentPurchases } from '../src/adapters/memory/memory-document-purchases.ts';
import { MemoryLogger } from '../src/adapters/memory/memory-logger.ts';
import { MemoryObjectStore } from '../src/adapters/memory/memory-object-store.ts';
import { MemoryRateLimiter } from '../src/adapters/memory/memory-rate-limiter.ts';
import { RecordingEventPublisher } from '../src/adapters/memory/recording-event-publisher.ts';
import { ingestUpload } from '../src/application/ingest/ingest-upload.ts';
import { screenDocuments, type WorkerDependencies } from '../src/application/worker/screen-documents.ts';
import { policyKey, S3_LAYOUT } from '../src/contract/index.ts';
import type { BureauGateway } from '../src/domain/ports/index.ts';
import { makeCpf } from '../test/factories/documents.ts';
import { FAST_SETTINGS } from '../test/factories/pipeline.ts';
import { deliveryOf, RecordingVisibility, RecordingWorkQueue } from '../test/factories/recording-ports.ts';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '5000' }, runs: { type: 'string', default: '3' } },
});
const total = Number(values.rows);
const runs = Number(values.runs);
/** Messages per invocation, as the work queue's event source delivers them. */
const BATCH_SIZE = 10;
const random = new SeededRandom('worker decisions bench');

const instantBureau: BureauGateway = {
  fetchReport: async (bureau, document) => ({
    body: generateCreditReport(document, bureau) as unknown as Record<string, unknown>,
    httpStatus: 200,
    receivedAt: new Date().toISOString(),
  }),
};

const stores = memoryBatchStores();
const objects = new MemoryObjectStore();
objects.put(
  policyKey('pessoa-fisica.json'),
  await import('node:fs').then((fs) => fs.readFileSync('samples/policies/pessoa-fisica.json')),
);
const adapters = {
  ...stores,
  objects,
  purchases: new MemoryDocumentPurchases(),
  budget: new MemoryChargeBudget(),
  events: new RecordingEventPublisher(),
  limiter: new MemoryRateLimiter({
    a: { ratePerSecond: 1_000_000, capacity: 1_000_000 },
    b: { ratePerSecond: 1_000_000, capacity: 1_000_000 },
  }),
};

/** Screens `total` new CPFs with a requested amount; returns the worker's wall and CPU milliseconds. */
async function screenOnce(withPolicy: boolean, run: number): Promise<{ wallMs: number; cpuMs: number }> {
  const documents = Array.from({ length: total }, () => makeCpf(random));
  const csv = `cpf,requested_amount\n${documents.map((document, index) => `${document},${1_000 + (index % 50) * 1_000}`).join('\n')}\n`;
  const key = `${S3_LAYOUT.incoming}a/bench-${withPolicy ? 'policy' : 'plain'}-${run}.csv`;
  objects.put(key, csv, withPolicy ? { policy: 'pessoa-fisica.json' } : {});
  const queue = new RecordingWorkQueue();
  const logger = new MemoryLogger();
  await ingestUpload(
    { bucket: objects.bucket, key, eTag: key, sequencer: String(run + 10).padStart(16, '0') },
    {
      ...adapters,
      queue,
      logger,
      settings: { defaultBureau: 'a', maxRows: total, excelSummary: false, freshnessHours: 0 },
    },
  );
  const deps: WorkerDependencies = {
    ...adapters,
    queue,
    visibility: new RecordingVisibility(),
    logger,
    bureau: instantBureau,
    settings: workerSettings(FAST_SETTINGS),
    policyLoader: zenCreditPolicyLoader,
  };
  const messages = queue.work.splice(0).map(deliveryOf);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let start = 0; start < messages.length; start += BATCH_SIZE) {
    const { batchItemFailures } = await screenDocuments(messages.slice(start, start + BATCH_SIZE), deps);
    if (batchItemFailures.length > 0) throw new Error(`${batchItemFailures.length} messages failed`);
  }
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

const plain: { wallMs: number; cpuMs: number }[] = [];
const decided: { wallMs: number; cpuMs: number }[] = [];
await screenOnce(true, -1); // warm-up: the engine, the normaliser, the stores
for (let run = 0; run < runs; run++) {
  plain.push(await screenOnce(false, run));
  decided.push(await screenOnce(true, run));
}
const median = (figures: number[]) =>
  [...figures].sort((a, b) => a - b)[Math.floor(figures.length / 2)] as number;
const perRow = (ms: number) => `${((ms * 1000) / total).toFixed(0)} µs`;
console.log(
  `worker, ${total.toLocaleString('en')} CPFs in invocations of ${BATCH_SIZE}, ${runs} runs each (wall / CPU per row):`,
);
console.log(`  without a policy: ${plain.map((r) => `${perRow(r.wallMs)} / ${perRow(r.cpuMs)}`).join(', ')}`);
console.log(
  `  with the policy:  ${decided.map((r) => `${perRow(r.wallMs)} / ${perRow(r.cpuMs)}`).join(', ')}`,
);
const addedWall = median(decided.map((r) => r.wallMs)) - median(plain.map((r) => r.wallMs));
const addedCpu = median(decided.map((r) => r.cpuMs)) - median(plain.map((r) => r.cpuMs));
console.log(`  deciding adds ${perRow(addedWall)} of wall time and ${perRow(addedCpu)} of CPU a row`);
