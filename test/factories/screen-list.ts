import { workerSettings } from '../../lambdas/shared/pipeline-adapters.ts';
import { zenCreditPolicyLoader } from '../../src/adapters/decision/zen-credit-policy.ts';
import { MemoryLogger } from '../../src/adapters/memory/memory-logger.ts';
import { finaliseBatch } from '../../src/application/finalise/finalise-batch.ts';
import { ingestUpload } from '../../src/application/ingest/ingest-upload.ts';
import { screenDocuments } from '../../src/application/worker/screen-documents.ts';
import { S3_LAYOUT } from '../../src/contract/index.ts';
import type { BureauGateway, CreditPolicyLoader } from '../../src/domain/ports/index.ts';
import type { MemoryPipeline } from './memory-pipeline.ts';
import { parseSummary } from './pipeline.ts';
import { deliveryOf, RecordingVisibility, RecordingWorkQueue } from './recording-ports.ts';

let uploads = 0;
/** Deliveries of a batch's messages before the list is given up on (each failure is retried at most this often). */
const MAX_DELIVERIES = 20;
/** Screens a list end to end on the memory adapters: ingest, every message delivered, the finaliser. */
export async function screenListOn(
  test: MemoryPipeline,
  bureau: BureauGateway,
  csv: string | Buffer,
  metadata: Record<string, string> = {},
  options: {
    readonly beforeFinalise?: (batchId: string) => void;
    readonly portfolio?: { name: string; policy: string };
    /** The workers decide as they settle (as deployed); false leaves every decision to the finaliser. */
    readonly workerDecides?: boolean;
    /** The finaliser's engine (the real one unless a test counts its evaluations). */
    readonly finaliserLoader?: CreditPolicyLoader;
    /** How old a stored report the batch may reuse, in hours. @default 0 (every document is bought) */
    readonly freshnessHours?: number;
  } = {},
) {
  const { portfolio, beforeFinalise = () => undefined } = options;
  uploads++;
  const key = `${S3_LAYOUT.incoming}a/decided-${uploads}.csv`;
  test.objects.put(key, csv, metadata);
  const queue = new RecordingWorkQueue();
  const { batchId } = await ingestUpload(
    {
      bucket: test.objects.bucket,
      key,
      eTag: `etag-${uploads}`,
      sequencer: String(uploads).padStart(16, '0'),
      ...(portfolio ? { portfolio: { ...portfolio, bureau: 'a' as const, freshnessHours: 0 } } : {}),
    },
    {
      ...test.adapters,
      queue,
      logger: new MemoryLogger(),
      settings: {
        defaultBureau: 'a',
        maxRows: 1000,
        excelSummary: false,
        freshnessHours: options.freshnessHours ?? 0,
      },
    },
  );
  const deps = {
    ...test.adapters,
    queue,
    visibility: new RecordingVisibility(),
    logger: new MemoryLogger(),
    bureau,
    settings: workerSettings(test.settings),
  };
  const workerDeps = {
    ...deps,
    ...(options.workerDecides === false ? {} : { policyLoader: zenCreditPolicyLoader }),
  };
  // Messages that come back (a transient bureau failure) are delivered again, as SQS would, until none does.
  let deliveries = queue.work.splice(0).map(deliveryOf);
  for (let round = 0; deliveries.length > 0 && round < MAX_DELIVERIES; round++) {
    const { batchItemFailures } = await screenDocuments(deliveries, workerDeps);
    const failed = new Set(batchItemFailures.map((failure) => failure.itemIdentifier));
    deliveries = [
      ...deliveries.filter((record) => failed.has(record.messageId)),
      ...queue.work.splice(0).map(deliveryOf),
    ];
  }
  beforeFinalise(batchId);
  const manifest = await finaliseBatch(batchId, {
    ...deps,
    policyLoader: options.finaliserLoader ?? zenCreditPolicyLoader,
  });
  const summary = parseSummary(await test.readText(manifest?.files?.summary ?? ''));
  const reports = (await test.readText(manifest?.files?.reports ?? ''))
    .split('\n')
    .filter(Boolean)
    .map(
      (line) => JSON.parse(line) as { document: string; decision?: { decision: string; trace: unknown[] } },
    );
  const header = (await test.readText(manifest?.files?.summary ?? '')).split(/\r?\n/)[0]?.split(',') ?? [];
  const changes = manifest?.files?.changes ? parseSummary(await test.readText(manifest.files.changes)) : [];
  const page = manifest?.files?.report ? await test.readText(manifest.files.report) : '';
  return { batchId, manifest, summary, reports, header, changes, page };
}
