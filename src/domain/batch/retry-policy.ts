/**
 * When to try a document again after a transient failure: exponential backoff with full jitter (the AWS
 * Architecture Blog's recommendation for many clients retrying at once), capped, and a bounded number of attempts.
 */
export interface RetryPolicy {
  /** Bureau calls per document before it is settled as failed. */
  readonly maxAttempts: number;
  readonly baseDelaySeconds: number;
  readonly maxDelaySeconds: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  baseDelaySeconds: 2,
  maxDelaySeconds: 120,
};

/** Seconds to wait before attempt `attempt + 1`, given that `attempt` (1-based) has just failed. */
export function backoffSeconds(
  policy: RetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelaySeconds, policy.baseDelaySeconds * 2 ** (attempt - 1));
  // Full jitter, but never zero: SQS visibility is whole seconds and 0 would retry in a tight loop.
  return Math.max(1, Math.round(random() * ceiling));
}

/** Seconds to wait after a 429: the service's Retry-After when it gave one, plus jitter so workers do not stampede. */
export function rateLimitDelaySeconds(
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): number {
  const base = retryAfterSeconds ?? 1;
  return Math.max(1, Math.ceil(base + random() * Math.max(1, base / 2)));
}
