import { describe, expect, it } from 'vitest';
import { BatchStalledError, type FollowDependencies, followBatch } from '../../../cli/local/follow-batch.ts';
import type { BatchRecord } from '../../../src/domain/batch/index.ts';
import { batchRecord } from '../../factories/batch-records.ts';

/** A pipeline whose batch is `initial` until one of its ways to finalise runs, which completes it (or fails). */
function pipelineWith(initial: BatchRecord, finaliser: 'completes' | 'fails' = 'completes') {
  let batch = initial;
  const calls = { finaliseIfLast: 0, finalise: 0 };
  const complete = () => {
    if (finaliser === 'fails') throw new Error('The specified key does not exist.');
    batch = { ...batch, status: 'completed' };
  };
  const deps: FollowDependencies = {
    getBatch: async () => batch,
    finaliseIfLast: async () => {
      calls.finaliseIfLast++;
      complete();
    },
    finalise: async () => {
      calls.finalise++;
      complete();
    },
  };
  return { deps, calls };
}

const FAST = { pollMs: 5, finaliseGraceMs: 30, idleLimitMs: 60_000 };

describe('following a batch on the local pipeline', () => {
  it('finalises, itself, a batch left finalising with every row settled (its finaliser was killed)', async () => {
    const { deps, calls } = pipelineWith(batchRecord({ status: 'finalising', settled: 10 }));

    const done = await followBatch('batch-1', deps, FAST);

    expect(done).toMatchObject({ status: 'completed', settledRows: 10, totalRows: 10 });
    expect(calls).toEqual({ finaliseIfLast: 0, finalise: 1 });
  });

  it('asks for the finalisation of a running batch whose last settle never did', async () => {
    const { deps, calls } = pipelineWith(batchRecord({ status: 'running', settled: 10 }));

    const done = await followBatch('batch-1', deps, FAST);

    expect(done.status).toBe('completed');
    expect(calls).toEqual({ finaliseIfLast: 1, finalise: 0 });
  });

  it('leaves the finaliser its grace: a batch that completes meanwhile is not finalised again', async () => {
    const { deps, calls } = pipelineWith(batchRecord({ status: 'finalising', settled: 10 }));
    let polls = 0;
    const completing: FollowDependencies = {
      ...deps,
      getBatch: async (id) => {
        const batch = (await deps.getBatch(id)) as BatchRecord;
        return ++polls >= 3 ? { ...batch, status: 'completed' } : batch;
      },
    };

    const done = await followBatch('batch-1', completing, { ...FAST, finaliseGraceMs: 60_000 });

    expect(done.status).toBe('completed');
    expect(calls).toEqual({ finaliseIfLast: 0, finalise: 0 });
  });

  it('ends with the reason when the batch cannot be finalised, after three attempts, instead of waiting forever', async () => {
    const { deps, calls } = pipelineWith(batchRecord({ status: 'finalising', settled: 10 }), 'fails');
    const lines: string[] = [];

    const following = followBatch('batch-1', deps, {
      ...FAST,
      onProgress: (progress) => lines.push(`${progress.settledRows}/${progress.totalRows}`),
    });

    await expect(following).rejects.toThrow(BatchStalledError);
    await expect(following).rejects.toThrow(
      'batch batch-1: all 10 rows are settled, but it could not be finalised (Error: The specified key does not exist); its rows are kept: credit-screen status batch-1',
    );
    expect(calls.finalise).toBe(3);
    expect(new Set(lines)).toEqual(new Set(['10/10']));
  });

  it('ends, saying so, when no row settles within the idle limit', async () => {
    const { deps } = pipelineWith(batchRecord({ status: 'running', settled: 3 }));

    await expect(followBatch('batch-1', deps, { ...FAST, idleLimitMs: 50 })).rejects.toThrow(
      /^no row of batch batch-1 settled in \d+ s \(3\/10 rows settled, running\): stopped waiting; credit-screen resume takes it up again$/,
    );
  });

  it('ends at once for a batch waiting for approval, naming how to approve it', async () => {
    const { deps } = pipelineWith(batchRecord({ status: 'awaiting_approval' }));

    await expect(followBatch('batch-1', deps, FAST)).rejects.toThrow(
      'batch batch-1 waits for approval: credit-screen approve batch-1 (or reject batch-1)',
    );
  });

  it('counts as progress every row settled: a slow batch is followed as long as rows keep settling', async () => {
    let settled = 0;
    const deps: FollowDependencies = {
      getBatch: async () =>
        batchRecord({ status: settled >= 10 ? 'completed' : 'running', settled: Math.min(10, settled++) }),
      finaliseIfLast: async () => undefined,
      finalise: async () => undefined,
    };

    const done = await followBatch('batch-1', deps, { pollMs: 20, idleLimitMs: 100 });

    expect(done.status).toBe('completed');
  });
});
