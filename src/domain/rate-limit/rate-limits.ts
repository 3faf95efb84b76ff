/** The pipeline's rate limit of one bureau, kept by every worker together in its GCRA form ({@link gcraOf}). */
export interface TokenBucketLimits {
  /** Requests per second: the sustained rate. */
  readonly ratePerSecond: number;
  /** The largest burst. */
  readonly capacity: number;
}

/** Checks limits once, where they are configured, so the arithmetic that uses them can trust them. */
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
