/**
 * Child process of the pipeline benchmark: runs the ingest use case alone against the parent's emulators, so the
 * peak RSS it reports is the ingest's, as in its own Lambda, without the emulators' memory.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LocalResources } from '../cli/local/local-services.ts';
import { createPipelineAdapters } from '../lambdas/shared/pipeline-adapters.ts';
import { MemoryLogger } from '../src/adapters/memory/memory-logger.ts';
import { RecordingEventPublisher } from '../src/adapters/memory/recording-event-publisher.ts';
import { ingestUpload, type UploadedObject } from '../src/application/ingest/ingest-upload.ts';
import { DEFAULT_SETTINGS } from '../src/contract/index.ts';

const upload = JSON.parse(process.env.BENCH_UPLOAD ?? '') as UploadedObject;
const endpoints = JSON.parse(process.env.BENCH_ENDPOINTS ?? '') as { dynamodb: string; s3AndSqs: string };
const resources = JSON.parse(process.env.BENCH_RESOURCES ?? '') as LocalResources;
const maxRows = Number(process.env.BENCH_MAX_ROWS);
const region = 'us-east-1';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const clients = {
  dynamo: DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: endpoints.dynamodb, region, credentials }),
    {
      marshallOptions: { removeUndefinedValues: true },
    },
  ),
  s3: new S3Client({ endpoint: endpoints.s3AndSqs, region, credentials, forcePathStyle: true }),
  sqs: new SQSClient({ endpoint: endpoints.s3AndSqs, region, credentials }),
};
const adapters = createPipelineAdapters(clients, resources, { ...DEFAULT_SETTINGS, maxRows });

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 50);
const started = Date.now();
const outcome = await ingestUpload(upload, {
  ...adapters,
  events: new RecordingEventPublisher(),
  logger: new MemoryLogger(),
  settings: { defaultBureau: 'a', maxRows, excelSummary: false },
});
const seconds = (Date.now() - started) / 1000;
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);
if (outcome.outcome !== 'queued') throw new Error(`ingest did not queue: ${JSON.stringify(outcome)}`);
console.log(
  JSON.stringify({
    seconds: Number(seconds.toFixed(1)),
    rowsPerSecond: Math.round(outcome.rows / seconds),
    peakRssMegabytes: Math.round(peakRss / 1e6),
    toScreen: outcome.toScreen,
  }),
);
