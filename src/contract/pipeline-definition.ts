/**
 * Names and settings of the pipeline's resources, shared by the CDK construct (AWS) and the local runner
 * (`credit-screen screen`), so both build the same table, queues and event-source behaviour. Plain data: no CDK.
 */

import { INCOMING_PREFIX } from '../domain/batch/index.ts';
import { isReportLanguage, type ReportLanguage } from '../domain/batch-report/report-language.ts';
import { PORTFOLIO_PREFIX } from '../domain/monitoring/index.ts';
import type { Bureau } from '../domain/report/index.ts';

/** The DynamoDB table: one table for batches, their rows, reports and rate-limit buckets. */
export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds after which DynamoDB deletes an item (LGPD retention). */
  timeToLiveAttribute: 'expiresAt',
  /**
   * Sparse index of the rows a worker holds, per batch, by the time their claim runs out: only a claimed row has
   * both `batchId` and `claimExpiresAt` (a claim sets the lease, a settle or release removes it), so the sweeper
   * finds the claims that ran out with one query per batch, never a scan.
   */
  claimedRowsIndex: {
    name: 'claimed-rows',
    partitionKey: 'batchId',
    sortKey: 'claimExpiresAt',
    /** What the sweeper reads from the index besides the keys. */
    projected: ['row', 'document', 'claimToken'],
  },
} as const;

/** Settings the two environments share; the construct's props and the runner's options override the defaults. */
export interface PipelineSettings {
  /** Bureau used when the upload key does not name one (`incoming/a/…`, `incoming/b/…`). */
  readonly defaultBureau: Bureau;
  /** Bureau requests per second across all workers, per bureau. */
  readonly rateLimitPerSecond: Readonly<Record<Bureau, number>>;
  /** Largest burst of the global token bucket, per bureau. */
  readonly rateLimitBurst: Readonly<Record<Bureau, number>>;
  /**
   * What one query costs, in BRL, per bureau: the quote's price. The defaults are the top of the public price list
   * (R$ 2.70–8.40), so an unconfigured quote errs high; set your contract's prices.
   */
  readonly pricePerQuery: Readonly<Record<Bureau, number>>;
  /**
   * Most queries per bureau per calendar month (Brasília time) across every batch; null for no cap. It is never
   * exceeded: each query reserves its unit atomically before it is sent. Rows left when it is reached settle
   * `not_queried` (budget exhausted).
   */
  readonly monthlyChargeCap: Readonly<Record<Bureau, number | null>>;
  /**
   * A batch that would buy more documents than this waits for a person (`awaiting_approval`, its quote in
   * `results/<batchId>/quote.json`, a `BatchAwaitingApproval` event) and buys nothing until approved; null: never.
   */
  readonly approvalThreshold: number | null;
  /** Concurrent worker invocations (the SQS event source's MaximumConcurrency, at least 2). */
  readonly workerConcurrency: number;
  /** Concurrent bureau calls inside one worker invocation. */
  readonly callsPerInvocation: number;
  /** Messages per worker invocation. */
  readonly workerBatchSize: number;
  /** How long the SQS event source gathers messages before invoking a worker with fewer than a full batch. */
  readonly workerBatchingWindowSeconds: number;
  /**
   * Share the work queue fairly between batches: each work message carries its SQS fair-queue `MessageGroupId`
   * (the batch, the priority lane or the scheduled runs; src/domain/batch/delivery-lane.ts), so a large batch
   * does not hold up a small one. Off only for a queue service that refuses message groups on a standard queue.
   */
  readonly fairQueues: boolean;
  /** Reuse a stored report younger than this instead of paying again; 0 turns it off. */
  readonly freshnessHours: number;
  /** Days personal data is kept (S3 lifecycle and DynamoDB TTL). */
  readonly retentionDays: number;
  /** Bureau calls per document before it is settled as failed. */
  readonly maxAttempts: number;
  /** Per-request timeout of bureau calls. */
  readonly bureauTimeoutSeconds: number;
  /**
   * Largest bureau answer a worker reads, in bytes. A report is a few kilobytes; normalising one takes about 15
   * times its size in memory, and a worker runs `callsPerInvocation` at once in 256 MB, so anything larger is
   * settled `failed` (and counted as charged) instead of read.
   */
  readonly maxReportBytes: number;
  /** Worker function timeout; queue visibility is six times this, as AWS recommends for SQS sources. */
  readonly workerTimeoutSeconds: number;
  /** Receives before SQS moves a message to the dead-letter queue (crash loops, poison messages). */
  readonly maxReceiveCount: number;
  /** Write the summary in the Brazilian Excel dialect (`;`, decimal comma, BOM). */
  readonly excelSummary: boolean;
  /** Data rows accepted in one file; a larger file is refused whole. */
  readonly maxRows: number;
  /** Smallest score move a re-screen reports as `score_drop` or `score_rise`. */
  readonly scoreChangePoints: number;
  /**
   * Schedule of a portfolio whose `portfolios/<name>.json` gives none (EventBridge Scheduler `cron(…)` or
   * `rate(…)`); null leaves such portfolios unscheduled, to be re-screened on demand.
   */
  readonly portfolioSchedule: string | null;
  /** Language of each batch's `report.html`: `pt-BR` (labels, `R$ 1.234,56`, `31/12/2026`) or `en`. */
  readonly reportLanguage: ReportLanguage;
}

