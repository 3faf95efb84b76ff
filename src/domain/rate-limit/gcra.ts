import { assertValidLimits, type TokenBucketLimits } from './rate-limits.ts';

/**
 * The token bucket in its GCRA form (generic cell rate algorithm): the whole state is one number, the theoretical
 * arrival time (TAT) of the next request. It admits exactly what a token bucket of the same rate and capacity
 * admits, and a slot can be reserved with one atomic "add an interval" on a shared store, with no read first.
 *
 * With interval T = 1/rate and tolerance τ = (capacity − 1)·T, a reservation made for time t starts at
 * s = max(TAT, t) and moves TAT to s + T per slot: every slot owns its own stretch [s, s + T) of one line that only
 * moves forward (an idle bucket or a pause makes it jump ahead, never back). The request of a slot may leave from
 * s − τ (the tolerance is what lets a burst go at once).
 *
 * **The bound, whatever the load.** If the request of every slot reaches the bureau before the end of its stretch,
 * s + T, then no window of one second ever sees more than rate + capacity requests:
 *
 *   take the n requests that arrive within one window (t − 1 s, t], p the first of them along the line and q the
 *   last. The stretches of the n − 2 others lie between theirs, so s(q) ≥ s(p) + (n − 1)·T. q arrives no earlier
 *   than it may leave, s(q) − τ, and p before s(p) + T, so arrival(q) − arrival(p) > (n − 1)·T − τ − T
 *   = (n − 1 − capacity)·T. Both lie in a window shorter than a second: (n − 1 − capacity)·T < 1 s, so
 *   n < rate + capacity + 1, that is n ≤ rate + capacity (for a whole-number rate).
 *
 * Sent exactly on their slots, requests would never exceed rate + capacity − 1 in a window; the one interval left is
 * how late a request may be. Early never happens (nothing waits less than its slot's time); late does: the answer to
 * a reservation comes back slowly, a starved event loop runs the timers of a whole second's slots together, a call
 * waits for a free place among the calls in flight. Sent anyway, such a request could join the requests of the next
 * slots in one window, with no bound at all. So the caller checks its slot right before the request leaves and takes
 * a new slot when {@link SlotWindow.sendByMs} has passed, never sending late. `sendByMs` is half an interval into the
 * stretch, s + T/2: the other half (less the clock's millisecond) is for the way from that check to the bureau.
 */
export interface Gcra {
  readonly intervalMs: number;
  readonly toleranceMs: number;
}

/** When the request of one reserved slot may leave: from `fromMs`, and no later than `sendByMs`. */
export interface SlotWindow {
  /** Not before: the slot's time (its stretch's start less the tolerance), or now if that has passed. */
  readonly fromMs: number;
  /** Not after: a request still unsent then takes a new slot (see {@link Gcra}). */
  readonly sendByMs: number;
}

export function gcraOf(limits: TokenBucketLimits): Gcra {
  assertValidLimits(limits);
  const intervalMs = 1000 / limits.ratePerSecond;
  return { intervalMs, toleranceMs: (Math.floor(limits.capacity) - 1) * intervalMs };
}

/** Where a reservation made for time `atMs` starts on the line: at TAT, or at `atMs` when the bucket ran idle. */
export function reservationStart(tat: number | null, atMs: number): number {
  return tat === null ? atMs : Math.max(tat, atMs);
}

/** The window of the slot whose stretch starts at `startMs` (a reservation's start + index × interval), at `nowMs`. */
export function slotWindow(gcra: Gcra, startMs: number, nowMs: number): SlotWindow {
  return {
    fromMs: Math.max(nowMs, startMs - gcra.toleranceMs),
    sendByMs: startMs + gcra.intervalMs / 2,
  };
}

/** The TAT that holds everyone off until `untilMs` (after a 429): the first slot then opens at `untilMs`. */
export function pausedTat(gcra: Gcra, untilMs: number): number {
  return untilMs + gcra.toleranceMs;
}
