import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { LocalPipeline, type UploadOptions } from '../../cli/local/local-pipeline.ts';
import type { StrictModeOptions } from '../../cli/local/strict-aws-proxy.ts';
import {
  BUILT_IN_EMULATOR_ENDPOINT,
  ServiceEmulator,
  type ServiceEmulatorOptions,
} from '../../emulator/service-emulator.ts';
import { bureausWith, DEFAULT_SETTINGS, type PipelineSettings } from '../../src/contract/index.ts';
import type { BureauGateway, Logger } from '../../src/domain/ports/index.ts';
import { sharedDynamoDb } from './shared-dynamodb.ts';

/** Settings that make a local batch finish in seconds: high limits, short timeouts. */
export const FAST_SETTINGS: PipelineSettings = {
  ...DEFAULT_SETTINGS,
  bureaus: bureausWith({ rateLimitPerSecond: 500, rateLimitBurst: 50 }),
  workerConcurrency: 4,
  callsPerInvocation: 5,
  bureauTimeoutSeconds: 2,
  // Five seconds to start calls (8 − 2 for a call − 1 to settle): a loaded machine takes a second or two to claim,
  // take the purchase and pass the token gate; with one second, whole invocations ended before their first call.
  workerTimeoutSeconds: 8,
  maxReceiveCount: 10,
};

export interface TestPipeline {
  readonly emulator: ServiceEmulator;
  readonly pipeline: LocalPipeline;
  stop(): Promise<void>;
}

/** A real local pipeline (DynamoDB Local, fauxqs, the handlers) against a real bureau emulator. */
export async function startTestPipeline(
  options: {
    settings?: Partial<PipelineSettings>;
    emulator?: ServiceEmulatorOptions;
    token?: string;
    bureau?: (emulator: ServiceEmulator) => BureauGateway;
    eventSources?: boolean;
    stateDirectory?: string;
    fresh?: boolean;
    watchUploads?: boolean;
    sweepIntervalSeconds?: number;
    logger?: Logger;
    /**
     * Strict mode: DynamoDB's transaction conflicts as AWS has them, and the faults asked for. On in every pipeline
     * test, so no guarantee is proven only where DynamoDB Local is lenient; `false` only for what needs it off.
     * @default on, with its defaults (no faults)
     */
    strict?: boolean | StrictModeOptions;
  } = {},
): Promise<TestPipeline> {
  const emulator = await ServiceEmulator.start(options.emulator);
  try {
    const pipeline = await LocalPipeline.start({
      settings: { ...FAST_SETTINGS, ...options.settings },
      bureauBaseUrl: emulator.url,
      // Runs on one state directory call one emulator each, on a new port: as the command line does, they count as
      // the one built-in emulator (its answers are the same per epoch), so a later run may reuse an earlier one's.
      bureauEndpoint: options.stateDirectory === undefined ? undefined : BUILT_IN_EMULATOR_ENDPOINT,
      token: options.token ?? emulator.token,
      bureau: options.bureau?.(emulator),
      eventSources: options.eventSources,
      stateDirectory: options.stateDirectory,
      // A state directory keeps its database in a DynamoDB Local of its own; anything else shares the run's.
      sharedDynamoDb: options.stateDirectory === undefined ? sharedDynamoDb() : undefined,
      fresh: options.fresh,
      watchUploads: options.watchUploads,
      sweepIntervalSeconds: options.sweepIntervalSeconds,
      logger: options.logger,
      strict:
        options.strict === false
          ? undefined
          : options.strict === true || options.strict === undefined
            ? {}
            : options.strict,
    });
    return {
      emulator,
      pipeline,
      stop: async () => {
        await pipeline.stop();
        await emulator.close();
      },
    };
  } catch (error) {
    await emulator.close();
    throw error;
  }
}

/** Writes a CSV into a fresh temporary directory and returns its path. */
export async function writeCsv(name: string, content: string | Buffer): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'credit-screen-test-'));
  const path = join(directory, name);
  await writeFile(path, content);
  return path;
}

export type SummaryLine = Record<string, string>;

/** Parses a summary CSV (either dialect) into one object per row, keyed by header. */
export function parseSummary(text: string): SummaryLine[] {
  const parsed = Papa.parse<SummaryLine>(text.replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: true });
  return parsed.data;
}

/** Runs one file through the pipeline and returns its manifest, summary lines and report lines. */
export async function screenFile(
  test: TestPipeline,
  file: string,
  bureau: 'a' | 'b' = 'a',
  upload: UploadOptions = {},
) {
  const outcome = await test.pipeline.submit(file, bureau, upload);
  await test.pipeline.waitForCompletion(outcome.batchId, { pollMs: 100 });
  const directory = await mkdtemp(join(tmpdir(), 'credit-screen-results-'));
  const { manifest } = await test.pipeline.downloadResults(outcome.batchId, directory);
  const summary = manifest.files ? parseSummary(await test.pipeline.readText(manifest.files.summary)) : [];
  const reports = manifest.files
    ? (await test.pipeline.readText(manifest.files.reports))
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    : [];
  return { batchId: outcome.batchId, outcome, manifest, summary, reports, directory };
}
