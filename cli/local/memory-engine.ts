import {
  bucketAndQueueAdapters,
  type PipelineAdapters,
  type PipelineClients,
  type PipelineResources,
  rateLimitsOf,
} from '../../lambdas/shared/pipeline-adapters.ts';
import { MemoryAuditLog } from '../../src/adapters/memory/memory-audit-log.ts';
import { memoryBatchStoresOn } from '../../src/adapters/memory/memory-batch-store.ts';
import { MemoryChargeBudget } from '../../src/adapters/memory/memory-charge-budget.ts';
import { MemoryDecisionOverrides } from '../../src/adapters/memory/memory-decision-overrides.ts';
import { MemoryDocumentPurchases } from '../../src/adapters/memory/memory-document-purchases.ts';
import { MemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.ts';
import { MemoryReviewCases } from '../../src/adapters/memory/memory-review-cases.ts';
import { MemoryTables } from '../../src/adapters/memory/memory-tables.ts';
import type { PipelineSettings } from '../../src/contract/index.ts';

/**
 * The pipeline's adapters for a run without Java: the table's stores (batches, rows, reports, purchases, overrides,
 * audit log, budget, rate limiter) in this process, held to the DynamoDB ones by the same contract suites; S3 and
 * SQS are still fauxqs, so ingest, the queues, the workers and the finaliser run exactly as with DynamoDB Local.
 * Nothing of the table outlives the process.
 */
export function memoryEngineAdapters(
  clients: Pick<PipelineClients, 's3' | 'sqs'>,
  resources: PipelineResources,
  settings: PipelineSettings,
): PipelineAdapters {
  const tables = new MemoryTables();
  return {
    ...memoryBatchStoresOn(tables),
    auditLog: new MemoryAuditLog(),
    overrides: new MemoryDecisionOverrides(),
    reviewCases: new MemoryReviewCases(),
    purchases: new MemoryDocumentPurchases(),
    ...bucketAndQueueAdapters(clients, resources, settings),
    budget: new MemoryChargeBudget(),
    limiter: new MemoryRateLimiter(rateLimitsOf(settings)),
  };
}
