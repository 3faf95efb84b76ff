/**
 * Pipeline benchmark (`npm run bench:pipeline`): the local pipeline against the bureau emulator, next to the naive
 * ways of doing the same job. Prints a JSON table and writes bench/results/latest.json.
 *
 *   1. rate-limit utilisation: 2,000 documents, emulator limit R = 50 req/s with 50 ms latency, pipeline set to R;
 *   2. overhead: 2,000 documents, no rate limit, 100 ms latency: wall time ÷ (N × latency ÷ C);
 *   3. credits: a file with 10% duplicates and 5% invalid rows, uploaded twice inside the freshness window;
 *   4. baselines under the settings of (1): a sequential loop, and an unthrottled Promise.all with p-limit at C;
 *   5. ingest: a 1,000,000-row file through the ingest handler, in a child process (its RSS is the ingest's alone);
 *   6. contention: a large batch (20,000 rows) at R = 50 req/s with 50 ms latency, and a 50-row batch uploaded
 *      10 s after it into the same pipeline: the small batch's completion time against its time alone, the large
 *      batch's against its time alone, rate-limit utilisation while both run, 429s, charges per unique document.
 *
 * Options: --documents N (default 2000), --ingest-rows N (default 1000000, 0 to skip), --skip-baselines,
 * --lenient (the pipeline runs of 1–3 go through the strict endpoint unless this is given: DynamoDB's transaction
 * conflicts; each run reports conflicts, faults injected and documents charged more than once), --fault-rate p
 * (in strict mode: each AWS fault kind and duplicate deliveries on the work queue at rate p; default 0).
 * --contention-rows N (default 20000, 0 to skip), --only-contention (scenario 6 alone), --no-fair-queues (6 with
 * the message groups off: the order before fair queues).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pLimit from 'p-limit';
import { LocalPipeline } from '../cli/local/local-pipeline.ts';
import { LOCAL_NAMES } from '../cli/local/local-services.ts';
import type { StrictModeOptions, StrictStats } from '../cli/local/strict-aws-proxy.ts';
import { SeededRandom } from '../emulator/seeded-random.ts';
import { type EmulatorFaults, ServiceEmulator } from '../emulator/service-emulator.ts';
import { CreditReportClient, RateLimitedError, ServiceTransport } from '../service-client/index.ts';
import {
  bureausWith,
  DEFAULT_SETTINGS,
  FUNCTION_MEMORY,
  heapLimitMegabytes,
  type PipelineSettings,
} from '../src/contract/index.ts';
import { makeCnpj, makeCpf } from '../test/factories/documents.ts';

const { values } = parseArgs({
  options: {
    documents: { type: 'string', default: '2000' },
    'ingest-rows': { type: 'string', default: '1000000' },
    'skip-baselines': { type: 'boolean', default: false },
    // Strict mode is on: what the bench measures must hold under DynamoDB's real conflicts. --lenient turns it off.
    lenient: { type: 'boolean', default: false },
    'fault-rate': { type: 'string', default: '0' },
    'contention-rows': { type: 'string', default: '20000' },
    'only-contention': { type: 'boolean', default: false },
    'no-fair-queues': { type: 'boolean', default: false },
  },
});
const FAULT_RATE = Number(values['fault-rate']);
const CONTENTION_ROWS = Number(values['contention-rows']);
const SMALL_ROWS = 50;
const SMALL_DELAY_SECONDS = 10;
const N = Number(values.documents);
const INGEST_ROWS = Number(values['ingest-rows']);
const RATE = 50;
const WORKERS = 5;
const CALLS_PER_INVOCATION = 5;
const C = WORKERS * CALLS_PER_INVOCATION;
const STRICT: StrictModeOptions | undefined = !values.lenient
  ? {
      seed: 'bench',
      faults:
        FAULT_RATE > 0
          ? {
              dynamodb: {
                throughputExceeded: FAULT_RATE,
                throttling: FAULT_RATE,
                internalServerError: FAULT_RATE,
              },
              s3: { slowDown: FAULT_RATE },
              sqs: {
                internalFailure: FAULT_RATE,
                duplicateDelivery: FAULT_RATE,
                duplicateQueues: [LOCAL_NAMES.workQueue],
              },
            }
          : undefined,
    }
  : undefined;

const directory = await mkdtemp(join(tmpdir(), 'credit-screen-pipeline-bench-'));
const seconds = (ms: number) => Number((ms / 1000).toFixed(2));
const ratio = (value: number) => Number(value.toFixed(3));

function documents(count: number, seed: string): string[] {
  const random = new SeededRandom(seed);
  const unique = new Set<string>();
  while (unique.size < count) unique.add(random.chance(0.6) ? makeCpf(random) : makeCnpj(random));
  return [...unique];
}

async function writeList(name: string, cells: readonly string[]): Promise<string> {
  const path = join(directory, name);
  await writeFile(
    path,
    `customer_id,cpf_cnpj\n${cells.map((cell, index) => `C${index + 1},${cell}`).join('\n')}\n`,
  );
  return path;
}

function settings(overrides: Partial<PipelineSettings>): PipelineSettings {
  return {
    ...DEFAULT_SETTINGS,
    workerConcurrency: WORKERS,
    callsPerInvocation: CALLS_PER_INVOCATION,
    // The bench buys 2,000 documents a batch: no person is there to approve them.
    approvalThreshold: null,
    ...overrides,
  };
}

/** Runs files through a fresh local pipeline, sampling the emulator's request count for the steady-state rate. */
async function runPipeline(
  faults: EmulatorFaults,
  pipelineSettings: PipelineSettings,
  files: readonly string[],
) {
  const emulator = await ServiceEmulator.start(faults);
  const pipeline = await LocalPipeline.start({
    settings: pipelineSettings,
    bureauBaseUrl: emulator.url,
    token: emulator.token,
    strict: STRICT,
  });
  try {
    const runs = [];
    for (const file of files) {
      const before = emulator.stats();
      const strictBefore = pipeline.stack.strictStats();
      const samples: { at: number; requests: number }[] = [];
      const sampler = setInterval(
        () => samples.push({ at: Date.now(), requests: emulator.stats().requests }),
        100,
      );
      const started = Date.now();
      const outcome = await pipeline.submit(file, 'a');
      await pipeline.waitForCompletion(outcome.batchId, { pollMs: 50 });
      const wallMs = Date.now() - started;
      clearInterval(sampler);
      const after = emulator.stats();
      const requests = after.requests - before.requests;
      // Steady state: between 10% and 90% of this run's requests, away from the start-up and the tail.
      const at = (share: number) =>
        samples.find((sample) => sample.requests - before.requests >= requests * share);
      const from = at(0.1);
      const to = at(0.9);
      const steadyRate =
        from && to && to.at > from.at ? ((to.requests - from.requests) * 1000) / (to.at - from.at) : null;
      const manifest = (await pipeline.downloadResults(outcome.batchId, join(directory, outcome.batchId)))
        .manifest;
      runs.push({
        wallMs,
        requests,
        charged: after.charged - before.charged,
        rateLimited: (after.byStatus['429'] ?? 0) - (before.byStatus['429'] ?? 0),
        steadyRate,
        peakRate: after.maxObservedRatePerSec,
        counts: manifest.counts,
        // Documents this run paid for more than once (what a redelivery after a failure of ours costs).
        chargedMoreThanOnce: Object.entries(after.chargesByDocument).filter(
          ([document, count]) => count - (before.chargesByDocument[document] ?? 0) > 1,
        ).length,
        strict: strictDelta(strictBefore, pipeline.stack.strictStats()),
      });
    }
    return runs;
  } finally {
    await pipeline.stop();
    await emulator.close();
  }
}

