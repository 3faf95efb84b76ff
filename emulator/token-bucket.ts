/**
 * The emulator's own rate limit: token-bucket arithmetic on a state of two numbers, kept in memory. The pipeline
 * does not use it (its shared DynamoDB limiter keeps the same kind of limit in GCRA form, `src/domain/rate-limit`);
 * the emulator has its own so that the limit it enforces is not computed by the code it tests.
 */

export interface TokenBucketLimits {
  /** Tokens added per second: the sustained request rate. */
  readonly ratePerSecond: number;
  /** Most tokens the bucket holds: the largest burst. */
  readonly capacity: number;
}

export interface TokenBucketState {
  readonly tokens: number;
  /** When `tokens` was last computed (epoch milliseconds). */
  readonly updatedAtMs: number;
}

export type TakeResult =
  | { readonly granted: true; readonly state: TokenBucketState }
  | {
      readonly granted: false;
      readonly state: TokenBucketState /** Until one token is there. */;
      readonly waitMs: number;
    };

/** Checks limits once, where they are configured, so the arithmetic below can trust them. */
export function assertValidLimits(limits: TokenBucketLimits): void {
  if (!(limits.ratePerSecond > 0) || !Number.isFinite(limits.ratePerSecond)) {
    throw new RangeError(
      `rate must be a positive number of requests per second, got ${limits.ratePerSecond}`,
    );
  }
  if (!(limits.capacity >= 1) || !Number.isFinite(limits.capacity)) {
    throw new RangeError(`bucket capacity must be at least 1, got ${limits.capacity}`);
  }
}

/** A full bucket at `nowMs`. */
export function fullBucket(limits: TokenBucketLimits, nowMs: number): TokenBucketState {
  return { tokens: limits.capacity, updatedAtMs: nowMs };
}

/** The state at `nowMs`: tokens added for the time passed, up to capacity. A clock going backwards adds nothing. */
function refill(state: TokenBucketState, limits: TokenBucketLimits, nowMs: number): TokenBucketState {
  const elapsedMs = Math.max(0, nowMs - state.updatedAtMs);
  const tokens = Math.min(limits.capacity, state.tokens + (elapsedMs * limits.ratePerSecond) / 1000);
  return { tokens, updatedAtMs: Math.max(nowMs, state.updatedAtMs) };
}

/** Takes `count` tokens at `nowMs` if they are there; otherwise says how long until they will be. */
export function takeTokens(
  state: TokenBucketState,
  limits: TokenBucketLimits,
  nowMs: number,
  count = 1,
): TakeResult {
  const current = refill(state, limits, nowMs);
  if (current.tokens >= count) {
    return { granted: true, state: { tokens: current.tokens - count, updatedAtMs: current.updatedAtMs } };
  }
  const waitMs = Math.ceil(((count - current.tokens) * 1000) / limits.ratePerSecond);
  return { granted: false, state: current, waitMs };
}
