import { describe, expect, it } from 'vitest';
import { FairQueueBuffer } from '../../../cli/local/fair-queue-buffer.ts';
import { FAIR_QUEUE_BEHAVIOUR } from '../../../src/contract/index.ts';

/**
 * The local fair queue against AWS's description of SQS fair queues (FAIR_QUEUE_BEHAVIOUR, from "How Amazon SQS
 * fair queues work"): each case is one sentence of that description.
 */
function buffer() {
  let now = 1_000_000;
  const fair = new FairQueueBuffer<string>(FAIR_QUEUE_BEHAVIOUR, () => now);
  return { fair, advance: (ms: number) => (now += ms) };
}

const fill = (fair: FairQueueBuffer<string>, tenant: string | undefined, count: number, prefix = tenant) => {
  for (let index = 0; index < count; index++) fair.add(`${prefix}-${index}`, tenant);
};

describe('FairQueueBuffer', () => {
  it('is first in, first out while no tenant is noisy (the steady state)', () => {
    const { fair } = buffer();
    fair.add('a-0', 'a');
    fair.add('b-0', 'b');
    fair.add('a-1', 'a');

    expect(fair.take(3).map((ticket) => ticket.item)).toEqual(['a-0', 'b-0', 'a-1']);
  });

  it(`marks a tenant noisy with more than ${FAIR_QUEUE_BEHAVIOUR.noisyInFlightShare * 100} % of the messages in flight and at least ${FAIR_QUEUE_BEHAVIOUR.noisyMinimumInFlight} of its own`, () => {
    const { fair } = buffer();
    const minimum = FAIR_QUEUE_BEHAVIOUR.noisyMinimumInFlight;
    fill(fair, 'flood', minimum);
    fill(fair, 'other', minimum);
    // No time passes, so processing time says nothing: only the in-flight measure speaks.
    fair.take(minimum - 1);
    expect(fair.isNoisy('flood')).toBe(false);

    fair.take(1);
    expect(fair.isNoisy('flood')).toBe(true);
  });

  it(`marks a tenant noisy with more than ${FAIR_QUEUE_BEHAVIOUR.noisyProcessingShare * 100} % of the recent processing time, even with few messages in flight`, () => {
    const { fair, advance } = buffer();
    fill(fair, 'slow', 2);
    const tickets = fair.take(2);
    advance(5_000);
    fair.done(tickets);

    expect(fair.isNoisy('slow')).toBe(true);
    // Older than the window, that time no longer counts.
    advance(FAIR_QUEUE_BEHAVIOUR.processingWindowSeconds * 1000 + 1);
    expect(fair.isNoisy('slow')).toBe(false);
  });

  it("serves a quiet tenant's messages before a noisy tenant's older ones, and the noisy ones when none waits", () => {
    const { fair, advance } = buffer();
    fill(fair, 'flood', 100);
    const first = fair.take(10);
    advance(1_000);
    fair.done(first);
    fill(fair, 'small', 3);

    expect(fair.take(5).map((ticket) => ticket.item)).toEqual([
      'small-0',
      'small-1',
      'small-2',
      'flood-10',
      'flood-11',
    ]);
  });

  it('serves, among noisy tenants, the one with the fewest messages in flight first', () => {
    const { fair, advance } = buffer();
    fill(fair, 'big', 60);
    fill(fair, 'bigger', 60);
    // 'big' goes first until it is noisy by concurrency (30 in flight), then 'bigger' is the quiet one.
    const taken = fair.take(40).map((ticket) => ticket.item);
    expect(taken.filter((item) => item.startsWith('big-'))).toHaveLength(30);
    advance(1_000);

    // Both now hold far more than 10 % of the processing time: 'bigger', with 10 in flight against 30, goes first
    // although 'big' has the older message waiting.
    expect(fair.isNoisy('big') && fair.isNoisy('bigger')).toBe(true);
    expect(fair.take(1).map((ticket) => ticket.item)).toEqual(['bigger-10']);
  });

  it('counts every message without a group as a tenant of its own, never noisy', () => {
    const { fair, advance } = buffer();
    fill(fair, 'flood', 60);
    const first = fair.take(40);
    advance(1_000);
    fair.done(first);
    fill(fair, undefined, 2, 'priority');

    expect(fair.take(2).map((ticket) => ticket.item)).toEqual(['priority-0', 'priority-1']);
  });

  it('never drops a message: everything added is taken or drained', () => {
    const { fair } = buffer();
    fill(fair, 'a', 7);
    fill(fair, undefined, 3, 'none');
    const taken = fair.take(4).map((ticket) => ticket.item);
    const drained = fair.drain();

    expect([...taken, ...drained].sort()).toHaveLength(10);
    expect(fair.waiting).toBe(0);
  });
});