export const DEFAULT_SETTINGS: PipelineSettings = {
  defaultBureau: 'a',
  rateLimitPerSecond: { a: 10, b: 10 },
  rateLimitBurst: { a: 10, b: 10 },
  pricePerQuery: { a: 8.4, b: 8.4 },
  monthlyChargeCap: { a: null, b: null },
  approvalThreshold: 1000,
  workerConcurrency: 5,
  callsPerInvocation: 5,
  workerBatchSize: 10,
  workerBatchingWindowSeconds: 1,
  fairQueues: true,
  freshnessHours: 24,
  retentionDays: 90,
  maxAttempts: 5,
  bureauTimeoutSeconds: 20,
  maxReportBytes: 1024 * 1024,
  workerTimeoutSeconds: 60,
  maxReceiveCount: 10,
  excelSummary: false,
  maxRows: 1_000_000,
  scoreChangePoints: 50,
  portfolioSchedule: 'rate(7 days)',
  reportLanguage: 'pt-BR',
};

/** A price per query above this is taken for a typo (centavos typed as reais, a stray zero), not a contract. */
export const MAX_PRICE_PER_QUERY = 1000;

/** Checks settings where they are given, naming what is wrong. */
export function validateSettings(settings: PipelineSettings): PipelineSettings {
  const problems: string[] = [];
  for (const bureau of ['a', 'b'] as const) {
    if (!(settings.rateLimitPerSecond[bureau] > 0)) problems.push(`rateLimitPerSecond.${bureau} must be > 0`);
    if (!(settings.rateLimitBurst[bureau] >= 1)) problems.push(`rateLimitBurst.${bureau} must be ≥ 1`);
    const price = settings.pricePerQuery[bureau];
    if (!(Number.isFinite(price) && price > 0 && price <= MAX_PRICE_PER_QUERY))
      problems.push(
        `pricePerQuery.${bureau} must be a price in BRL above 0 and at most ${MAX_PRICE_PER_QUERY}`,
      );
    const cap = settings.monthlyChargeCap[bureau];
    if (cap !== null && !(Number.isSafeInteger(cap) && cap >= 0))
      problems.push(`monthlyChargeCap.${bureau} must be a whole number of queries ≥ 0, or null for no cap`);
  }
  if (!Number.isInteger(settings.workerConcurrency) || settings.workerConcurrency < 2) {
    problems.push('workerConcurrency must be a whole number ≥ 2 (the SQS event source minimum)');
  }
  if (!Number.isInteger(settings.callsPerInvocation) || settings.callsPerInvocation < 1)
    problems.push('callsPerInvocation must be ≥ 1');
  if (
    !Number.isInteger(settings.workerBatchSize) ||
    settings.workerBatchSize < 1 ||
    settings.workerBatchSize > 10
  ) {
    problems.push('workerBatchSize must be 1–10');
  }
  if (!(settings.freshnessHours >= 0)) problems.push('freshnessHours must be ≥ 0');
  if (!Number.isInteger(settings.retentionDays) || settings.retentionDays < 1)
    problems.push('retentionDays must be a whole number ≥ 1');
  if (!Number.isInteger(settings.maxAttempts) || settings.maxAttempts < 1)
    problems.push('maxAttempts must be ≥ 1');
  if (!(settings.bureauTimeoutSeconds > 0)) problems.push('bureauTimeoutSeconds must be > 0');
  if (
    !Number.isInteger(settings.maxReportBytes) ||
    settings.maxReportBytes < 64 * 1024 ||
    settings.maxReportBytes > 8 * 1024 * 1024
  )
    problems.push('maxReportBytes must be a whole number of bytes from 64 KiB to 8 MiB');
  if (!(settings.workerTimeoutSeconds >= settings.bureauTimeoutSeconds * 2)) {
    problems.push('workerTimeoutSeconds must be at least twice bureauTimeoutSeconds');
  }
  if (!Number.isInteger(settings.maxReceiveCount) || settings.maxReceiveCount <= settings.maxAttempts) {
    problems.push(
      'maxReceiveCount must be greater than maxAttempts, so retries settle items before the DLQ does',
    );
  }
  if (!Number.isInteger(settings.maxRows) || settings.maxRows < 1)
    problems.push('maxRows must be a whole number ≥ 1');
  if (
    settings.approvalThreshold !== null &&
    !(Number.isSafeInteger(settings.approvalThreshold) && settings.approvalThreshold >= 0)
  )
    problems.push('approvalThreshold must be a whole number of documents ≥ 0, or null for no approval');
  if (!(Number.isFinite(settings.scoreChangePoints) && settings.scoreChangePoints >= 1))
    problems.push('scoreChangePoints must be ≥ 1');
  if (settings.portfolioSchedule !== null && !/^(cron|rate)\(.+\)$/.test(settings.portfolioSchedule))
    problems.push('portfolioSchedule must be cron(…), rate(…) or null');
  if (!isReportLanguage(settings.reportLanguage)) problems.push('reportLanguage must be pt-BR or en');
  if (problems.length > 0) throw new Error(`invalid pipeline settings: ${problems.join('; ')}`);
  return settings;
}

