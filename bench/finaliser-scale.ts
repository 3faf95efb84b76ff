/**
 * The finaliser measured as the finalise queue drives it, each message an invocation of its own: the whole-batch
 * message, one message per part, the join. Used by `npm run bench:scale` and by the test that holds the finaliser's
 * heap flat in the number of rows (test/bench/finaliser-scale.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { MemoryObjectStore } from '../src/adapters/memory/memory-object-store.ts';
import { handleFinaliseMessage } from '../src/application/finalise/finalise-batch.ts';
import { FUNCTION_MEMORY, finalisePartsPrefix } from '../src/contract/index.ts';
import type { FinaliseMessage } from '../src/domain/batch/index.ts';
import { generatedBatch } from './generated-batch.ts';

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;
collectGarbage();
/** The heap with the finaliser's code loaded and nothing run: what a function's heap starts from. */
const startingHeap = process.memoryUsage().heapUsed;

/** Lambda's memory for a whole vCPU; a function gets memory ÷ this of one. */
export const FULL_VCPU_MB = 1769;

/** Seconds in Lambda of `cpuSeconds` measured here, for a function of `memoryMb` (this core taken for Lambda's). */
export const scaledToLambda = (cpuSeconds: number, memoryMb: number = FUNCTION_MEMORY.finalise): number =>
  cpuSeconds / (Math.min(memoryMb, FULL_VCPU_MB) / FULL_VCPU_MB);

/** Linux's clock ticks a second, the unit of CPU times in `/proc/<pid>/stat`. */
const CLOCK_TICKS = 100;

/**
 * CPU-seconds so far of this process's descendants that are still running: the ZEN processes a policy is evaluated
 * in (src/adapters/decision/zen-process/). `process.cpuUsage` leaves them out; in Lambda they share the function's
 * CPU. Read from `/proc` (Linux), zero elsewhere.
 */
function descendantsCpuSeconds(): number {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/u.test(name));
  } catch {
    return 0;
  }
  const stats = entries.flatMap((pid) => {
    try {
      // After the command's closing parenthesis: state, ppid, … utime (14th field), stime (15th).
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return [{ pid: Number(pid), ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) }];
    } catch {
      return []; // gone meanwhile
    }
  });
  const family = new Set([process.pid]);
  let ticks = 0;
  for (let grew = true; grew; ) {
    grew = false;
    for (const stat of stats)
      if (!family.has(stat.pid) && family.has(stat.ppid)) {
        family.add(stat.pid);
        ticks += stat.ticks;
        grew = true;
      }
  }
  return ticks / CLOCK_TICKS;
}

/** One finalise message's invocation: what it was, its CPU-seconds and its peak heap. */
export interface Invocation {
  readonly message: 'batch' | 'part' | 'join';
  readonly cpuSeconds: number;
  readonly peakHeapMb: number;
}

/**
 * Runs one invocation's work and measures it: CPU-seconds (`process.cpuUsage`, and its ZEN processes'), and peak
 * heap: the heap with the
 * code loaded, plus the invocation's highest growth over the heap after a full collection before it, sampled every
 * 5 ms (garbage not yet collected counts, so this errs high).
 */
async function measured(message: Invocation['message'], work: () => Promise<unknown>): Promise<Invocation> {
  collectGarbage();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 5);
  const cpu = process.cpuUsage();
  const descendants = descendantsCpuSeconds();
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  const used = process.cpuUsage(cpu);
  const descendantsUsed = Math.max(0, descendantsCpuSeconds() - descendants);
  // The invocation's growth on the heap a function starts with (what the bench itself holds is not counted).
  const peakHeapMb = (startingHeap + peak - base) / 2 ** 20;
  return { message, cpuSeconds: (used.user + used.system) / 1e6 + descendantsUsed, peakHeapMb };
}

export interface FinaliserScaleOptions {
  readonly rows: number;
  readonly partRows: number;
  /** A policy file that decides every row in the finaliser; none: no policy. */
  readonly policyFile?: string;
  /** A re-screen of a portfolio, every screened row compared with its previous report. @default false */
  readonly rescreen?: boolean;
}

/** The lines of every part's alerts file (one `DocumentChanged` each). */
async function alertLinesOf(objects: MemoryObjectStore, batchId: string): Promise<number> {
  let lines = 0;
  for await (const key of objects.list(finalisePartsPrefix(batchId)))
    if (key.endsWith('/alerts.jsonl'))
      lines += ((await objects.readTextIfExists(key)) ?? '').split('\n').filter((line) => line !== '').length;
  return lines;
}

/**
 * Finalises a generated batch message by message; rejects unless its manifest counts every row (and, for a
 * re-screen, changed documents).
 */
export async function measureFinaliser(options: FinaliserScaleOptions): Promise<Invocation[]> {
  const batchId = `scale-${options.rows}-${options.partRows}${options.rescreen ? '-rescreen' : ''}`;
  const generated = await generatedBatch({
    batchId,
    rows: options.rows,
    rescreen: options.rescreen ?? false,
    decidedBy: options.policyFile === undefined ? 'none' : 'finaliser',
    ...(options.policyFile === undefined ? {} : { policyFile: options.policyFile }),
  });
  const queue: FinaliseMessage[] = [{ version: 1, batchId }];
  const deps = {
    ...generated.deps,
    partRows: options.partRows,
    queue: { sendFinalise: async (message: FinaliseMessage) => void queue.push(message) },
  };
  const invocations: Invocation[] = [];
  /** The `DocumentChanged` events the parts wrote, counted before the join announces (and removes) them. */
  let eventsWritten: number | null = null;
  for (let message = queue.shift(); message !== undefined; message = queue.shift()) {
    const kind = message.compose ? 'join' : message.part ? 'part' : 'batch';
    if (kind === 'join') eventsWritten = await alertLinesOf(generated.objects, batchId);
    invocations.push(await measured(kind, () => handleFinaliseMessage(message, deps)));
  }
  const announced = generated.deps.events.counts.get('DocumentChanged') ?? 0;
  if (eventsWritten !== null && announced !== eventsWritten)
    throw new Error(
      `the join announced ${announced} DocumentChanged of the ${eventsWritten} its parts wrote`,
    );
  const manifest = await generated.objects.readTextIfExists(`results/${batchId}/manifest.json`);
  const written =
    manifest === null
      ? null
      : (JSON.parse(manifest) as { counts: { rows: number }; changes: { documentsChanged: number } | null });
  if (written?.counts.rows !== options.rows)
    throw new Error(`the batch was not finalised (manifest rows: ${written?.counts.rows})`);
  // A re-screen that found no change would measure nothing of what a re-screen adds.
  if (options.rescreen && !(written.changes !== null && written.changes.documentsChanged > 0))
    throw new Error('the re-screen found no changed document');
  return invocations;
}
