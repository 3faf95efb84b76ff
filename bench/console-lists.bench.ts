/**
 * How fast the console's lists answer at size: `npm run bench:console [-- --batches 1000 --review-batches 22]`
 * (`--from-summary`: as for results written before `review.jsonl`, each summary parsed).
 *
 * The API is the real one (src/api) over in-memory stores, called as the browser calls it (`app.request`), signed
 * in as a manager. 1,000 batches are listed a page at a time; for the review queue, one batch of 1,000 generated
 * rows is finalised with the sample policy (the real finaliser, bench/generated-batch.ts) and its results are copied
 * under `--review-batches` completed batches, so the queue reads that many summaries per request, as it does across
 * a deployment's recent batches. Each figure is the median of 20 requests after the first (the review queue's first
 * reads every summary; the API keeps each batch's rows in review after that). What this does not
 * measure: DynamoDB's or S3's latency (the memory stores answer at once).
 */
import { parseArgs } from 'node:util';
import { memoryBatchStore } from '../src/adapters/memory/memory-batch-store.ts';
import { MemoryDecisionOverrides } from '../src/adapters/memory/memory-decision-overrides.ts';
import { MemoryLogger } from '../src/adapters/memory/memory-logger.ts';
import { MemoryObjectStore } from '../src/adapters/memory/memory-object-store.ts';
import { MemoryReviewCases } from '../src/adapters/memory/memory-review-cases.ts';
import { createConsoleApi } from '../src/api/console-api.ts';
import { finaliseBatch } from '../src/application/finalise/finalise-batch.ts';
import { resultKeys } from '../src/contract/index.ts';
import { generatedBatch } from './generated-batch.ts';

const { values } = parseArgs({
  options: {
    batches: { type: 'string', default: '1000' },
    'review-batches': { type: 'string', default: '22' },
    json: { type: 'boolean', default: false },
    'from-summary': { type: 'boolean', default: false },
  },
});
const batchCount = Number(values.batches);
const reviewBatches = Number(values['review-batches']);
const ROWS = 1000;

/** One decided batch's results (manifest and summary), finalised by the real finaliser. */
async function decidedResults(): Promise<{ manifest: string; summary: string; review: string }> {
  const { deps, objects } = await generatedBatch({
    batchId: 'bench-decided',
    rows: ROWS,
    decidedBy: 'finaliser',
  });
  await finaliseBatch('bench-decided', {
    ...deps,
    partRows: ROWS,
    queue: { sendFinalise: async () => Promise.reject(new Error('written at once')) },
  });
  const read = async (key: string) => (await objects.readTextIfExists(key)) ?? '';
  return {
    manifest: await read(resultKeys('bench-decided').manifest),
    summary: await read(resultKeys('bench-decided').summary),
    review: await read(resultKeys('bench-decided').review),
  };
}

const store = memoryBatchStore();
const objects = new MemoryObjectStore();
const overrides = new MemoryDecisionOverrides();
const logger = new MemoryLogger();
const manager = { subject: 'bench', name: 'Bench Manager', roles: ['manager'] as const };
const never = () => Promise.reject(new Error('not used by the bench'));
const app = createConsoleApi({
  authenticator: { identify: async () => manager },
  batches: {
    batchRecords: store,
    batchRows: store,
    queue: { sendWork: never, sendFinalise: never, sendDispatch: never, sendWorkDelayed: never } as never,
    logger,
  },
  review: {
    batchRecords: store,
    batchRows: store,
    objects,
    overrides,
    reviewCases: new MemoryReviewCases(),
    events: { overrideRecorded: never } as never,
    logger,
  },
  results: { batchRecords: store, objects, overrides, downloads: { linkTo: never } },
  subjects: {
    batchRecords: store,
    batchRows: store,
    reportHistory: store,
    overrides,
    logger,
    audit: { log: { append: never, read: never }, documentKeys: { keyOf: never } } as never,
  },
  spend: {
    budget: { spent: never },
    bureaus: {
      a: { pricePerQuery: 1, monthlyChargeCap: null },
      b: { pricePerQuery: 1, monthlyChargeCap: null },
    },
  },
  logger,
});

const { manifest, summary, review: reviewLines } = await decidedResults();
// The manifest names its summary's and rows in review's keys (the generated batch's): every decided batch reads
// those texts (`--from-summary`: results written before review.jsonl, whose queue parses each summary).
objects.put(resultKeys('bench-decided').summary, Buffer.from(summary));
if (!values['from-summary']) objects.put(resultKeys('bench-decided').review, Buffer.from(reviewLines));
for (let index = 0; index < batchCount; index++) {
  const batchId = `bench-${String(index).padStart(5, '0')}`;
  const decided = index >= batchCount - reviewBatches;
  const policy = decided
    ? { name: 'pessoa-fisica.json', sha256: 'bench', key: `work/${batchId}/policy.json` }
    : null;
  await store.createBatch({
    batchId,
    sourceBucket: 'b',
    sourceKey: `incoming/a/${batchId}.csv`,
    bureau: 'a',
    excelSummary: false,
    policy,
  });
  if (!decided) continue;
  await store.finishIngest(batchId, { rows: ROWS, invalid: 0, duplicates: 0, toScreen: 0, cached: 0 });
  await store.claimFinalisation(batchId);
  await store.completeBatch(batchId, resultKeys(batchId).manifest);
  objects.put(resultKeys(batchId).manifest, Buffer.from(manifest));
}

/** The median time of 20 requests for `path` (after one warm-up), and what the last one answered. */
async function timed(
  path: string,
): Promise<{ firstMs: number; medianMs: number; answer: Record<string, unknown> }> {
  let answer: Record<string, unknown> = {};
  const times: number[] = [];
  for (let run = 0; run <= 20; run++) {
    const started = performance.now();
    const response = await app.request(path);
    answer = (await response.json()) as Record<string, unknown>;
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
    times.push(performance.now() - started);
  }
  const round = (ms: number) => Math.round(ms * 10) / 10;
  const [first = 0, ...rest] = times;
  rest.sort((a, b) => a - b);
  return { firstMs: round(first), medianMs: round(rest[Math.floor(rest.length / 2)] as number), answer };
}

const firstPage = await timed('/api/batches?limit=20');
const lastPage = await timed(`/api/batches?limit=20&page=${Math.ceil(batchCount / 20) - 1}`);
const review = await timed('/api/review?limit=50');
const figures = {
  batches: batchCount,
  firstPageMs: firstPage.medianMs,
  lastPageMs: lastPage.medianMs,
  reviewBatches: review.answer.batches,
  reviewRows: review.answer.total,
  reviewFirstMs: review.firstMs,
  reviewPageMs: review.medianMs,
};
if (values.json) console.log(JSON.stringify(figures));
else
  console.log(
    [
      `batches: ${batchCount}, a page of 20: ${figures.firstPageMs} ms (first), ${figures.lastPageMs} ms (last)`,
      `review: ${figures.reviewRows} rows waiting over ${figures.reviewBatches} batches, a page of 50: ${figures.reviewFirstMs} ms the first time, then ${figures.reviewPageMs} ms`,
    ].join('\n'),
  );
