import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerSettings } from '../../lambdas/shared/pipeline-adapters.ts';
import { CreditReportClient, ServiceTransport } from '../../service-client/index.ts';
import { CreditReportGateway } from '../../src/adapters/bureau/credit-report-gateway.ts';
import { MemoryLogger } from '../../src/adapters/memory/memory-logger.ts';
import { finaliseBatch } from '../../src/application/finalise/finalise-batch.ts';
import { ingestUpload } from '../../src/application/ingest/ingest-upload.ts';
import { screenDocuments } from '../../src/application/worker/screen-documents.ts';
import { resultKeys } from '../../src/contract/index.ts';
import type { ObjectStore } from '../../src/domain/ports/index.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { startTestPipeline, type TestPipeline, writeCsv } from '../factories/pipeline.ts';
import { deliveryOf, RecordingVisibility, RecordingWorkQueue } from '../factories/recording-ports.ts';

let test: TestPipeline;
beforeAll(async () => {
  test = await startTestPipeline({ eventSources: false });
}, 60_000);
afterAll(async () => {
  await test?.stop();
});

/** The pipeline's object store, noting the order in which keys are written. */
function recordingObjects(objects: ObjectStore, written: string[]): ObjectStore {
  return {
    bucket: objects.bucket,
    read: (key) => objects.read(key),
    readTextIfExists: (key) => objects.readTextIfExists(key),
    exists: (key) => objects.exists(key),
    metadataOf: (key) => objects.metadataOf(key),
    putJson: async (key, value) => {
      written.push(key);
      await objects.putJson(key, value);
    },
    writeStream: async (key, contentType, body) => {
      written.push(key);
      await objects.writeStream(key, contentType, body);
    },
    list: (prefix) => objects.list(prefix),
    rewrite: async (key, bytes, metadata) => {
      written.push(key);
      await objects.rewrite(key, bytes, metadata);
    },
    remove: (key) => objects.remove(key),
  };
}

/** A small batch ingested and screened by the use cases themselves, waiting for its finalisation. */
async function screenedBatch(): Promise<string> {
  const queue = new RecordingWorkQueue();
  const documents = distinctDocuments(6, 'finalise report');
  const upload = await test.pipeline.upload(
    await writeCsv('list.csv', customerListCsv([...documents, '123'])),
    'a',
  );
  const { batchId } = await ingestUpload(upload, {
    ...test.pipeline.adapters,
    queue,
    logger: new MemoryLogger(),
    settings: { defaultBureau: 'a', maxRows: 1000, excelSummary: false },
  });
  await screenDocuments(queue.work.map(deliveryOf), {
    ...test.pipeline.adapters,
    events: test.pipeline.events,
    queue,
    visibility: new RecordingVisibility(),
    logger: new MemoryLogger(),
    bureau: new CreditReportGateway(
      new CreditReportClient(
        new ServiceTransport({ baseUrl: test.emulator.url, token: test.emulator.token, timeoutMs: 2000 }),
      ),
    ),
    settings: workerSettings(test.pipeline.settings),
  });
  return batchId;
}

describe('the finaliser and report.html', () => {
  it('writes the report after the summary and the reports, before the manifest that lists it, in the language set', async () => {
    const batchId = await screenedBatch();
    const written: string[] = [];

    const manifest = await finaliseBatch(batchId, {
      ...test.pipeline.adapters,
      objects: recordingObjects(test.pipeline.adapters.objects, written),
      events: test.pipeline.events,
      logger: new MemoryLogger(),
      reportLanguage: 'en',
    });

    const keys = resultKeys(batchId);
    expect(written).toEqual([keys.summary, keys.reports, keys.report, keys.manifest]);
    expect(manifest?.files?.report).toBe(keys.report);
    const page = await test.pipeline.readText(keys.report);
    expect(page).toContain('<html lang="en">');
    expect(page).toMatch(/data-figure="status:screened" data-value="6"/);
    expect(page).toMatch(/data-figure="status:invalid_document" data-value="1"/);
  });
});