/** What the strict endpoint counted during one run: conflicts (by item shape), faults, duplicate deliveries. */
function strictDelta(before: StrictStats | null, after: StrictStats | null) {
  if (before === null || after === null) return undefined;
  const minus = (later: Readonly<Record<string, number>>, earlier: Readonly<Record<string, number>>) =>
    Object.fromEntries(
      Object.entries(later)
        .map(([key, count]) => [key, count - (earlier[key] ?? 0)] as const)
        .filter(([, count]) => count > 0),
    );
  return {
    conflicts: after.conflicts.total - before.conflicts.total,
    conflictsByItemShape: minus(after.conflicts.byItemShape, before.conflicts.byItemShape),
    faultsInjected: after.faults.total - before.faults.total,
    faultsByKind: minus(after.faults.byKind, before.faults.byKind),
    duplicateDeliveries: after.duplicateDeliveries - before.duplicateDeliveries,
  };
}

/** A naive client over the same emulator: sequential, or all at once through p-limit with no rate limit. */
async function runBaseline(
  kind: 'sequential' | 'unthrottled',
  cells: readonly string[],
  faults: EmulatorFaults,
) {
  const emulator = await ServiceEmulator.start(faults);
  const client = new CreditReportClient(
    new ServiceTransport({ baseUrl: emulator.url, token: emulator.token }),
  );
  try {
    let screened = 0;
    const query = async (document: string) => {
      try {
        await client.fetchReport('a', document);
        screened++;
      } catch (error) {
        if (!(error instanceof RateLimitedError)) throw error;
      }
    };
    const started = Date.now();
    if (kind === 'sequential') for (const document of cells) await query(document);
    else {
      const limit = pLimit(C);
      await Promise.all(cells.map((document) => limit(() => query(document))));
    }
    const stats = emulator.stats();
    return {
      wallMs: Date.now() - started,
      requests: stats.requests,
      charged: stats.charged,
      rateLimited: stats.byStatus['429'] ?? 0,
      screened,
    };
  } finally {
    await emulator.close();
  }
}

