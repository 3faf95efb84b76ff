import { setTimeout as sleep } from 'node:timers/promises';
import { RateLimitedError, TransientError } from './service-errors.ts';
import type { JsonObject, ServiceReply } from './service-response.ts';

/**
 * Where a generation job stands. The specification says generation is asynchronous and can be cancelled, but
 * shows neither the job's fields nor its states, so the client reads the common spellings (see
 * {@link jobStateOf}) and sorts them into these four phases; an unknown state counts as still pending.
 */
export type JobPhase = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface JobSnapshot {
  readonly id: string;
  /** The state as the service spelled it, or null when the body carried none. */
  readonly state: string | null;
  readonly phase: JobPhase;
  readonly body: JsonObject;
}

const PHASES: Readonly<Record<string, JobPhase>> = {
  done: 'succeeded',
  completed: 'succeeded',
  complete: 'succeeded',
  succeeded: 'succeeded',
  success: 'succeeded',
  finished: 'succeeded',
  failed: 'failed',
  failure: 'failed',
  error: 'failed',
  cancelled: 'cancelled',
  canceled: 'cancelled',
};

function child(body: JsonObject, field: string): JsonObject {
  const value = body[field];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : {};
}

function text(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
}

/** The job a body describes: the job object itself, or one nested under `job` or `data`. */
function jobObject(body: JsonObject): JsonObject {
  const data = child(body, 'data');
  if (Object.keys(child(body, 'job')).length > 0) return child(body, 'job');
  if (Object.keys(child(data, 'job')).length > 0) return child(data, 'job');
  return Object.keys(data).length > 0 ? data : body;
}

/**
 * The job id in a generation's 202 answer or a job read: `job_id`/`jobId` at the top, or the `id` of the job
 * object (top level, `job` or `data`). Null when none is found.
 */
export function jobIdOf(body: JsonObject): string | null {
  const data = child(body, 'data');
  const job = jobObject(body);
  return text(body.job_id) ?? text(body.jobId) ?? text(data.job_id) ?? text(data.jobId) ?? text(job.id);
}

/** The job's state (`status` or `state`) and its phase. */
export function jobStateOf(body: JsonObject): { readonly state: string | null; readonly phase: JobPhase } {
  const job = jobObject(body);
  const state = text(job.status) ?? text(job.state) ?? text(body.status) ?? text(body.state);
  const phase = state === null ? 'pending' : (PHASES[state.toLowerCase()] ?? 'pending');
  return { state, phase };
}

export function jobSnapshot(id: string, reply: ServiceReply): JobSnapshot {
  return { id, ...jobStateOf(reply.body), body: reply.body };
}

/** How long and how often to poll a job. */
export interface JobWaitOptions {
  /** Cancels the job on the service, then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** @default 500 */
  readonly initialPollMs?: number;
  /** @default 5_000 */
  readonly maxPollMs?: number;
  /** Growth of the interval after each poll that finds the job still pending. @default 1.5 */
  readonly backoffFactor?: number;
  /** Gives up waiting (the job keeps running) after this long. @default 600_000 */
  readonly timeoutMs?: number;
  /** Transient failures of consecutive polls tolerated before giving up. @default 5 */
  readonly maxConsecutiveFailures?: number;
  /** Called after every poll, for progress displays. */
  readonly onPoll?: (job: JobSnapshot) => void;
}

/** The job failed on the service. */
export class GenerationFailedError extends Error {
  override readonly name = 'GenerationFailedError';
  constructor(readonly job: JobSnapshot) {
    super(`generation job ${job.id} ended ${job.state ?? 'without a state'}`);
  }
}

/** The job was cancelled by someone other than this waiter. */
export class GenerationCancelledError extends Error {
  override readonly name = 'GenerationCancelledError';
  constructor(readonly job: JobSnapshot) {
    super(`generation job ${job.id} was cancelled`);
  }
}

/** Waiting took longer than allowed; the job was left running and can be waited for again by id. */
export class GenerationTimeoutError extends Error {
  override readonly name = 'GenerationTimeoutError';
  constructor(
    readonly jobId: string,
    readonly waitedMs: number,
    readonly lastSeen: JobSnapshot | null,
  ) {
    super(`generation job ${jobId} still ${lastSeen?.state ?? 'pending'} after ${Math.round(waitedMs)} ms`);
  }
}

export interface JobOperations {
  getJob(id: string, options: { signal?: AbortSignal }): Promise<ServiceReply>;
  cancelJob(id: string, options: { signal?: AbortSignal }): Promise<ServiceReply>;
}

// Cancelling after the caller aborted must not hang the abort: it gets its own short deadline.
const CANCEL_DEADLINE_MS = 5_000;

function validatedWait(options: JobWaitOptions) {
  const settings = {
    initialPollMs: options.initialPollMs ?? 500,
    maxPollMs: options.maxPollMs ?? 5_000,
    backoffFactor: options.backoffFactor ?? 1.5,
    timeoutMs: options.timeoutMs ?? 600_000,
    maxConsecutiveFailures: options.maxConsecutiveFailures ?? 5,
  };
  for (const [name, value] of Object.entries(settings)) {
    if (!(Number.isFinite(value) && value >= 0))
      throw new RangeError(`${name} must be a number ≥ 0, got ${value}`);
  }
  if (settings.backoffFactor < 1)
    throw new RangeError(`backoffFactor must be ≥ 1, got ${settings.backoffFactor}`);
  return settings;
}

/**
 * Polls a job until it succeeds (resolves with its last snapshot), fails or is cancelled elsewhere (rejects),
 * or the wait times out. Polls back off from `initialPollMs` to `maxPollMs`; a transient failure or a 429 is
 * retried, honouring `Retry-After`. When the caller's signal fires, the job is cancelled on the service (best
 * effort) before the returned promise rejects with the signal's reason.
 */
export async function waitForJob(
  jobs: JobOperations,
  jobId: string,
  options: JobWaitOptions = {},
): Promise<JobSnapshot> {
  const settings = validatedWait(options);
  const { signal } = options;
  const started = performance.now();
  let interval = settings.initialPollMs;
  let failures = 0;
  let last: JobSnapshot | null = null;
  try {
    for (;;) {
      signal?.throwIfAborted();
      let retryAfterMs: number | null = null;
      try {
        last = jobSnapshot(jobId, await jobs.getJob(jobId, { signal }));
        failures = 0;
        options.onPoll?.(last);
        if (last.phase === 'succeeded') return last;
        if (last.phase === 'failed') throw new GenerationFailedError(last);
        if (last.phase === 'cancelled') throw new GenerationCancelledError(last);
      } catch (error) {
        if (!(error instanceof TransientError || error instanceof RateLimitedError) || signal?.aborted)
          throw error;
        if (++failures > settings.maxConsecutiveFailures) throw error;
        if (error instanceof RateLimitedError && error.retryAfterSeconds !== null)
          retryAfterMs = error.retryAfterSeconds * 1000;
      }
      const waited = performance.now() - started;
      const remaining = settings.timeoutMs - waited;
      if (remaining <= 0) throw new GenerationTimeoutError(jobId, waited, last);
      await sleep(Math.min(Math.max(interval, retryAfterMs ?? 0), remaining), undefined, { signal });
      interval = Math.min(settings.maxPollMs, interval * settings.backoffFactor);
    }
  } catch (error) {
    if (!signal?.aborted) throw error;
    await jobs.cancelJob(jobId, { signal: AbortSignal.timeout(CANCEL_DEADLINE_MS) }).catch(() => undefined);
    throw signal.reason;
  }
}
