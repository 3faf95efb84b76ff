import { assertValidLimits, type TokenBucketLimits } from './rate-limits.ts';

/**
 * The token bucket in its GCRA form (generic cell rate algorithm): the whole state is one number, the theoretical
 * arrival time (TAT) of the next request. It admits exactly what a token bucket of the same rate and capacity
 * admits, and a slot can be reserved with one atomic "add an interval" on a shared store, with no read first.
 *
 * With interval T = 1/rate and tolerance τ = (capacity − 1)·T, a request at time t may go at s = max(t, TAT − τ),
 * and TAT becomes max(TAT, t) + T.
 */
export interface Gcra {
  readonly intervalMs: number;
  readonly toleranceMs: number;
}

export function gcraOf(limits: TokenBucketLimits): Gcra {
  assertValidLimits(limits);
  const intervalMs = 1000 / limits.ratePerSecond;
  return { intervalMs, toleranceMs: (Math.floor(limits.capacity) - 1) * intervalMs };
}

/** When the `index`-th of the slots reserved by moving TAT from `oldTat` may go (0-based), for a caller at `nowMs`. */
export function slotTime(gcra: Gcra, oldTat: number, nowMs: number, index: number): number {
  return Math.max(nowMs, Math.max(oldTat, nowMs) + index * gcra.intervalMs - gcra.toleranceMs);
}

/** The TAT that holds everyone off until `untilMs` (after a 429): the first slot then opens at `untilMs`. */
export function pausedTat(gcra: Gcra, untilMs: number): number {
  return untilMs + gcra.toleranceMs;
}

/**
 * A request slot: the call may leave from `at` until `until` (epoch ms). A call not sent by `until` (its process ran
 * late: a starved event loop, a slow reservation answer, a call slot that freed late) takes a new slot instead:
 * sent late, it could share a one-second window with the slots after it.
 */
export interface RequestSlot {
  readonly at: number;
  readonly until: number;
}

/**
 * How late a slot may still be used, so that the calls in any one-second window stay at most rate + capacity.
 *
 * GCRA's slots obey s(k+n) ≥ s(k) + (n − capacity + 1)·T, so a half-open interval of length D holds at most
 * ⌈D/T⌉ + capacity − 1 of them. A call sent within L of its slot lands in a one-second window whose slots lie in an
 * interval of 1000 + L: at most ⌈rate + L/T⌉ + capacity − 1 calls, which is ⌊rate⌋ + capacity when L/T ≤ ⌈rate⌉ − rate
 * (and L < T for a whole rate). Half an interval for a whole rate leaves room for timers a millisecond off.
 */
function lateSlotMs(gcra: Gcra): number {
  const rate = 1000 / gcra.intervalMs;
  const toWhole = Math.ceil(rate) - rate;
  return toWhole < 1e-9 ? gcra.intervalMs / 2 : Math.min(gcra.intervalMs / 2, toWhole * gcra.intervalMs);
}

/** The slot starting at `at`, with how late it may be used (see {@link lateSlotMs}). */
export const requestSlot = (gcra: Gcra, at: number): RequestSlot => ({ at, until: at + lateSlotMs(gcra) });