/** Visibility timeout of the work queue: six times the worker timeout (AWS's guidance for Lambda SQS sources). */
export function workQueueVisibilitySeconds(settings: PipelineSettings): number {
  return settings.workerTimeoutSeconds * 6;
}

/**
 * How long after its lease ran out a claimed row counts as stuck. A message still in the queue comes back within
 * the queue's visibility timeout of the receive that claimed the row, and takes the row over: past that, the
 * message is gone (deleted while the claim stayed, or expired) and the sweeper queues the row again.
 */
export function stuckClaimSeconds(settings: PipelineSettings): number {
  return workQueueVisibilitySeconds(settings);
}

/** How often the sweeper looks for stuck rows (a scheduled function in AWS, a timer in a local run). */
export const SWEEP_INTERVAL_MINUTES = 5;

/** How long a worker's claim on a row lasts: a bureau call with its timeout, plus margin. A crash frees it then. */
export function claimLeaseSeconds(settings: PipelineSettings): number {
  return settings.bureauTimeoutSeconds * 2 + 10;
}

/** Memory of each function, in MB. The ingest streams a million rows in under 256 MB (bench:pipeline). */
export const FUNCTION_MEMORY = {
  ingest: 256,
  worker: 256,
  finalise: 1024,
  deadLetter: 256,
  portfolioSchedules: 256,
  sweeper: 256,
} as const;

/** The pipeline's functions, by the names the construct and the local runner both use. */
export type PipelineFunction = keyof typeof FUNCTION_MEMORY;

/** Memory and timeout of a function: what the construct deploys and what the local runner's invocations get. */
export interface FunctionSpec {
  readonly memoryMegabytes: number;
  readonly timeoutSeconds: number;
}

