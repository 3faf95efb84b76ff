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
