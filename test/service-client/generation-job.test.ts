import { describe, expect, it } from 'vitest';
import {
  GenerationCancelledError,
  GenerationFailedError,
  GenerationTimeoutError,
  type JobOperations,
  jobIdOf,
  jobStateOf,
  waitForJob,
} from '../../service-client/generation-job.ts';
import { InvalidTokenError, RateLimitedError, TransientError } from '../../service-client/service-errors.ts';
import type { JsonObject } from '../../service-client/service-response.ts';

/** Job operations that answer each poll from a script (a body, or an error to throw) and record cancels. */
function scriptedJobs(script: (JsonObject | Error)[]): JobOperations & { polls: number; cancels: string[] } {
  const jobs = {
    polls: 0,
    cancels: [] as string[],
    async getJob() {
      const step = script[Math.min(jobs.polls, script.length - 1)] as JsonObject | Error;
      jobs.polls++;
      if (step instanceof Error) throw step;
      return { httpStatus: 200, body: step };
    },
    async cancelJob(id: string) {
      jobs.cancels.push(id);
      return { httpStatus: 200, body: { status: 'cancelled' } };
    },
  };
  return jobs;
}

const fast = { initialPollMs: 1, maxPollMs: 2 } as const;

describe('jobIdOf', () => {
  it.each([
    [{ job_id: 'j1' }, 'j1'],
    [{ jobId: 'j2' }, 'j2'],
    [{ job: { id: 'j3', status: 'queued' } }, 'j3'],
    [{ data: { job: { id: 'j4' } } }, 'j4'],
    [{ data: { job_id: 'j5' } }, 'j5'],
    [{ data: { id: 'j6', status: 'queued' } }, 'j6'],
    [{ id: 7, status: 'queued' }, '7'],
    [{ status: 'accepted' }, null],
  ])('finds the job id in %j', (body, id) => {
    expect(jobIdOf(body as JsonObject)).toBe(id);
  });
});

describe('jobStateOf', () => {
  it.each([
    [{ status: 'queued' }, 'pending'],
    [{ state: 'RUNNING' }, 'pending'],
    [{ job: { status: 'done' } }, 'succeeded'],
    [{ data: { state: 'completed' } }, 'succeeded'],
    [{ status: 'failed' }, 'failed'],
    [{ status: 'canceled' }, 'cancelled'],
    [{ status: 'something-new' }, 'pending'],
    [{}, 'pending'],
  ])('sorts %j into the %s phase', (body, phase) => {
    expect(jobStateOf(body as JsonObject).phase).toBe(phase);
  });
});

describe('waitForJob', () => {
  it('polls until the job is done and returns the last snapshot', async () => {
    const jobs = scriptedJobs([{ status: 'queued' }, { status: 'running' }, { status: 'done', version: 2 }]);

    const job = await waitForJob(jobs, 'j1', fast);

    expect(job).toMatchObject({ id: 'j1', phase: 'succeeded', body: { version: 2 } });
    expect(jobs.polls).toBe(3);
  });

  it('rejects with GenerationFailedError or GenerationCancelledError when the job ends that way', async () => {
    await expect(waitForJob(scriptedJobs([{ status: 'failed' }]), 'j', fast)).rejects.toBeInstanceOf(
      GenerationFailedError,
    );
    await expect(waitForJob(scriptedJobs([{ status: 'cancelled' }]), 'j', fast)).rejects.toBeInstanceOf(
      GenerationCancelledError,
    );
  });

  it('retries transient poll failures and 429s, up to the bound', async () => {
    const flaky = new TransientError('503', 503, null);
    const limited = new RateLimitedError('429', 429, null, 0);
    const recovering = scriptedJobs([flaky, limited, flaky, { status: 'done' }]);
    const broken = scriptedJobs([flaky]);

    await expect(waitForJob(recovering, 'j', fast)).resolves.toMatchObject({ phase: 'succeeded' });
    await expect(waitForJob(broken, 'j', { ...fast, maxConsecutiveFailures: 3 })).rejects.toBe(flaky);
    expect(broken.polls).toBe(4);
  });

  it('stops at once on a refused token', async () => {
    const jobs = scriptedJobs([new InvalidTokenError('401', 401, null)]);

    await expect(waitForJob(jobs, 'j', fast)).rejects.toBeInstanceOf(InvalidTokenError);
    expect(jobs.polls).toBe(1);
  });

  it('gives up after the timeout without cancelling the job, and says where it stood', async () => {
    const jobs = scriptedJobs([{ status: 'running' }]);

    const error = await waitForJob(jobs, 'j9', { initialPollMs: 5, timeoutMs: 30 }).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(GenerationTimeoutError);
    expect(error).toMatchObject({ jobId: 'j9', lastSeen: { state: 'running' } });
    expect(jobs.cancels).toEqual([]);
  });

  it('backs off between polls up to the maximum interval', async () => {
    const jobs = scriptedJobs([{ status: 'running' }]);
    const started = performance.now();

    await waitForJob(jobs, 'j', { initialPollMs: 10, maxPollMs: 40, backoffFactor: 2, timeoutMs: 300 }).catch(
      () => undefined,
    );

    // Intervals 10, 20, 40, 40, …: about 9 polls fit in 300 ms, far fewer than the 30 a fixed 10 ms would make.
    expect(jobs.polls).toBeGreaterThanOrEqual(5);
    expect(jobs.polls).toBeLessThanOrEqual(12);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('cancels the job and rejects with the reason when the signal fires', async () => {
    const jobs = scriptedJobs([{ status: 'running' }]);
    const controller = new AbortController();
    const reason = new Error('stop');
    setTimeout(() => controller.abort(reason), 20);

    await expect(waitForJob(jobs, 'j5', { signal: controller.signal, initialPollMs: 5 })).rejects.toBe(
      reason,
    );
    expect(jobs.cancels).toEqual(['j5']);
  });

  it('refuses nonsensical wait settings', async () => {
    await expect(waitForJob(scriptedJobs([{}]), 'j', { backoffFactor: 0.5 })).rejects.toBeInstanceOf(
      RangeError,
    );
    await expect(waitForJob(scriptedJobs([{}]), 'j', { timeoutMs: Number.NaN })).rejects.toBeInstanceOf(
      RangeError,
    );
  });
});
