import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Gcra,
  gcraOf,
  pausedTat,
  reservationStart,
  slotWindow,
} from '../../../src/domain/rate-limit/index.ts';

/** The reservation rule of the limiters: `count` slots for time `atMs`, TAT moved by count × interval. */
function reserve(state: { tat: number | null }, atMs: number, count: number, gcra: Gcra): number {
  const start = reservationStart(state.tat, atMs);
  state.tat = start + count * gcra.intervalMs;
  return start;
}

/** The most of `times` within any one-second window (t − 1000, t]. */
function busiestSecond(times: readonly number[]): number {
  const sorted = [...times].sort((first, second) => first - second);
  let busiest = 0;
  let from = 0;
  for (let to = 0; to < sorted.length; to++) {
    while ((sorted[from] as number) <= (sorted[to] as number) - 1000) from++;
    busiest = Math.max(busiest, to - from + 1);
  }
  return busiest;
}

const reservations = fc.array(
  fc.record({
    gap: fc.integer({ min: 0, max: 300 }),
    // Reserved for a later time than asked (the DynamoDB limiter's lead), and answered later still.
    lead: fc.integer({ min: 0, max: 50 }),
    answeredAfter: fc.integer({ min: 0, max: 80 }),
    count: fc.integer({ min: 1, max: 10 }),
  }),
  { minLength: 1, maxLength: 120 },
);

describe('GCRA', () => {
  it('never grants more than capacity + rate × window in any window, whatever the reservations answered in time', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 12 }),
        reservations,
        (rate, capacity, requests) => {
          const gcra = gcraOf({ ratePerSecond: rate, capacity });
          const state: { tat: number | null } = { tat: null };
          const slots: number[] = [];
          let now = 0;
          for (const { gap, lead, answeredAfter, count } of requests) {
            now += gap;
            const start = reserve(state, now + lead, count, gcra);
            // Answered within the lead: the slots are exactly the token bucket's.
            const answered = now + Math.min(answeredAfter, lead);
            for (let index = 0; index < count; index++)
              slots.push(slotWindow(gcra, start + index * gcra.intervalMs, answered).fromMs);
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

  it('never lets more than rate + capacity arrive in one second when each arrives between its slot and the end of its stretch', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 12 }),
        reservations,
        fc.infiniteStream(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })),
        (rate, capacity, requests, lateness) => {
          const gcra = gcraOf({ ratePerSecond: rate, capacity });
          const state: { tat: number | null } = { tat: null };
          const arrivals: number[] = [];
          let now = 0;
          for (const { gap, lead, answeredAfter, count } of requests) {
            now += gap;
            const start = reserve(state, now + lead, count, gcra);
            for (let index = 0; index < count; index++) {
              const stretch = start + index * gcra.intervalMs;
              const { fromMs, sendByMs } = slotWindow(gcra, stretch, now + answeredAfter);
              // A slot found late by its sendByMs is not used (the caller takes a new one); one still on time leaves,
              // and reaches the bureau anywhere before its stretch ends (sendByMs + half an interval).
              if (fromMs > sendByMs) continue;
              const end = stretch + gcra.intervalMs;
              arrivals.push(fromMs + (end - fromMs) * (lateness.next().value as number));
            }
          }
          // Counted on the whole milliseconds a clock would stamp, as the bureau (the emulator) counts them.
          expect(busiestSecond(arrivals.map(Math.floor))).toBeLessThanOrEqual(rate + Math.floor(capacity));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('would let late requests exceed rate + capacity: why a late slot must be taken again', () => {
    // 10/s, capacity 2: two slots at 0, then, the bucket full again, twelve from 1 000 (two at once, then one per
    // 100 ms). On their slots no second holds more than 10 + 2 − 1; the first two, sent at 1 500 instead (a stalled
    // event loop) rather than on new slots, join the eleven of (900, 1 900].
    const gcra = gcraOf({ ratePerSecond: 10, capacity: 2 });
    const state: { tat: number | null } = { tat: null };
    const windowsFrom = (atMs: number, count: number) => {
      const start = reserve(state, atMs, count, gcra);
      return Array.from({ length: count }, (_, index) =>
        slotWindow(gcra, start + index * gcra.intervalMs, atMs),
      );
    };
    const windows = [...windowsFrom(0, 2), ...windowsFrom(1_000, 12)];
    const onTime = windows.map((window) => window.fromMs);
    expect(busiestSecond(onTime)).toBe(10 + 2 - 1);

    const stalled = [1_500, 1_500, ...onTime.slice(2)];
    expect(windows.slice(0, 2).every((window) => window.sendByMs < 1_500)).toBe(true);
    expect(busiestSecond(stalled)).toBe(10 + 2 + 1);
  });

  it('admits a full burst at once, then one request per interval', () => {
    const gcra = gcraOf({ ratePerSecond: 10, capacity: 3 });
    const state: { tat: number | null } = { tat: null };
    const start = reserve(state, 1_000, 5, gcra);
    expect(
      Array.from({ length: 5 }, (_, index) => slotWindow(gcra, start + index * gcra.intervalMs, 1_000)),
    ).toEqual([
      { fromMs: 1_000, sendByMs: 1_050 },
      { fromMs: 1_000, sendByMs: 1_150 },
      { fromMs: 1_000, sendByMs: 1_250 },
      { fromMs: 1_100, sendByMs: 1_350 },
      { fromMs: 1_200, sendByMs: 1_450 },
    ]);
  });

  it('holds everyone off until the end of a pause', () => {
    const gcra = gcraOf({ ratePerSecond: 10, capacity: 3 });
    const state = { tat: pausedTat(gcra, 5_000) };
    const start = reserve(state, 1_000, 1, gcra);
    expect(slotWindow(gcra, start, 1_000).fromMs).toBe(5_000);
  });

  it('refuses limits that cannot work', () => {
    expect(() => gcraOf({ ratePerSecond: 0, capacity: 1 })).toThrow('rate must be a positive number');
    expect(() => gcraOf({ ratePerSecond: Number.POSITIVE_INFINITY, capacity: 1 })).toThrow(
      'rate must be a positive number',
    );
    expect(() => gcraOf({ ratePerSecond: 1, capacity: 0.5 })).toThrow('capacity must be at least 1');
  });
});
