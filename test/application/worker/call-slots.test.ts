import { describe, expect, it } from 'vitest';
import { CallSlots } from '../../../src/application/worker/call-slots.ts';
import type { RequestSlot } from '../../../src/domain/rate-limit/index.ts';

/** A slot usable from now on, for as long as a test takes. */
const openSlot = (): RequestSlot => ({ at: 0, until: Number.MAX_SAFE_INTEGER });

/** A controllable token source: each acquire waits until the test grants it, and is recorded. */
function tokens() {
  const pending: { bureau: string; grant: (slot: RequestSlot) => void; fail: (error: unknown) => void }[] =
    [];
  let taken = 0;
  return {
    pending,
    get taken() {
      return taken;
    },
    acquire: (bureau: 'a' | 'b') =>
      new Promise<RequestSlot>((resolve, reject) => {
        taken++;
        pending.push({ bureau, grant: resolve, fail: reject });
      }),
    grantAll() {
      for (const token of pending.splice(0)) token.grant(openSlot());
    },
  };
}

/** A call the test finishes by hand. */
function deferredCall(log: string[], name: string) {
  let finish: (value: string) => void = () => undefined;
  const call = () =>
    new Promise<string>((resolve) => {
      log.push(`start ${name}`);
      finish = (value) => {
        log.push(`end ${name}`);
        resolve(value);
      };
    });
  return { call, finish: (value = name) => finish(value) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('CallSlots', () => {
  it('runs at most `size` calls at once, each only after its token', async () => {
    const source = tokens();
    const slots = new CallSlots(2, source.acquire);
    const log: string[] = [];
    const calls = ['one', 'two', 'three', 'four'].map((name) => deferredCall(log, name));

    const results = calls.map((deferred) => slots.run('a', deferred.call));
    await settle();
    expect(log).toEqual([]); // no token yet, no call
    source.grantAll();
    await settle();

    expect(log).toEqual(['start one', 'start two']);
    source.grantAll(); // the tokens reserved meanwhile for three and four
    calls[0]?.finish();
    await settle();
    expect(log).toEqual(['start one', 'start two', 'end one', 'start three']);
    calls[1]?.finish();
    calls[2]?.finish();
    await settle();
    calls[3]?.finish();
    expect(await Promise.all(results)).toEqual(['one', 'two', 'three', 'four']);
  });

  it('reserves the tokens of the next calls while calls are in flight, never more than `size` ahead', async () => {
    const source = tokens();
    const slots = new CallSlots(2, source.acquire);
    const log: string[] = [];
    const calls = Array.from({ length: 6 }, (_, index) => deferredCall(log, String(index)));

    for (const deferred of calls) void slots.run('a', deferred.call);
    await settle();
    expect(source.taken).toBe(2); // the two that can start
    source.grantAll();
    await settle();

    // Two calls in flight; the next two have their tokens being reserved, the last two nothing yet.
    expect(source.taken).toBe(4);
    source.grantAll();
    calls[0]?.finish();
    await settle();
    // Call 2 starts at once on its reserved token, and call 4's token is reserved in turn.
    expect(log.at(-1)).toBe('start 2');
    expect(source.taken).toBe(5);
  });

  it("fails only the call whose token fails (an invocation ending), and keeps the others' order", async () => {
    const source = tokens();
    const slots = new CallSlots(1, source.acquire);
    const log: string[] = [];
    const first = deferredCall(log, 'first');
    const second = deferredCall(log, 'second');
    const ending = new Error('invocation ending');

    const one = slots.run('a', first.call);
    const two = slots.run('b', second.call);
    await settle();
    source.pending.shift()?.fail(ending);

    await expect(one).rejects.toBe(ending);
    await settle();
    expect(source.pending.map((token) => token.bureau)).toEqual(['b']);
    source.grantAll();
    await settle();
    second.finish();
    await expect(two).resolves.toBe('second');
    expect(log).toEqual(['start second', 'end second']);
  });

  it('refuses a size below one', () => {
    expect(() => new CallSlots(0, async () => openSlot())).toThrow(RangeError);
  });
});

describe('CallSlots with a limiter that throws at once', () => {
  it('rejects the calls whose token failed and keeps serving the slots', async () => {
    let refuse = true;
    const throwing = new CallSlots(1, ((_bureau: 'a' | 'b') => {
      if (refuse) throw new Error('aborted');
      return Promise.resolve(openSlot());
    }) as never);

    await expect(throwing.run('a', async () => 'never')).rejects.toThrow('aborted');
    refuse = false;

    await expect(throwing.run('a', async () => 'served')).resolves.toBe('served');
  });
});

describe('CallSlots with slots that went by', () => {
  it('never sends a call after its slot’s end: it takes a new slot, as often as it must', async () => {
    // Arrange: a clock the test moves; the first two slots have ended by the time the call may go.
    const clock = 10_000;
    const given = [
      { at: 9_000, until: 9_016 },
      { at: 9_500, until: 9_516 },
      { at: 10_000, until: 10_016 },
    ];
    const asked: number[] = [];
    const slots = new CallSlots(
      1,
      async () => {
        asked.push(clock);
        return given.shift() as RequestSlot;
      },
      () => clock,
    );
    const sentAt: number[] = [];

    // Act
    const result = await slots.run('a', async () => {
      sentAt.push(clock);
      return 'sent';
    });

    // Assert
    expect(result).toBe('sent');
    expect(asked).toHaveLength(3);
    expect(slots.lateSlots).toBe(2);
    expect(sentAt).toEqual([10_000]);
  });

  it('waits for a slot that has not begun (a timer a fraction of a millisecond early)', async () => {
    const begins = Date.now() + 30;
    const slots = new CallSlots(1, async () => ({ at: begins, until: begins + 1_000 }));

    const sentAt = await slots.run('a', async () => Date.now());

    expect(sentAt).toBeGreaterThanOrEqual(begins);
  });
});

describe('CallSlots with a record written ahead of the call', () => {
  /** A clock the test moves, slots handed out in order, and what happened when. */
  function scene(given: RequestSlot[]) {
    const state = { clock: 10_000, log: [] as string[] };
    const slots = new CallSlots(
      1,
      async () => {
        const slot = given.shift();
        if (slot === undefined) throw new Error('out of time');
        return slot;
      },
      () => state.clock,
    );
    const call = async () => {
      state.log.push(`call at ${state.clock}`);
      return 'sent';
    };
    return { state, slots, call };
  }

  it('sends the call in its slot once the record is written', async () => {
    const { state, slots, call } = scene([{ at: 10_000, until: 10_016 }]);

    const result = await slots.run('a', call, undefined, {
      write: async () => {
        state.log.push(`write at ${state.clock}`);
        state.clock += 5;
      },
      withdraw: async () => {
        state.log.push('withdrawn');
      },
    });

    expect(result).toBe('sent');
    expect(state.log).toEqual(['write at 10000', 'call at 10005']);
    expect(slots.lateSlots).toBe(0);
  });

  it('takes a new slot when the write made the call late, and writes once', async () => {
    // Arrange: the write takes 40 ms of a slot that ends 16 ms after it begins.
    const { state, slots, call } = scene([
      { at: 10_000, until: 10_016 },
      { at: 10_040, until: 10_056 },
    ]);

    // Act
    const result = await slots.run('a', call, undefined, {
      write: async () => {
        state.log.push(`write at ${state.clock}`);
        state.clock += 40;
      },
      withdraw: async () => {
        state.log.push('withdrawn');
      },
    });

    // Assert: written once, in the first slot; sent in the second, within it.
    expect(result).toBe('sent');
    expect(state.log).toEqual(['write at 10000', 'call at 10040']);
    expect(slots.lateSlots).toBe(1);
  });

  it('withdraws the record when no new slot can be had after it, and sends nothing', async () => {
    const { state, slots, call } = scene([{ at: 10_000, until: 10_016 }]);

    const run = slots.run('a', call, undefined, {
      write: async () => {
        state.log.push('written');
        state.clock += 40;
      },
      withdraw: async () => {
        state.log.push('withdrawn');
      },
    });

    await expect(run).rejects.toThrow('out of time');
    expect(state.log).toEqual(['written', 'withdrawn']);
  });

  it('sends nothing and withdraws nothing when the write itself fails', async () => {
    const { state, slots, call } = scene([{ at: 10_000, until: 10_016 }]);

    const run = slots.run('a', call, undefined, {
      write: async () => {
        throw new Error('claim lost');
      },
      withdraw: async () => {
        state.log.push('withdrawn');
      },
    });

    await expect(run).rejects.toThrow('claim lost');
    expect(state.log).toEqual([]);
  });

  it('keeps the failure that stopped the call when the withdrawal fails too', async () => {
    const { state, slots, call } = scene([{ at: 10_000, until: 10_016 }]);

    const run = slots.run('a', call, undefined, {
      write: async () => {
        state.clock += 40;
      },
      withdraw: async () => {
        throw new Error('storage down');
      },
    });

    await expect(run).rejects.toThrow('out of time');
    expect(state.log).toEqual([]);
  });
});

describe('CallSlots at the invocation’s deadline', () => {
  it('sends nothing, and withdraws the record, when the deadline passes while the slot comes', async () => {
    // Arrange: the slot begins 40 ms from now; the deadline fires 10 ms from now.
    const deadline = new AbortController();
    const begins = Date.now() + 40;
    const slots = new CallSlots(1, async () => ({ at: begins, until: begins + 1_000 }));
    const log: string[] = [];
    setTimeout(() => deadline.abort(new Error('out of time')), 10);

    // Act
    const run = slots.run(
      'a',
      async () => {
        log.push('sent');
        return 'sent';
      },
      deadline.signal,
      {
        write: async () => {
          log.push('written');
        },
        withdraw: async () => {
          log.push('withdrawn');
        },
      },
    );

    // Assert
    await expect(run).rejects.toThrow('out of time');
    expect(log).toEqual(['written', 'withdrawn']);
  });

  it('sends nothing without a record either, once the deadline has passed', async () => {
    const deadline = new AbortController();
    const begins = Date.now() + 30;
    const slots = new CallSlots(1, async () => ({ at: begins, until: begins + 1_000 }));
    setTimeout(() => deadline.abort(new Error('out of time')), 5);
    let sent = false;

    const run = slots.run(
      'a',
      async () => {
        sent = true;
      },
      deadline.signal,
    );

    await expect(run).rejects.toThrow('out of time');
    expect(sent).toBe(false);
  });
});
