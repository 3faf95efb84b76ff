import { createHash } from 'node:crypto';
import { ServiceEmulator, type ServiceEmulatorOptions } from '../../emulator/service-emulator.ts';
import { rateLimitsOf } from '../../lambdas/shared/pipeline-adapters.ts';
import { CreditReportClient, ServiceTransport } from '../../service-client/index.ts';
import { HmacDocumentKeys } from '../../src/adapters/audit/hmac-document-keys.ts';
import { joinBatchStores } from '../../src/adapters/batch-stores.ts';
import { CreditReportGateway } from '../../src/adapters/bureau/credit-report-gateway.ts';
import { MemoryAuditLog } from '../../src/adapters/memory/memory-audit-log.ts';
import { memoryBatchStoresOn } from '../../src/adapters/memory/memory-batch-store.ts';
import { MemoryChargeBudget } from '../../src/adapters/memory/memory-charge-budget.ts';
import { MemoryDecisionOverrides } from '../../src/adapters/memory/memory-decision-overrides.ts';
import { MemoryDocumentPurchases } from '../../src/adapters/memory/memory-document-purchases.ts';
import { MemoryObjectStore } from '../../src/adapters/memory/memory-object-store.ts';
import { MemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.ts';
import { MemoryReviewCases } from '../../src/adapters/memory/memory-review-cases.ts';
import { MemorySubjectErasure } from '../../src/adapters/memory/memory-subject-erasure.ts';
import { MemoryTables } from '../../src/adapters/memory/memory-tables.ts';
import { RecordingEventPublisher } from '../../src/adapters/memory/recording-event-publisher.ts';
import type { UploadedObject } from '../../src/application/ingest/ingest-upload.ts';
import { type PipelineSettings, S3_LAYOUT } from '../../src/contract/index.ts';
import type { BureauGateway } from '../../src/domain/ports/index.ts';
import type { Bureau } from '../../src/domain/report/index.ts';
import { FAST_SETTINGS } from './pipeline.ts';

/** The memory pipeline's audit key (a deployment generates its own). */
const AUDIT_KEY = 'memory-pipeline-audit-key-0123456789abcdef';

/**
 * The pipeline's storage in memory (store, bucket, rate limiter) against a real bureau emulator: what use-case
 * tests drive, with no DynamoDB Local or S3 emulator to start. The stores pass the same contract tests as the AWS
 * adapters (test/adapters/batch-store-contract.ts).
 */
export async function startMemoryPipeline(
  options: { settings?: Partial<PipelineSettings>; emulator?: ServiceEmulatorOptions } = {},
) {
  const settings = { ...FAST_SETTINGS, ...options.settings };
  const emulator = await ServiceEmulator.start(options.emulator);
  const tables = new MemoryTables();
  const stores = memoryBatchStoresOn(tables);
  const store = joinBatchStores(stores);
  const objects = new MemoryObjectStore();
  const limiter = new MemoryRateLimiter(rateLimitsOf(settings));
  const budget = new MemoryChargeBudget();
  const purchases = new MemoryDocumentPurchases();
  const overrides = new MemoryDecisionOverrides();
  const reviewCases = new MemoryReviewCases();
  const subjectErasure = new MemorySubjectErasure({ tables, overrides, purchases, cases: reviewCases });
  const audit = {
    log: new MemoryAuditLog(),
    documentKeys: new HmacDocumentKeys(async () => AUDIT_KEY),
  };
  const events = new RecordingEventPublisher();
  let uploads = 0;
  return {
    emulator,
    /** The bureau as the workers reach it: the real gateway and client, over HTTP to the emulator. */
    bureau: new CreditReportGateway(
      new CreditReportClient(
        new ServiceTransport({ baseUrl: emulator.url, token: emulator.token, timeoutMs: 2000 }),
      ),
    ) as BureauGateway,
    settings,
    store,
    objects,
    budget,
    events,
    purchases,
    audit,
    adapters: {
      ...stores,
      purchases,
      overrides,
      reviewCases,
      audit,
      objects,
      limiter,
      budget,
      events,
      subjectErasure,
    },
    /** Puts a customer list where uploads go and returns the object as S3's notification would name it. */
    upload(csv: string, bureau: Bureau): UploadedObject {
      uploads++;
      const key = `${S3_LAYOUT.incoming}${bureau}/upload-${uploads}.csv`;
      objects.put(key, csv);
      return {
        bucket: objects.bucket,
        key,
        eTag: createHash('md5').update(csv).digest('hex'),
        sequencer: String(uploads).padStart(16, '0'),
      };
    },
    async readText(key: string): Promise<string> {
      return (await objects.readTextIfExists(key)) ?? '';
    },
    stop: () => emulator.close(),
  };
}

export type MemoryPipeline = Awaited<ReturnType<typeof startMemoryPipeline>>;
