import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbAuditLog } from '../../src/adapters/aws/dynamodb-audit-log.ts';
import { dynamoDbBatchStores } from '../../src/adapters/aws/dynamodb-batch-store.ts';
import { DynamoDbChargeBudget } from '../../src/adapters/aws/dynamodb-charge-budget.ts';
import { DynamoDbDecisionOverrides } from '../../src/adapters/aws/dynamodb-decision-overrides.ts';
import { DynamoDbDocumentPurchases } from '../../src/adapters/aws/dynamodb-document-purchases.ts';
import { DynamoDbRateLimiter } from '../../src/adapters/aws/dynamodb-rate-limiter.ts';
import { DynamoDbReviewCases } from '../../src/adapters/aws/dynamodb-review-cases.ts';
import { S3ObjectStore } from '../../src/adapters/aws/s3-object-store.ts';
import { SqsMessageVisibility } from '../../src/adapters/aws/sqs-message-visibility.ts';
import { SqsWorkQueue } from '../../src/adapters/aws/sqs-work-queue.ts';
import type { BatchStores } from '../../src/adapters/batch-stores.ts';
import type { IngestSettings } from '../../src/application/ingest/ingest-upload.ts';
import type { WorkerSettings } from '../../src/application/worker/held-row.ts';
import { claimLeaseSeconds, longestBatchSeconds, type PipelineSettings } from '../../src/contract/index.ts';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/batch/index.ts';
import { perBureau } from '../../src/domain/bureau/index.ts';
import type {
  AuditLog,
  ChargeBudget,
  DecisionOverrides,
  DocumentPurchases,
  MessageVisibility,
  ObjectStore,
  RateLimiter,
  ReviewCases,
  WorkQueue,
} from '../../src/domain/ports/index.ts';
import type { TokenBucketLimits } from '../../src/domain/rate-limit/index.ts';
import type { Bureau } from '../../src/domain/report/index.ts';

/** SDK clients, created once by the caller: in Lambda with defaults, locally with emulator endpoints. */
export interface PipelineClients {
  readonly dynamo: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly sqs: SQSClient;
}

export interface PipelineResources {
  readonly tableName: string;
  readonly bucketName: string;
  readonly workQueueUrl: string;
  readonly finaliseQueueUrl: string;
  readonly dispatchQueueUrl: string;
}

/** Every storage and queue adapter a function of the pipeline is given, by the port it implements. */
export interface PipelineAdapters extends BatchStores {
  readonly auditLog: AuditLog;
  readonly overrides: DecisionOverrides;
  readonly reviewCases: ReviewCases;
  readonly purchases: DocumentPurchases;
  readonly objects: ObjectStore;
  readonly queue: WorkQueue;
  readonly visibility: MessageVisibility;
  readonly budget: ChargeBudget;
  readonly limiter: RateLimiter;
}

/** Every storage and queue adapter of the pipeline, the same in AWS and on a laptop. */
export function createPipelineAdapters(
  clients: PipelineClients,
  resources: PipelineResources,
  settings: PipelineSettings,
): PipelineAdapters {
  return {
    ...dynamoDbBatchStores({
      client: clients.dynamo,
      tableName: resources.tableName,
      retentionDays: settings.retentionDays,
    }),
    auditLog: new DynamoDbAuditLog({
      client: clients.dynamo,
      tableName: resources.tableName,
      retentionDays: settings.auditRetentionDays,
    }),
    overrides: new DynamoDbDecisionOverrides({
      client: clients.dynamo,
      tableName: resources.tableName,
      retentionDays: settings.retentionDays,
    }),
    reviewCases: new DynamoDbReviewCases({
      client: clients.dynamo,
      tableName: resources.tableName,
      retentionDays: settings.retentionDays,
    }),
    purchases: new DynamoDbDocumentPurchases({
      client: clients.dynamo,
      tableName: resources.tableName,
      retentionDays: settings.retentionDays,
    }),
    ...bucketAndQueueAdapters(clients, resources, settings),
    budget: new DynamoDbChargeBudget({
      client: clients.dynamo,
      tableName: resources.tableName,
      retentionDays: settings.retentionDays,
    }),
    limiter: new DynamoDbRateLimiter({
      client: clients.dynamo,
      tableName: resources.tableName,
      limits: rateLimitsOf(settings),
    }),
  };
}

