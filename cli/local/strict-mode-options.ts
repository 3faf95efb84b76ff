/** What strict mode is started with (faults, hold times, seed) and what it reports it did. */

/**
 * Strict mode: an AWS endpoint in front of the local emulators (DynamoDB Local; fauxqs for S3 and SQS) that gives
 * the real SDK clients going through it the behaviour of the AWS services where the emulators are more forgiving.
 *
 * DynamoDB transactions. DynamoDB Local runs transactions one after another, so two transactions on one item both
 * succeed. DynamoDB does not lock items for the length of a transaction: it cancels what overlaps. A
 * `TransactWriteItems` with an item that another `TransactWriteItems` in flight includes is cancelled
 * (`TransactionCanceledException`, reason `TransactionConflict` for that item); a `PutItem`, `UpdateItem` or
 * `DeleteItem` on an item an ongoing transaction includes fails with `TransactionConflictException`; an item
 * changed outside a transaction while the transaction runs cancels the transaction; a `TransactGetItems` on an
 * item being written is cancelled. Both exceptions are HTTP 400 and the SDK's default retry strategy retries
 * neither (they are in none of its throttling, transient or clock-skew lists; the tests assert it). Because
 * DynamoDB Local answers in about a millisecond where a transaction takes 10–30 ms in AWS, a write stays "in
 * flight" here for a hold time after DynamoDB Local answered, so overlaps happen at realistic rates.
 *
 * Faults, drawn from a seeded generator (the same seed and the same order of requests give the same faults) and
 * counted: DynamoDB `ProvisionedThroughputExceededException` and `ThrottlingException` (400) and
 * `InternalServerError` (500); S3 503 `SlowDown`; SQS 500 `InternalFailure`; and duplicate SQS deliveries (a
 * `SendMessage`/`SendMessageBatch` forwarded twice: at-least-once delivery). Every fault is injected before the
 * request is forwarded, so the emulator never saw the failed attempt and the SDK's retry of it is always safe.
 * AWS can also fail a request after applying it (a 500 after the write); that is not injected here: a retried
 * non-idempotent write (`ADD`) would then apply twice, and the pipeline's own idempotence is what the duplicate
 * deliveries test.
 */
export interface StrictModeOptions {
  /** Seed of the fault and duplicate draws. @default 'strict' */
  readonly seed?: number | string;
  /** How long a `TransactWriteItems` keeps its items after DynamoDB Local answered. @default 10 */
  readonly holdMs?: number;
  /** How long a single-item write (or a `BatchWriteItem`) keeps its items after DynamoDB Local answered. @default 1 */
  readonly singleWriteHoldMs?: number;
  readonly faults?: StrictFaults;
}

/** Fault rates (probability per request, 0–1) by service; `operations` restricts them to those operations. */
interface StrictFaults {
  readonly dynamodb?: {
    readonly throughputExceeded?: number;
    readonly throttling?: number;
    readonly internalServerError?: number;
    readonly operations?: readonly string[];
  };
  readonly s3?: { readonly slowDown?: number; readonly operations?: readonly string[] };
  readonly sqs?: {
    readonly internalFailure?: number;
    readonly operations?: readonly string[];
    /** Probability that a `SendMessage`/`SendMessageBatch` is delivered twice. */
    readonly duplicateDelivery?: number;
    /** Queue names whose sends may be duplicated. @default every queue */
    readonly duplicateQueues?: readonly string[];
  };
}

export type StrictFaultKind =
  | 'dynamodb.ProvisionedThroughputExceededException'
  | 'dynamodb.ThrottlingException'
  | 'dynamodb.InternalServerError'
  | 's3.SlowDown'
  | 'sqs.InternalFailure';

/** What the proxy saw and did, for tests and benchmarks. */
export interface StrictStats {
  /** Requests received, by `service.Operation` (faulted and cancelled ones included). */
  readonly requests: Readonly<Record<string, number>>;
  readonly conflicts: {
    readonly total: number;
    /** Requests refused for a conflict, by operation (`TransactWriteItems`, `UpdateItem`, …). */
    readonly byOperation: Readonly<Record<string, number>>;
    /** Conflicting items by key shape (`BATCH#…|META`, `BATCH#…|ROW#…`): a hot item stands out. */
    readonly byItemShape: Readonly<Record<string, number>>;
  };
  readonly faults: { readonly total: number; readonly byKind: Readonly<Record<string, number>> };
  /** Messages sent twice. */
  readonly duplicateDeliveries: number;
  /**
   * Mean milliseconds from a request's arrival to its answer, by `service.Operation`: for DynamoDB writes, how long
   * their items were in flight (the emulator's latency on this machine plus the hold).
   */
  readonly meanMs: Readonly<Record<string, number>>;
}
