import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../../src/adapters/memory/memory-logger.ts';
import { comeBackLater, MAX_WAITS_PER_ROW } from '../../../src/application/worker/come-back-later.ts';
import type { WorkMessage } from '../../../src/domain/batch/index.ts';
import type { WorkQueue } from '../../../src/domain/ports/index.ts';

function recordingQueue() {
  const deferred: { message: WorkMessage; delaySeconds: number }[] = [];
  const queue = {
    deferWork: async (message: WorkMessage, delaySeconds: number) => {
      deferred.push({ message, delaySeconds });
    },
  } as unknown as WorkQueue;
  return { queue, deferred };
}

const message: WorkMessage = { version: 1, batchId: 'b1', row: 3, document: '52998224725', bureau: 'a' };

describe('a row that must wait', () => {
  it('comes back as a new message counting its waits, the original deleted (done)', async () => {
    const { queue, deferred } = recordingQueue();

    const first = await comeBackLater(message, 2, 'token probe', { queue, logger: new MemoryLogger() });
    const again = await comeBackLater(deferred[0]?.message as WorkMessage, 1, 'rate limit', {
      queue,
      logger: new MemoryLogger(),
    });

    expect(first).toEqual({ done: true });
    expect(again).toEqual({ done: true });
    expect(deferred).toEqual([
      { message: { ...message, waits: 1 }, delaySeconds: 2 },
      { message: { ...message, waits: 2 }, delaySeconds: 1 },
    ]);
  });

  it('fails its message like any failure once it waited the most times, so it still reaches a final status', async () => {
    const { queue, deferred } = recordingQueue();

    const outcome = await comeBackLater({ ...message, waits: MAX_WAITS_PER_ROW }, 2, 'token probe', {
      queue,
      logger: new MemoryLogger(),
    });

    expect(outcome).toEqual({ done: false, delaySeconds: 2 });
    expect(deferred).toEqual([]);
  });
});
