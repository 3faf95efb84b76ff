import { workerSettings } from '../../lambdas/shared/pipeline-adapters.ts';
import { zenCreditPolicyLoader } from '../../src/adapters/decision/zen-credit-policy.ts';
import { MemoryLogger } from '../../src/adapters/memory/memory-logger.ts';
import {
  type FinaliseDependencies,
  finaliseBatch,
  handleFinaliseMessage,
} from '../../src/application/finalise/finalise-batch.ts';
import { ingestUpload } from '../../src/application/ingest/ingest-upload.ts';
import { screenDocuments } from '../../src/application/worker/screen-documents.ts';
import type { BatchManifest } from '../../src/contract/index.ts';
import { S3_LAYOUT } from '../../src/contract/index.ts';
import type { FinaliseMessage } from '../../src/domain/batch/index.ts';
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
    readonly beforeFinalise?: (batchId: string) => void | Promise<void>;
    /** Rows per part of the finalisation. @default FINALISE_PART_ROWS (a small list is written at once) */
    readonly finalisePartRows?: number;
    /** The order the finalise queue delivers a split batch's messages in. @default 'sent' */
    readonly finaliseOrder?: 'sent' | 'reversed';
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
  await beforeFinalise(batchId);
  const manifest = await finaliseThroughQueue(
    batchId,
    {
      ...deps,
      policyLoader: options.finaliserLoader ?? zenCreditPolicyLoader,
      ...(options.finalisePartRows === undefined ? {} : { partRows: options.finalisePartRows }),
    },
    queue.finalise,
    options.finaliseOrder ?? 'sent',
  );
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

/**
 * Finalises a batch as the finalise queue would: the whole-batch message, then every message it and its parts
 * send (a split batch's parts, then the join), delivered in `order`, until one of them completes the batch.
 */
async function finaliseThroughQueue(
  batchId: string,
  deps: FinaliseDependencies,
  sent: FinaliseMessage[],
  order: 'sent' | 'reversed' = 'sent',
): Promise<BatchManifest | null> {
  sent.splice(0);
  let manifest = await finaliseBatch(batchId, deps);
  for (let round = 0; manifest === null && sent.length > 0 && round < MAX_DELIVERIES; round++) {
    const messages = sent.splice(0);
    if (order === 'reversed') messages.reverse();
    for (const message of messages) manifest = (await handleFinaliseMessage(message, deps)) ?? manifest;
  }
  return manifest;
}
