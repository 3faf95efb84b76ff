/**
 * What screening uses of AWS, as measured by test/deployment/measured-costs.test.ts on the bundled functions: the
 * shape of bench/costs/measured-usage.json, which docs/costs.md is generated from.
 */

/** One function's invocations over a measured batch, as Lambda would bill them. */
export interface FunctionUsage {
  readonly memoryMegabytes: number;
  readonly invocations: number;
  /** The invocations' durations, each rounded up to the millisecond, summed. */
  readonly billedMilliseconds: number;
}

/** Requests per screened document, by what each service charges for. */
export interface DocumentRequests {
  readonly dynamodbWriteUnits: number;
  /** Conditional writes DynamoDB refused: billed as writes (at least one unit each), reported with no capacity. */
  readonly dynamodbRefusedWrites: number;
  readonly dynamodbReadUnits: number;
  /** PUT, COPY, POST and LIST requests. */
  readonly s3TierOneRequests: number;
  /** GET and every other request. */
  readonly s3TierTwoRequests: number;
  /** Every request but the event sources' empty polls (a fixed cost, see the doc). */
  readonly sqsRequests: number;
  readonly eventBridgeEvents: number;
}

/** One measured batch: an upload of `documents` distinct valid documents, none reused. */
export interface ScenarioUsage {
  readonly documents: number;
  readonly perDocument: DocumentRequests;
  /** By function name (`Ingest`, `Worker`, …), over the whole batch. */
  readonly functions: Readonly<Record<string, FunctionUsage>>;
}

export interface MeasuredUsage {
  /** The day of the measurement (YYYY-MM-DD). */
  readonly measuredOn: string;
  readonly scenarios: { readonly withoutPolicy: ScenarioUsage; readonly withPolicy: ScenarioUsage };
  /** Documents screened by both scenarios together, which the stored bytes below are for. */
  readonly documents: number;
  /** The table's items but the audit log's, as DynamoDB bills their storage (100 bytes of overhead each). */
  readonly tableBytes: number;
  /** The audit log's items, kept `auditRetentionDays`. */
  readonly auditBytes: number;
  /** The bucket's objects by top-level prefix (`raw/`, `results/`, `work/`, `incoming/`). */
  readonly bucketBytes: Readonly<Record<string, number>>;
  /**
   * A scheduled sweep (it runs every few minutes, batch or not): over `finishedBatches` finished batches, and what
   * one running batch adds to it.
   */
  readonly sweep: {
    readonly finishedBatches: number;
    readonly readUnits: number;
    readonly runningBatchReadUnits: number;
    readonly memoryMegabytes: number;
    readonly billedMilliseconds: number;
  };
  /** What the stack keeps whether or not it screens: alarms, secrets and customer-managed keys. */
  readonly fixed: { readonly alarms: number; readonly secrets: number; readonly keys: number };
}

/** Where the measurement is kept, from the project's root. */
export const MEASURED_USAGE_PATH = 'bench/costs/measured-usage.json';
