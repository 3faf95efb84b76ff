/**
 * The finaliser measured as the finalise queue drives it, each message an invocation of its own: the whole-batch
 * message, one message per part, the join. Used by `npm run bench:scale` and by the test that holds the finaliser's
 * heap flat in the number of rows (test/bench/finaliser-scale.test.ts).
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { handleFinaliseMessage } from '../src/application/finalise/finalise-batch.ts';
import { FUNCTION_MEMORY } from '../src/contract/index.ts';
import type { FinaliseMessage } from '../src/domain/batch/index.ts';
import { generatedBatch } from './generated-batch.ts';

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

/** Lambda's memory for a whole vCPU; a function gets memory ÷ this of one. */
export const FULL_VCPU_MB = 1769;

/** Seconds in Lambda of `cpuSeconds` measured here, for a function of `memoryMb` (this core taken for Lambda's). */
export const scaledToLambda = (cpuSeconds: number, memoryMb: number = FUNCTION_MEMORY.finalise): number =>
  cpuSeconds / (Math.min(memoryMb, FULL_VCPU_MB) / FULL_VCPU_MB);

/** One finalise message's invocation: what it was, its CPU-seconds and its peak heap. */
export interface Invocation {
  readonly message: 'batch' | 'part' | 'join';
  readonly cpuSeconds: number;
  readonly peakHeapMb: number;
}

/**
 * Runs one invocation's work and measures it: CPU-seconds (`process.cpuUsage`), and peak heap (used after a full
 * collection before it, plus its highest growth during it, sampled every 5 ms; garbage not yet collected counts,
 * so this errs high).
 */
async function measured(message: Invocation['message'], work: () => Promise<unknown>): Promise<Invocation> {
  collectGarbage();
  let peak = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 5);
  const cpu = process.cpuUsage();
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  const used = process.cpuUsage(cpu);
  return { message, cpuSeconds: (used.user + used.system) / 1e6, peakHeapMb: peak / 2 ** 20 };
}

export interface FinaliserScaleOptions {
  readonly rows: number;
  readonly partRows: number;
  /** A policy file that decides every row in the finaliser; none: no policy. */
  readonly policyFile?: string;
}

/** Finalises a generated batch message by message; rejects unless its manifest counts every row. */
export async function measureFinaliser(options: FinaliserScaleOptions): Promise<Invocation[]> {
  const batchId = `scale-${options.rows}-${options.partRows}`;
  const generated = await generatedBatch({
    batchId,
    rows: options.rows,
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
  for (let message = queue.shift(); message !== undefined; message = queue.shift()) {
    const kind = message.compose ? 'join' : message.part ? 'part' : 'batch';
    invocations.push(await measured(kind, () => handleFinaliseMessage(message, deps)));
  }
  const manifest = await generated.objects.readTextIfExists(`results/${batchId}/manifest.json`);
  const counted =
    manifest === null ? null : (JSON.parse(manifest) as { counts: { rows: number } }).counts.rows;
  if (counted !== options.rows) throw new Error(`the batch was not finalised (manifest rows: ${counted})`);
  return invocations;
}