/** Every function's memory and timeout. Ingest and finalise get Lambda's maximum: a million-row file takes minutes. */
export function functionSpecs(settings: PipelineSettings): Readonly<Record<PipelineFunction, FunctionSpec>> {
  return {
    ingest: { memoryMegabytes: FUNCTION_MEMORY.ingest, timeoutSeconds: 900 },
    worker: { memoryMegabytes: FUNCTION_MEMORY.worker, timeoutSeconds: settings.workerTimeoutSeconds },
    finalise: { memoryMegabytes: FUNCTION_MEMORY.finalise, timeoutSeconds: 900 },
    deadLetter: { memoryMegabytes: FUNCTION_MEMORY.deadLetter, timeoutSeconds: 60 },
    portfolioSchedules: { memoryMegabytes: FUNCTION_MEMORY.portfolioSchedules, timeoutSeconds: 60 },
    // A sweep never outlasts the interval to the next one.
    sweeper: { memoryMegabytes: FUNCTION_MEMORY.sweeper, timeoutSeconds: SWEEP_INTERVAL_MINUTES * 60 },
  };
}

/** The pipeline's queues. */
export type PipelineQueue = 'work' | 'workDeadLetter' | 'finalise' | 'finaliseDeadLetter';

/** A queue's settings; `deadLetter` names the queue SQS moves a message to after `maxReceiveCount` receives. */
export interface QueueSpec {
  readonly visibilityTimeoutSeconds: number;
  readonly retentionSeconds: number;
  readonly deadLetter?: { readonly queue: PipelineQueue; readonly maxReceiveCount: number };
}

/** SQS's longest retention: a message waits as long as SQS allows for a worker or an operator. */
const QUEUE_RETENTION_SECONDS = 14 * 24 * 3600;

/**
 * Every queue with its visibility and redrive. The finalise queue's visibility outlasts the finaliser's 15 minutes
 * six times over, as AWS recommends for SQS event sources; dead-letter queues are only read by their consumer.
 */
export function queueSpecs(settings: PipelineSettings): Readonly<Record<PipelineQueue, QueueSpec>> {
  const redrive = (queue: PipelineQueue) => ({ queue, maxReceiveCount: settings.maxReceiveCount });
  return {
    workDeadLetter: { visibilityTimeoutSeconds: 300, retentionSeconds: QUEUE_RETENTION_SECONDS },
    work: {
      visibilityTimeoutSeconds: workQueueVisibilitySeconds(settings),
      retentionSeconds: QUEUE_RETENTION_SECONDS,
      deadLetter: redrive('workDeadLetter'),
    },
    finaliseDeadLetter: { visibilityTimeoutSeconds: 300, retentionSeconds: QUEUE_RETENTION_SECONDS },
    finalise: {
      visibilityTimeoutSeconds: 5400,
      retentionSeconds: QUEUE_RETENTION_SECONDS,
      deadLetter: redrive('finaliseDeadLetter'),
    },
  };
}

/** An SQS event source mapping: which queue feeds which function, and how (always with partial batch failures). */
/**
 * Amazon SQS fair queues as AWS documents them ("How Amazon SQS fair queues work", SQS Developer Guide), the
 * behaviour the local event source reproduces (fauxqs keeps no message group on a standard queue). A tenant is a
 * `MessageGroupId`; a message without one is a tenant of its own. A tenant is noisy when it holds more than
 * `noisyInFlightShare` of the messages in flight with at least `noisyMinimumInFlight` of its own, or more than
 * `noisyProcessingShare` of the recent processing time. While any quiet tenant has a message waiting, consumers get
 * quiet tenants' messages; among noisy tenants, the one with the fewest messages in flight goes first. Noisy
 * messages are never dropped nor throttled, only served later.
 */
export const FAIR_QUEUE_BEHAVIOUR = {
  tenantAttribute: 'MessageGroupId',
  noisyInFlightShare: 0.1,
  noisyMinimumInFlight: 30,
  noisyProcessingShare: 0.1,
  /** How far back "recent processing time" looks (AWS gives no figure; a minute, several worker batches). */
  processingWindowSeconds: 60,
} as const;

export interface EventSourceSpec {
  readonly function: PipelineFunction;
  readonly queue: PipelineQueue;
  readonly batchSize: number;
  readonly batchingWindowSeconds: number;
  readonly maxConcurrency: number;
  readonly reportBatchItemFailures: true;
}

/**
 * The SQS event sources. Dead letters and finalising are rare and short, so two invocations at once suffice (two
 * is the smallest MaximumConcurrency Lambda accepts).
 */