/** The bucket and the queues: the same on every engine (the local memory engine keeps only the table in memory). */
export function bucketAndQueueAdapters(
  clients: Pick<PipelineClients, 's3' | 'sqs'>,
  resources: PipelineResources,
  settings: Pick<PipelineSettings, 'fairQueues'>,
): Pick<PipelineAdapters, 'objects' | 'queue' | 'visibility'> {
  return {
    objects: new S3ObjectStore({ client: clients.s3, bucket: resources.bucketName }),
    queue: new SqsWorkQueue({
      client: clients.sqs,
      workQueueUrl: resources.workQueueUrl,
      finaliseQueueUrl: resources.finaliseQueueUrl,
      dispatchQueueUrl: resources.dispatchQueueUrl,
      fairQueues: settings.fairQueues,
    }),
    visibility: new SqsMessageVisibility(clients.sqs, resources.workQueueUrl),
  };
}

/** The global rate limit of each bureau, as both rate limiters (DynamoDB and memory) take it. */
export function rateLimitsOf(settings: Pick<PipelineSettings, 'bureaus'>): Record<Bureau, TokenBucketLimits> {
  return perBureau((bureau) => ({
    ratePerSecond: settings.bureaus[bureau].rateLimitPerSecond,
    capacity: settings.bureaus[bureau].rateLimitBurst,
  }));
}

/** How the bureau client is built from the pipeline's settings, in Lambda and locally alike. */
export function bureauTransportSettings(settings: PipelineSettings, baseUrl: string) {
  return {
    baseUrl,
    timeoutMs: settings.bureauTimeoutSeconds * 1000,
    maxResponseBytes: settings.maxReportBytes,
  };
}

/**
 * The ingest's settings, derived from the pipeline's (in Lambda and locally alike), and where its bureau calls go
 * (recorded on each batch).
 */
export function ingestSettings(settings: PipelineSettings, bureauEndpoint?: string): IngestSettings {
  return {
    bureauEndpoint,
    defaultBureau: settings.defaultBureau,
    maxRows: settings.maxRows,
    excelSummary: settings.excelSummary,
    freshnessHours: settings.freshnessHours,
    defaultPolicy: settings.defaultPolicy,
    approval: {
      threshold: settings.approvalThreshold,
      pricePerQuery: perBureau((bureau) => settings.bureaus[bureau].pricePerQuery),
      ratePerSecond: perBureau((bureau) => settings.bureaus[bureau].rateLimitPerSecond),
      longestBatchSeconds: longestBatchSeconds(settings),
    },
  };
}

/** Why bureau queries are made and on what legal ground, as every audit entry of a request records them. */
export const auditBasisOf = (settings: PipelineSettings) => ({
  purpose: settings.queryPurpose,
  legalBasis: settings.legalBasis,
});

/** The worker's settings, derived from the pipeline's, and where its bureau calls go. */
export function workerSettings(settings: PipelineSettings, bureauEndpoint?: string): WorkerSettings {
  return {
    bureauEndpoint,
    retry: { ...DEFAULT_RETRY_POLICY, maxAttempts: settings.maxAttempts },
    claimLeaseSeconds: claimLeaseSeconds(settings),
    callsPerInvocation: settings.callsPerInvocation,
    rateLimitRetriesPerInvocation: 3,
    probeWaitSeconds: Math.min(10, settings.bureauTimeoutSeconds),
    bureauTimeoutSeconds: settings.bureauTimeoutSeconds,
    rebuyChargeUnknown: settings.rebuyChargeUnknown,
    monthlyChargeCap: perBureau((bureau) => settings.bureaus[bureau].monthlyChargeCap),
    audit: auditBasisOf(settings),
  };
}
