import { assertValidLimits, type TokenBucketLimits } from './rate-limits.ts';

/**
 * The token bucket in its GCRA form (generic cell rate algorithm): the whole state is one number, the theoretical
 * arrival time (TAT) of the next request. It admits exactly what a token bucket of the same rate and capacity
 * admits, and a slot can be reserved with one atomic "add an interval" on a shared store, with no read first.
 *
 * With interval T = 1/rate and tolerance τ = (b − 1)·T for a burst b, a request at time t may go at
 * s = max(t, TAT − τ), and TAT becomes max(TAT, t) + T.
 */
export interface Gcra {
  readonly intervalMs: number;
  readonly toleranceMs: number;
  /** How late after its slot a call may still leave (see {@link gcraOf}). */
  readonly lateMs: number;
}

/** The lateness a starved process should be allowed: above what a loaded 2-core machine showed 90 % of the time. */
const LATENESS_AIM_MS = 100;
const DISPATCH_MARGIN_MS = 5;

/**
 * The GCRA of a rate limit, with room for calls that leave late: any one-second window must still see at most
 * rate + capacity calls, however late a process runs.
 *
 * GCRA's slots obey s(k+n) ≥ s(k) + (n − b + 1)·T for a burst b, so a half-open interval of length D holds at most
 * ⌈D/T⌉ + b − 1 of them. A call sent within L of its slot lands in a one-second window whose slots lie in an interval
 * of 1000 + L: at most ⌈rate + L/T⌉ + b − 1 calls. Spending m units of the capacity on lateness (b = capacity − m)
 * allows L = (m + 1 − frac(rate))·T: then ⌈rate + L/T⌉ ≤ ⌊rate⌋ + m + 1 and the window holds at most
 * ⌊rate⌋ + capacity. m is the least that gives about {@link LATENESS_AIM_MS}, never more than leaves a burst of
 * one; a few milliseconds of L are kept back for the HTTP client's own dispatch.
 */
export function gcraOf(limits: TokenBucketLimits): Gcra {
  assertValidLimits(limits);
  const intervalMs = 1000 / limits.ratePerSecond;
  const capacity = Math.floor(limits.capacity);
  const spent = Math.min(capacity - 1, Math.max(0, Math.ceil(LATENESS_AIM_MS / intervalMs) - 1));
  const fraction = limits.ratePerSecond - Math.floor(limits.ratePerSecond);
  const room = (spent + 1 - fraction) * intervalMs;
  return {
    intervalMs,
    toleranceMs: (capacity - spent - 1) * intervalMs,
    // Kept back: what the HTTP client takes between the call's start and the request leaving (up to 5 ms).
    lateMs: room - Math.min(DISPATCH_MARGIN_MS, room / 10),
  };
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

/** The slot starting at `at`, with how late it may be used (see {@link gcraOf}). */
export const requestSlot = (gcra: Gcra, at: number): RequestSlot => ({ at, until: at + gcra.lateMs });