export function eventSourceSpecs(settings: PipelineSettings): readonly EventSourceSpec[] {
  return [
    {
      function: 'worker',
      queue: 'work',
      batchSize: settings.workerBatchSize,
      batchingWindowSeconds: settings.workerBatchingWindowSeconds,
      maxConcurrency: settings.workerConcurrency,
      reportBatchItemFailures: true,
    },
    {
      function: 'deadLetter',
      queue: 'workDeadLetter',
      batchSize: 10,
      batchingWindowSeconds: 0,
      maxConcurrency: 2,
      reportBatchItemFailures: true,
    },
    {
      function: 'finalise',
      queue: 'finalise',
      batchSize: 1,
      batchingWindowSeconds: 0,
      maxConcurrency: 2,
      reportBatchItemFailures: true,
    },
  ];
}

/**
 * How EventBridge Scheduler starts a portfolio run: the ingest function's input and the retry policy of every
 * portfolio schedule, the stack's declared ones and those the portfolio-schedules function creates.
 */
export const PORTFOLIO_RUN_SCHEDULE = {
  /**
   * Scheduler fills in the time the run was scheduled for, which every retry of that run repeats (its execution id
   * does not: it is new for each attempt), so a retried run maps to the same batch.
   */
  runIdPlaceholder: '<aws.scheduler.scheduled-time>',
  /** A run that cannot start is retried for a while; a re-screen an hour late is still worth having. */
  retryPolicy: { maximumRetryAttempts: 10, maximumEventAgeInSeconds: 3600 },
} as const;

/** The ingest function's input for a portfolio run (`runId` defaults to Scheduler's scheduled-time placeholder). */
export function portfolioRunInput(
  portfolio: string,
  options: { readonly runId?: string; readonly settings?: object } = {},
): string {
  return JSON.stringify({
    portfolio,
    runId: options.runId ?? PORTFOLIO_RUN_SCHEDULE.runIdPlaceholder,
    ...(options.settings ? { settings: options.settings } : {}),
  });
}

/**
 * V8's old-space limit for a function of `memoryMegabytes`: 60%, leaving room for buffers, code and the runtime.
 * Without it V8 grows its heap lazily past what the function has (a million-row ingest peaked at 265 MB RSS with
 * the default and at about 160 MB with this limit, at the same speed).
 */
export function heapLimitMegabytes(memoryMegabytes: number): number {
  return Math.floor(memoryMegabytes * 0.6);
}

/**
 * S3 layout of the pipeline bucket: every prefix, spelled once (upload and portfolio prefixes come from the domain
 * code that reads them). Every prefix but `portfolios/` holds personal data that expires after the retention period.
 */
export const S3_LAYOUT = {
  incoming: INCOMING_PREFIX,
  raw: 'raw/',
  results: 'results/',
  work: 'work/',
  portfolios: PORTFOLIO_PREFIX,
} as const;

/** The prefixes whose objects expire after the retention period (LGPD). */
export const EXPIRING_PREFIXES = [
  S3_LAYOUT.incoming,
  S3_LAYOUT.raw,
  S3_LAYOUT.results,
  S3_LAYOUT.work,
] as const;

/**
 * Where a worker persists a paid answer before it does anything else with it: one key per batch row (never a
 * document), so the next holder of a row whose settle failed finds the answer instead of paying for it again.
 * The stored report points at it as its raw response.
 */
export const answerKey = (bureau: Bureau, batchId: string, row: number): string =>
  `${S3_LAYOUT.raw}${bureau}/${batchId}/${row}.json`;

/**
 * Key of a batch's list of rows that have duplicates: the ingest writes it, the finaliser repeats those rows'
 * report columns on their duplicates.
 */
export const duplicateTargetsKey = (batchId: string): string =>
  `${S3_LAYOUT.work}${batchId}/duplicate-targets.json`;

/**
 * The key under which the command line uploads a customer list: `incoming/<bureau>/<UTC time>-<nonce>.<ext>`,
 * e.g. `incoming/a/20261123T194400123Z-3f9a1c2b7d4e.csv`. Made of opaque parts only: a file name can be a
 * document (`529.982.247-25.csv`) or hold line breaks and escape sequences, and keys end up in manifests,
 * listings, events and logs. The name is dropped; only its extension is kept, when it is a short word (it cannot
 * hold a document), so the object still says what it is. `nonce` is random (12 hex digits) and keeps two uploads
 * in the same millisecond apart.
 */
