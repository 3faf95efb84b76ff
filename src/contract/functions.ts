/** The pipeline's functions: their names, memory, timeouts and heap limits. */

import { SWEEP_INTERVAL_MINUTES } from './claims.ts';
import { DISPATCH_TIMEOUT_SECONDS } from './queues.ts';
import type { PipelineSettings } from './settings.ts';

/**
 * Memory of each function, in MB. Lambda gives CPU in proportion to memory (1,769 MB is one vCPU). The ingest
 * streams a million rows in under 256 MB (bench:pipeline), but its work is CPU (parsing, checking, hashing): 175
 * CPU-seconds a million rows held for approval, 344 sending as it reads (measured for issue #39), which at 256 MB's
 * 0.145 vCPU is 1,200–2,400 s, past Lambda's 900 s. With a whole vCPU it is 175–344 s, for the same GB-seconds: a
 * CPU-bound invocation's GB-seconds do not depend on its memory.
 */
export const FUNCTION_MEMORY = {
  ingest: 1769,
  worker: 256,
  finalise: 1024,
  deadLetter: 256,
  portfolioSchedules: 256,
  sweeper: 256,
  policyCheck: 256,
  dispatch: 256,
} as const;

/** The pipeline's functions, by the names the construct and the local runner both use. */
export type PipelineFunction = keyof typeof FUNCTION_MEMORY;

/**
 * The console's API function (deployed with the `console` prop only; locally `credit-screen console` serves the same
 * app): answers people, not batches, so it is not one of the pipeline's functions the local runner runs. Its
 * requests read a page of rows or write a decision; 29 s is API Gateway's wait for an integration, less a second.
 */
export const CONSOLE_API_FUNCTION: FunctionSpec = { memoryMegabytes: 512, timeoutSeconds: 29 };

/** Every function the construct may deploy. */
export type DeployedFunction = PipelineFunction | 'consoleApi';

/**
 * Native modules a function loads, shipped installed beside its bundle instead of bundled (esbuild cannot bundle a
 * `.node` binary): the worker decides each row with zen-engine's Rust core as it settles it, the finaliser decides
 * the rows the worker could not, and the policy check compiles every uploaded policy with it.
 */
export const FUNCTION_NATIVE_MODULES: Readonly<Partial<Record<DeployedFunction, readonly string[]>>> = {
  worker: ['@gorules/zen-engine'],
  finalise: ['@gorules/zen-engine'],
  policyCheck: ['@gorules/zen-engine'],
};

/**
 * The processor a function runs on: Graviton (arm64), except a function that ships a native module, which runs on
 * x86_64 — the build the tests load here and in CI, which bundling ships whatever machine synthesizes
 * (lib/pipeline/native-modules.ts), so the deployment test runs the very bundle that is deployed. x86's higher price per GB-second (about a quarter more) is
 * immaterial: a worker spends about a quarter GB-second per row, a millionth of a dollar more, beside a query's R$ 2.70.
 */
export const functionArchitecture = (name: DeployedFunction): 'arm64' | 'x86_64' =>
  FUNCTION_NATIVE_MODULES[name] === undefined ? 'arm64' : 'x86_64';

/** Memory and timeout of a function: what the construct deploys and what the local runner's invocations get. */
export interface FunctionSpec {
  readonly memoryMegabytes: number;
  readonly timeoutSeconds: number;
}

/** Every function's memory and timeout. Ingest and finalise get Lambda's maximum: a million-row file takes minutes. */
export function functionSpecs(settings: PipelineSettings): Readonly<Record<PipelineFunction, FunctionSpec>> {
  return {
    ingest: { memoryMegabytes: FUNCTION_MEMORY.ingest, timeoutSeconds: 900 },
    worker: { memoryMegabytes: FUNCTION_MEMORY.worker, timeoutSeconds: settings.workerTimeoutSeconds },
    finalise: { memoryMegabytes: FUNCTION_MEMORY.finalise, timeoutSeconds: 900 },
    deadLetter: { memoryMegabytes: FUNCTION_MEMORY.deadLetter, timeoutSeconds: 60 },
    portfolioSchedules: { memoryMegabytes: FUNCTION_MEMORY.portfolioSchedules, timeoutSeconds: 60 },
    // A sweep never outlasts the interval to the next one.
    sweeper: { memoryMegabytes: FUNCTION_MEMORY.sweeper, timeoutSeconds: SWEEP_INTERVAL_MINUTES * 60 },
    policyCheck: { memoryMegabytes: FUNCTION_MEMORY.policyCheck, timeoutSeconds: 60 },
    dispatch: { memoryMegabytes: FUNCTION_MEMORY.dispatch, timeoutSeconds: DISPATCH_TIMEOUT_SECONDS },
  };
}

/** The variable that sizes a process's pool of ZEN processes (src/adapters/decision/zen-process/). */
export const ZEN_PROCESSES_VARIABLE = 'CREDIT_SCREEN_ZEN_PROCESSES';

/**
 * ZEN processes for a function of `memoryMegabytes`: one per vCPU Lambda gives it (one vCPU per 1,769 MB), at least
 * one. A function with less than a vCPU gains nothing from a second process, and each costs about 50 MB.
 */
export function zenProcessesFor(memoryMegabytes: number): number {
  return Math.max(1, Math.floor(memoryMegabytes / 1769));
}

/**
 * V8's old-space limit for a function of `memoryMegabytes`: 60%, leaving room for buffers, code and the runtime.
 * Without it V8 grows its heap lazily past what the function has (a million-row ingest peaked at 265 MB RSS with
 * the default and at about 160 MB with this limit, at the same speed).
 */
export function heapLimitMegabytes(memoryMegabytes: number): number {
  return Math.floor(memoryMegabytes * 0.6);
}