async function writeBigList(path: string, rows: number): Promise<void> {
  const random = new SeededRandom('ingest bench');
  const out = createWriteStream(path);
  out.write('customer_id;cpf_cnpj;segmento\r\n');
  let buffer = '';
  for (let row = 1; row <= rows; row++) {
    buffer += `C${row};${random.chance(0.7) ? makeCpf(random) : makeCnpj(random)};varejo\r\n`;
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  }
  out.end(buffer);
  await once(out, 'finish');
}

/** Ingests a big file in a child process against this process's emulators, returning the child's figures. */
async function runIngest(rows: number) {
  const file = join(directory, 'million.csv');
  await writeBigList(file, rows);
  const pipeline = await LocalPipeline.start({
    settings: settings({ maxRows: rows }),
    bureauBaseUrl: 'http://127.0.0.1:9',
    token: 'unused',
    eventSources: false,
  });
  try {
    const upload = await pipeline.upload(file, 'a');
    // The child gets the V8 heap limit the ingest function runs with (FUNCTION_MEMORY.ingest).
    const heap = `--max-old-space-size=${heapLimitMegabytes(FUNCTION_MEMORY.ingest)}`;
    const child = spawn(
      process.execPath,
      [heap, ...process.execArgv, fileURLToPath(new URL('./ingest-child.ts', import.meta.url))],
      {
        env: {
          ...process.env,
          BENCH_UPLOAD: JSON.stringify(upload),
          BENCH_ENDPOINTS: JSON.stringify(pipeline.stack.endpoints),
          BENCH_RESOURCES: JSON.stringify(pipeline.stack.resources),
          BENCH_MAX_ROWS: String(rows),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      output += text;
    });
    const [code] = await once(child, 'close');
    if (code !== 0) throw new Error(`ingest child failed (${code}): ${output}`);
    return JSON.parse(output.trim().split('\n').at(-1) as string) as {
      seconds: number;
      rowsPerSecond: number;
      peakRssMegabytes: number;
      toScreen: number;
    };
  } finally {
    await pipeline.stop();
  }
}

/** A batch's time from its upload to its manifest, uploaded into a running pipeline without waiting for ingest. */
async function timedBatch(pipeline: LocalPipeline, file: string) {
  const started = Date.now();
  const upload = await pipeline.upload(file, 'a');
  const finished = pipeline.deliverUploadEvent(upload).then(async (outcome) => {
    await pipeline.waitForCompletion(outcome.batchId, { pollMs: 50 });
    return { batchId: outcome.batchId, wallMs: Date.now() - started };
  });
  return { started, finished };
}

/** Scenario 6: a small batch uploaded while a large one floods the queue, and each alone, in fresh pipelines. */
async function runContention(largeRows: number, fairQueues: boolean) {
  const faults: EmulatorFaults = { latencyMs: 50, rateLimitPerSecond: RATE, rateLimitBurst: RATE };
  const pipelineSettings = settings({
    bureaus: bureausWith({ rateLimitPerSecond: RATE, rateLimitBurst: RATE / 5 }),
    maxRows: Math.max(largeRows, DEFAULT_SETTINGS.maxRows),
    fairQueues,
  });
  const largeCells = documents(largeRows, 'contention large');
  const taken = new Set(largeCells);
  const smallCells = documents(SMALL_ROWS * 2, 'contention small')
    .filter((cell) => !taken.has(cell))
    .slice(0, SMALL_ROWS);
  const largeFile = await writeList('contention-large.csv', largeCells);
  const smallFile = await writeList('contention-small.csv', smallCells);
  const fresh = async <T>(body: (pipeline: LocalPipeline, emulator: ServiceEmulator) => Promise<T>) => {
    const emulator = await ServiceEmulator.start(faults);
    const pipeline = await LocalPipeline.start({
      settings: pipelineSettings,
      bureauBaseUrl: emulator.url,
      token: emulator.token,
    });
    try {
      return await body(pipeline, emulator);
    } finally {
      await pipeline.stop();
      await emulator.close();
    }
  };
  process.stderr.write(`6/6 contention: ${SMALL_ROWS} rows alone…\n`);
  const smallAlone = await fresh(
    async (pipeline) => (await (await timedBatch(pipeline, smallFile)).finished).wallMs,
  );
  process.stderr.write(`6/6 contention: ${largeRows} rows alone…\n`);
  const largeAlone = await fresh(
    async (pipeline) => (await (await timedBatch(pipeline, largeFile)).finished).wallMs,
  );
  process.stderr.write(
    `6/6 contention: ${largeRows} rows, then ${SMALL_ROWS} rows ${SMALL_DELAY_SECONDS} s later…\n`,
  );
  const together = await fresh(async (pipeline, emulator) => {
    const samples: { at: number; requests: number }[] = [];
    const sampler = setInterval(
      () => samples.push({ at: Date.now(), requests: emulator.stats().requests }),
      100,
    );
    try {
      const large = await timedBatch(pipeline, largeFile);
      await new Promise((resolve) =>
        setTimeout(resolve, large.started + SMALL_DELAY_SECONDS * 1000 - Date.now()),
      );
      const small = await timedBatch(pipeline, smallFile);
      const [largeDone, smallDone] = await Promise.all([large.finished, small.finished]);
      const stats = emulator.stats();
      // Utilisation while both batches had work: from the small upload to the small batch's completion, and over
      // the large batch's steady state (10 % to 90 % of its requests).
      const rateBetween = (from: number, to: number) => {
        const first = samples.find((sample) => sample.at >= from);
        const last = [...samples].reverse().find((sample) => sample.at <= to);
        return first && last && last.at > first.at
          ? ((last.requests - first.requests) * 1000) / (last.at - first.at)
          : null;
      };
      const at = (share: number) => samples.find((sample) => sample.requests >= stats.requests * share);
      const steady = rateBetween(at(0.1)?.at ?? 0, at(0.9)?.at ?? 0);
      const whileBoth = rateBetween(small.started, small.started + smallDone.wallMs);
      const chargesOf = (cells: readonly string[]) =>
        cells.reduce((sum, cell) => sum + (stats.chargesByDocument[cell] ?? 0), 0);
      const manifests = await Promise.all(
        [largeDone.batchId, smallDone.batchId].map(
          async (batchId) => (await pipeline.downloadResults(batchId, join(directory, batchId))).manifest,
        ),
      );
      return {
        largeMs: largeDone.wallMs,
        smallMs: smallDone.wallMs,
        steady,
        whileBoth,
        rateLimited: stats.byStatus['429'] ?? 0,
        largeChargesPerUnique: chargesOf(largeCells) / largeCells.length,
        smallChargesPerUnique: chargesOf(smallCells) / smallCells.length,
        counts: { large: manifests[0]?.counts, small: manifests[1]?.counts },
      };
    } finally {
      clearInterval(sampler);
    }
  });
  const smallShare = SMALL_ROWS / (largeRows + SMALL_ROWS);
  return {
    fairQueues,
    largeRows,
    smallRows: SMALL_ROWS,
    smallUploadedAfterSeconds: SMALL_DELAY_SECONDS,
    emulator: { rateLimitPerSecond: RATE, latencyMs: 50 },
    smallAloneSeconds: seconds(smallAlone),
    smallWithLargeSeconds: seconds(together.smallMs),
    smallRatioToAlone: ratio(together.smallMs / smallAlone),
    largeAloneSeconds: seconds(largeAlone),
    largeWithSmallSeconds: seconds(together.largeMs),
    largeSlowdown: ratio(together.largeMs / largeAlone - 1),
    largeSlowdownAllowed: ratio(smallShare + 0.05),
    steadyRequestsPerSecond: together.steady === null ? null : Number(together.steady.toFixed(1)),
    utilisation: together.steady === null ? null : ratio(together.steady / RATE),
    requestsPerSecondWhileBoth: together.whileBoth === null ? null : Number(together.whileBoth.toFixed(1)),
    rateLimited: together.rateLimited,
    chargesPerUniqueDocument: {
      large: ratio(together.largeChargesPerUnique),
      small: ratio(together.smallChargesPerUnique),
    },
    counts: together.counts,
    targets: { smallRatioToAlone: 3, utilisation: 0.95, rateLimited: 0, chargesPerUniqueDocument: 1 },
  };
}

async function writeResults(name: string, results: unknown): Promise<void> {
  const output = JSON.stringify(results, null, 2);
  await mkdir(fileURLToPath(new URL('./results/', import.meta.url)), { recursive: true });
  await writeFile(fileURLToPath(new URL(`./results/${name}`, import.meta.url)), `${output}\n`);
  console.log(output);
}

if (values['only-contention']) {
  try {
    await writeResults(
      'contention.json',
      await runContention(CONTENTION_ROWS || 20_000, !values['no-fair-queues']),
    );
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
  process.exit(0);
}

try {
  const rateLimited: EmulatorFaults = { latencyMs: 50, rateLimitPerSecond: RATE, rateLimitBurst: RATE };
  const cells = documents(N, 'rate');
  process.stderr.write(`1/6 rate-limit utilisation (${N} documents, R = ${RATE} req/s)…\n`);
  const [utilisation] = await runPipeline(
    rateLimited,
    settings({ bureaus: bureausWith({ rateLimitPerSecond: RATE, rateLimitBurst: RATE / 5 }) }),
    [await writeList('rate.csv', cells)],
  );

  // Overhead: C = 10 in two shapes (ten invocations of one call each, two of five), and C = 25, where DynamoDB
  // Local saturates on a 2-core machine.
  const overheadRuns = [];
  for (const [workers, calls] of [
    [10, 1],
    [2, CALLS_PER_INVOCATION],
    [WORKERS, CALLS_PER_INVOCATION],
  ] as const) {
    const concurrency = workers * calls;
    process.stderr.write(`2/6 overhead (${N} documents, 100 ms latency, C = ${workers} × ${calls})…\n`);
    const [run] = await runPipeline(
      { latencyMs: 100 },
      settings({
        workerConcurrency: workers,
        callsPerInvocation: calls,
        bureaus: bureausWith({ rateLimitPerSecond: 100_000, rateLimitBurst: 1000 }),
      }),
      [await writeList(`overhead-${workers}x${calls}.csv`, documents(N, `overhead ${concurrency}`))],
    );
    const ideal = (N * 0.1) / concurrency;
    overheadRuns.push({
      concurrency,
      workers,
      callsPerInvocation: calls,
      wallSeconds: seconds(run?.wallMs ?? 0),
      idealSeconds: ideal,
      ratio: ratio((run?.wallMs ?? 0) / 1000 / ideal),
      charged: run?.charged,
      chargedMoreThanOnce: run?.chargedMoreThanOnce,
      strict: run?.strict,
    });
  }

  process.stderr.write('3/6 credits (10% duplicates, 5% invalid, uploaded twice)…\n');
  const unique = documents(Math.round(N * 0.85), 'credits');
  const random = new SeededRandom('credits mix');
  const mixed = [...unique];
  for (let index = 0; index < Math.round(N * 0.1); index++) mixed.push(random.pick(unique));
  for (let index = 0; index < Math.round(N * 0.05); index++) mixed.push(`${random.digits(11).slice(0, 10)}X`);
  const creditsFile = await writeList(
    'credits.csv',
    mixed.sort(() => random.next() - 0.5),
  );
  const [firstUpload, secondUpload] = await runPipeline(
    { latencyMs: 10 },
    settings({ bureaus: bureausWith({ rateLimitPerSecond: 100_000, rateLimitBurst: 1000 }) }),
    [creditsFile, creditsFile],
  );

  let baselines = null;
  if (!values['skip-baselines']) {
    process.stderr.write('4/6 baselines under the settings of (1): sequential, then unthrottled…\n');
    const sequential = await runBaseline('sequential', cells, rateLimited);
    const unthrottled = await runBaseline('unthrottled', cells, rateLimited);
    baselines = { sequential, unthrottled };
  }

  let ingest = null;
  if (INGEST_ROWS > 0) {
    process.stderr.write(`5/6 ingest of ${INGEST_ROWS.toLocaleString('en-US')} rows…\n`);
    ingest = await runIngest(INGEST_ROWS);
  }

  const contention =
    CONTENTION_ROWS > 0 ? await runContention(CONTENTION_ROWS, !values['no-fair-queues']) : null;

  const pipelineWall = utilisation?.wallMs ?? 0;
  const results = {
    benchmark: 'credit-screen local pipeline',
    machine: {
      cpus: cpus().length,
      memoryGigabytes: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: process.platform,
    },
    measuredAt: new Date().toISOString(),
    strictMode: STRICT ?? null,
    rateLimitUtilisation: {
      documents: N,
      emulator: { rateLimitPerSecond: RATE, latencyMs: 50 },
      steadyRequestsPerSecond:
        utilisation?.steadyRate === null ? null : Number(utilisation?.steadyRate?.toFixed(1)),
      utilisation: utilisation?.steadyRate ? ratio(utilisation.steadyRate / RATE) : null,
      rateLimited: utilisation?.rateLimited,
      charged: utilisation?.charged,
      chargedMoreThanOnce: utilisation?.chargedMoreThanOnce,
      strict: utilisation?.strict,
      wallSeconds: seconds(pipelineWall),
      targets: { utilisation: 0.9, rateLimited: 0 },
    },
    overhead: { documents: N, latencyMs: 100, runs: overheadRuns, target: 1.5 },
    credits: {
      rows: mixed.length,
      uniqueValid: unique.length,
      firstUpload: {
        charged: firstUpload?.charged,
        perUniqueValid: ratio((firstUpload?.charged ?? 0) / unique.length),
        chargedMoreThanOnce: firstUpload?.chargedMoreThanOnce,
        counts: firstUpload?.counts,
        strict: firstUpload?.strict,
      },
      secondUpload: {
        charged: secondUpload?.charged,
        perUniqueValid: ratio((secondUpload?.charged ?? 0) / unique.length),
        chargedMoreThanOnce: secondUpload?.chargedMoreThanOnce,
        counts: secondUpload?.counts,
        strict: secondUpload?.strict,
      },
      targets: { firstUpload: 1, secondUpload: 0 },
    },
    baselines: baselines && {
      settings: 'those of rateLimitUtilisation',
      pipeline: {
        wallSeconds: seconds(pipelineWall),
        rateLimited: utilisation?.rateLimited,
        charged: utilisation?.charged,
        screened: utilisation?.counts.screened,
      },
      sequential: {
        ...baselines.sequential,
        wallSeconds: seconds(baselines.sequential.wallMs),
        wallRatioToPipeline: ratio(baselines.sequential.wallMs / pipelineWall),
      },
      unthrottled: {
        ...baselines.unthrottled,
        wallSeconds: seconds(baselines.unthrottled.wallMs),
        wallRatioToPipeline: ratio(baselines.unthrottled.wallMs / pipelineWall),
        screenedShare: ratio(baselines.unthrottled.screened / N),
      },
    },
    ingest: ingest && {
      rows: INGEST_ROWS,
      ...ingest,
      functionMemoryMegabytes: FUNCTION_MEMORY.ingest,
      heapLimitMegabytes: heapLimitMegabytes(FUNCTION_MEMORY.ingest),
      target: { peakRssMegabytes: 256 },
      note: 'against DynamoDB Local and fauxqs on this machine',
    },
    contention,
  };
  await writeResults('latest.json', results);
} finally {
  await rm(directory, { recursive: true, force: true });
}