export function uploadKey(
  bureau: Bureau,
  fileName: string,
  at: Date,
  nonce: string,
  priority = false,
): string {
  const extension = /\.([A-Za-z][A-Za-z0-9]{0,4})$/.exec(fileName)?.[1]?.toLowerCase() ?? 'csv';
  const time = at.toISOString().replace(/[-:.]/g, '');
  // `priority/` right under the bureau's folder asks for the priority lane (src/domain/batch/delivery-lane.ts).
  const folder = priority ? `${bureau}/priority` : bureau;
  return `${S3_LAYOUT.incoming}${folder}/${time}-${nonce}.${extension}`;
}

export const resultKeys = (batchId: string) => ({
  summary: `${S3_LAYOUT.results}${batchId}/summary.csv`,
  reports: `${S3_LAYOUT.results}${batchId}/reports.jsonl`,
  manifest: `${S3_LAYOUT.results}${batchId}/manifest.json`,
  /** A batch that waited for approval: what it would buy, at what cost (written when it starts waiting). */
  quote: `${S3_LAYOUT.results}${batchId}/quote.json`,
  /** Re-screens only: what changed since each document's previous report. */
  changes: `${S3_LAYOUT.results}${batchId}/changes.csv`,
  /** The page people read: counts, spend, risk, the riskiest customers and changes (written before the manifest). */
  report: `${S3_LAYOUT.results}${batchId}/report.html`,
});

/**
 * The functions' environment variables, by what they hold: the construct writes them, each function reads them
 * once at cold start (src/functions/shared/environment.ts). Only the secret's id travels, never the token.
 */
export const ENVIRONMENT_VARIABLES = {
  tableName: 'TABLE_NAME',
  bucketName: 'BUCKET_NAME',
  workQueueUrl: 'WORK_QUEUE_URL',
  finaliseQueueUrl: 'FINALISE_QUEUE_URL',
  eventBusName: 'EVENT_BUS_NAME',
  bureauBaseUrl: 'BUREAU_BASE_URL',
  tokenSecretId: 'BUREAU_TOKEN_SECRET_ID',
  settings: 'PIPELINE_SETTINGS',
} as const;

/** The portfolio-schedules function's extra variables: where schedules go and what they invoke. */
export const SCHEDULE_ENVIRONMENT_VARIABLES = {
  groupName: 'SCHEDULE_GROUP_NAME',
  targetArn: 'SCHEDULE_TARGET_ARN',
  roleArn: 'SCHEDULE_ROLE_ARN',
  declaredPortfolios: 'DECLARED_PORTFOLIOS',
} as const;

/** The environment that tells a function where its resources are (values may be CDK tokens). */
export function pipelineEnvironmentVariables(
  values: Readonly<Record<Exclude<keyof typeof ENVIRONMENT_VARIABLES, 'settings'>, string>>,
  settings: PipelineSettings,
): Record<string, string> {
  const variables: Record<string, string> = {
    [ENVIRONMENT_VARIABLES.settings]: JSON.stringify(settings),
  };
  for (const [name, variable] of Object.entries(ENVIRONMENT_VARIABLES))
    if (name !== 'settings') variables[variable] = values[name as keyof typeof values];
  return variables;
}

/** The portfolio-schedules function's environment. */
export function scheduleEnvironmentVariables(values: {
  readonly groupName: string;
  readonly targetArn: string;
  readonly roleArn: string;
  readonly declaredPortfolios: readonly string[];
}): Record<string, string> {
  return {
    [SCHEDULE_ENVIRONMENT_VARIABLES.groupName]: values.groupName,
    [SCHEDULE_ENVIRONMENT_VARIABLES.targetArn]: values.targetArn,
    [SCHEDULE_ENVIRONMENT_VARIABLES.roleArn]: values.roleArn,
    [SCHEDULE_ENVIRONMENT_VARIABLES.declaredPortfolios]: JSON.stringify(values.declaredPortfolios),
  };
}

/** Source and detail-type of the EventBridge events. */
export const EVENTS = {
  source: 'credit-screen',
  batchCompleted: 'BatchCompleted',
  portfolioChanged: 'PortfolioChanged',
  budgetExhausted: 'BudgetExhausted',
  batchAwaitingApproval: 'BatchAwaitingApproval',
} as const;
