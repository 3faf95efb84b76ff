import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gcraOf, pausedTat, requestSlot, slotTime } from '../../../src/domain/rate-limit/index.ts';

/** The reservation rule of the DynamoDB limiter, in memory: TAT moves by count × interval. */
function reserve(state: { tat: number | null }, now: number, count: number, intervalMs: number): number {
  const oldTat = state.tat === null || state.tat < now ? now : state.tat;
  state.tat = oldTat + count * intervalMs;
  return oldTat;
}

describe('GCRA', () => {
  it('never admits more than capacity + rate × window in any window, whatever the reservations', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 12 }),
        fc.array(
          fc.record({ gap: fc.integer({ min: 0, max: 300 }), count: fc.integer({ min: 1, max: 10 }) }),
          { minLength: 1, maxLength: 120 },
        ),
        (rate, capacity, requests) => {
          const gcra = gcraOf({ ratePerSecond: rate, capacity });
          const state: { tat: number | null } = { tat: null };
          const slots: number[] = [];
          let now = 0;
          for (const { gap, count } of requests) {
            now += gap;
            const oldTat = reserve(state, now, count, gcra.intervalMs);
            for (let index = 0; index < count; index++) slots.push(slotTime(gcra, oldTat, now, index));
          }
          slots.sort((first, second) => first - second);
          for (let start = 0; start < slots.length; start++) {
            for (let end = start; end < slots.length; end++) {
              const window = (slots[end] as number) - (slots[start] as number);
              // Slots within a window of `window` ms: a token bucket admits at most capacity + rate × window.
              expect(end - start + 1).toBeLessThanOrEqual(
                Math.floor(capacity + (rate * window) / 1000 + 1e-6),
              );
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps any one second at rate + capacity calls when each call leaves anywhere within its slot', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 1, max: 60 }), fc.double({ min: 0.2, max: 60, noNaN: true })),
        fc.integer({ min: 1, max: 12 }),
        fc.array(
          fc.record({
            gap: fc.integer({ min: 0, max: 300 }),
            count: fc.integer({ min: 1, max: 10 }),
            // Where in its slot each call leaves: at once, or as late as the slot allows.
            lateness: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
          { minLength: 1, maxLength: 120 },
        ),
        (rate, capacity, requests) => {
          const gcra = gcraOf({ ratePerSecond: rate, capacity });
          const state: { tat: number | null } = { tat: null };
          const sent: number[] = [];
          let now = 0;
          for (const { gap, count, lateness } of requests) {
            now += gap;
            const oldTat = reserve(state, now, count, gcra.intervalMs);
            for (let index = 0; index < count; index++) {
              const slot = requestSlot(gcra, slotTime(gcra, oldTat, now, index));
              sent.push(slot.at + lateness * (slot.until - slot.at));
            }
          }
          sent.sort((first, second) => first - second);
          for (let first = 0, last = 0; first < sent.length; first++) {
            while (last < sent.length && (sent[last] as number) < (sent[first] as number) + 1000) last++;
            expect(last - first).toBeLessThanOrEqual(Math.floor(rate + 1e-9) + capacity);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('admits a full burst at once, then one request per interval', () => {
    const gcra = gcraOf({ ratePerSecond: 10, capacity: 3 });
    const state: { tat: number | null } = { tat: null };
    const oldTat = reserve(state, 1_000, 5, gcra.intervalMs);
    expect(Array.from({ length: 5 }, (_, index) => slotTime(gcra, oldTat, 1_000, index))).toEqual([
      1_000, 1_000, 1_000, 1_100, 1_200,
    ]);
  });

  it('holds everyone off until the end of a pause', () => {
    const gcra = gcraOf({ ratePerSecond: 10, capacity: 3 });
    const state = { tat: pausedTat(gcra, 5_000) };
    const oldTat = reserve(state, 1_000, 1, gcra.intervalMs);
    expect(slotTime(gcra, oldTat, 1_000, 0)).toBe(5_000);
  });

  it('refuses limits that cannot work', () => {
    expect(() => gcraOf({ ratePerSecond: 0, capacity: 1 })).toThrow('rate must be a positive number');
    expect(() => gcraOf({ ratePerSecond: Number.POSITIVE_INFINITY, capacity: 1 })).toThrow(
      'rate must be a positive number',
    );
    expect(() => gcraOf({ ratePerSecond: 1, capacity: 0.5 })).toThrow('capacity must be at least 1');
  });
});
