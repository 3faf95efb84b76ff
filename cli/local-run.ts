import { stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { BureauEmulator } from '../emulator/bureau-emulator.ts';
import { BUREAUS, type Bureau } from '../lambdas/core/report/index.ts';
import type { BatchManifest } from '../lambdas/finalise/finalise-batch.ts';
import { DEFAULT_SETTINGS, type PipelineSettings } from '../lib/pipeline-definition.ts';
import { type BatchProgress, LocalPipeline } from '../local/local-pipeline.ts';
import { LocalStackError } from '../local/local-stack.ts';
import { DEFAULT_STATE_DIRECTORY, LocalStateError } from '../local/local-state.ts';
import { CliError } from './cli-error.ts';
import { nonNegativeInteger, nonNegativeNumber, positiveInteger, probability } from './option-parsers.ts';
import { ProgressDisplay } from './progress-display.ts';
import { asCliError } from './read-customer-list.ts';

/** Options of the commands that run the pipeline on this machine (`screen`, `rescreen`). */
export interface LocalRunOptions {
  readonly bureau: Bureau;
  readonly excel?: boolean;
  readonly concurrency?: number;
  readonly rateLimit?: number;
  readonly token?: string;
  readonly freshnessHours?: number;
  readonly emulatorLatency: number;
  readonly emulatorErrorRate: number;
  readonly emulatorRateLimit?: number;
  readonly epoch: number;
  readonly baseUrl?: string;
  readonly live?: boolean;
  /** The state directory, or false with `--no-state`. */
  readonly state: string | false;
  readonly fresh?: boolean;
}

/** Local default of the global rate limit: the emulator has no limit of its own unless asked for one. */
const LOCAL_RATE_LIMIT = 50;

function settingsFrom(options: LocalRunOptions): PipelineSettings {
  const rate = options.rateLimit ?? LOCAL_RATE_LIMIT;
  const burst = Math.max(1, Math.ceil(rate / 5));
  return {
    ...DEFAULT_SETTINGS,
    defaultBureau: options.bureau,
    excelSummary: options.excel === true,
    workerConcurrency: Math.max(2, options.concurrency ?? DEFAULT_SETTINGS.workerConcurrency),
    rateLimitPerSecond: { a: rate, b: rate },
    rateLimitBurst: { a: burst, b: burst },
    freshnessHours: options.freshnessHours ?? DEFAULT_SETTINGS.freshnessHours,
    // Locally a crashed worker's messages should come back in seconds, not the six minutes used in AWS.
    bureauTimeoutSeconds: 10,
    workerTimeoutSeconds: 20,
  };
}

/** Adds the options shared by the local-run commands. */
export function addLocalRunOptions(command: Command): Command {
  return command
    .addOption(new Option('--bureau <bureau>', 'bureau to query').choices(BUREAUS).default('a'))
    .option('--excel', 'write the summary in the Brazilian Excel dialect (;, decimal comma, BOM)')
    .option('--concurrency <n>', 'concurrent worker invocations', positiveInteger('--concurrency'))
    .option(
      '--rate-limit <req/s>',
      `global bureau requests per second (default ${LOCAL_RATE_LIMIT})`,
      nonNegativeNumber('--rate-limit'),
    )
    .option(
      '--freshness-hours <h>',
      'reuse stored reports younger than this (0 = off)',
      nonNegativeNumber('--freshness-hours'),
    )
    .option(
      '--state <dir>',
      'keep reports, portfolios and results here between runs',
      DEFAULT_STATE_DIRECTORY,
    )
    .option('--no-state', 'keep nothing: start empty and forget everything at the end')
    .option('--fresh', 'empty the state directory before starting')
    .option(
      '--token <token>',
      'token the pipeline sends (the embedded emulator accepts only its own dev token)',
    )
    .option(
      '--epoch <n>',
      "the emulator's point in time: reports change a little from one epoch to the next",
      nonNegativeInteger('--epoch'),
      0,
    )
    .option(
      '--emulator-latency <ms>',
      'emulator latency per query',
      nonNegativeNumber('--emulator-latency'),
      0,
    )
    .option(
      '--emulator-error-rate <p>',
      'share of emulator queries that fail',
      probability('--emulator-error-rate'),
      0,
    )
    .option(
      '--emulator-rate-limit <req/s>',
      'emulator answers 429 above this rate',
      nonNegativeNumber('--emulator-rate-limit'),
    )
    .option(
      '--base-url <url>',
      'call a real bureau gateway instead of the emulator (needs --live and BUREAU_TOKEN)',
    )
    .option('--live', 'confirm that real queries, paid in real credits, may be made');
}

/** What a local-run command works with while the stack is up. */
export interface LocalRun {
  readonly pipeline: LocalPipeline;
  readonly emulator: BureauEmulator | null;
  readonly signal: AbortSignal;
  readonly startedAt: number;
  /** Waits for a batch with the progress bar; Ctrl-C interrupts it. */
  follow(batchId: string): Promise<BatchProgress>;
  /** Downloads the results into `directory`, with the emulator's stats beside them. */
  download(batchId: string, directory: string): Promise<BatchManifest>;
}

/** Refuses what cannot work before anything starts: a real gateway without --live, a missing file. */
export async function checkBeforeStarting(options: LocalRunOptions, file: string): Promise<void> {
  if (options.baseUrl !== undefined && !options.live) {
    throw new CliError(
      '--base-url calls a real bureau gateway and spends real credits: add --live to confirm',
    );
  }
  if (options.live && options.baseUrl === undefined)
    throw new CliError('--live needs --base-url <gateway URL>');
  if (options.live && !(options.token ?? process.env.BUREAU_TOKEN))
    throw new CliError('--live needs the account token in BUREAU_TOKEN (or --token)');
  try {
    const info = await stat(file);
    if (!info.isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
  } catch (error) {
    throw asCliError(file, error);
  }
}

/**
 * Starts the emulator (unless `--live`) and the local pipeline (with its state directory), runs `body`, and stops
 * everything whatever happens; Ctrl-C aborts with exit 130.
 */
export async function runLocally<T>(
  file: string,
  options: LocalRunOptions,
  body: (run: LocalRun) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const interrupt = () => controller.abort(new CliError('interrupted; everything started was stopped', 130));
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  let emulator: BureauEmulator | null = null;
  let pipeline: LocalPipeline | null = null;
  const progress = new ProgressDisplay();
  try {
    if (!options.live) {
      emulator = await BureauEmulator.start({
        latencyMs: options.emulatorLatency,
        errorRate: options.emulatorErrorRate,
        rateLimitPerSecond: options.emulatorRateLimit ?? null,
        epoch: options.epoch,
      });
    }
    const state = options.state === false ? undefined : options.state;
    process.stderr.write('starting DynamoDB Local, S3/SQS (fauxqs) and the bureau emulator…\n');
    pipeline = await LocalPipeline.start({
      settings: settingsFrom(options),
      bureauBaseUrl: options.baseUrl ?? (emulator as BureauEmulator).url,
      token: options.live
        ? ((options.token ?? process.env.BUREAU_TOKEN) as string)
        : (options.token ?? (emulator as BureauEmulator).token),
      stateDirectory: state,
      fresh: options.fresh,
    });
    const { endpoints } = pipeline.stack;
    process.stderr.write(
      `local stack: DynamoDB Local ${endpoints.dynamodb}, S3/SQS ${endpoints.s3AndSqs}` +
        `${emulator ? `, bureau emulator ${emulator.url}` : ''}` +
        `${state ? `; state in ${pipeline.stack.state?.directory}` : ''}\n`,
    );
    if (pipeline.resumed) {
      process.stderr.write(
        `an interrupted run left unfinished batches here: ${pipeline.resumed.requeued} documents queued again; \`credit-screen resume\` finishes them\n`,
      );
    }
    controller.signal.throwIfAborted();
    const running = pipeline;
    const run: LocalRun = {
      pipeline: running,
      emulator,
      signal: controller.signal,
      startedAt: Date.now(),
      follow: async (batchId) => {
        const done = await running.waitForCompletion(batchId, {
          signal: controller.signal,
          onProgress: (state) => progress.update(state.settledRows, state.totalRows),
        });
        progress.stop();
        return done;
      },
      download: async (batchId, directory) => {
        const { manifest } = await running.downloadResults(batchId, directory);
        if (emulator)
          await writeFile(
            join(directory, 'emulator-stats.json'),
            `${JSON.stringify(emulator.stats(), null, 2)}\n`,
          );
        return manifest;
      },
    };
    return await body(run);
  } catch (error) {
    progress.stop();
    if (controller.signal.aborted && controller.signal.reason instanceof CliError)
      throw controller.signal.reason;
    if (error instanceof LocalStackError || error instanceof LocalStateError)
      throw new CliError(error.message);
    throw asCliError(file, error);
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    await pipeline?.stop();
    await emulator?.close();
  }
}

/**
 * The lines every local run ends with: the batch's counts and what the bureau was asked; the time is counted from
 * `since` (the run's start, or the batch's upload when several share the run).
 */
export function batchReport(manifest: BatchManifest, run: LocalRun, since = run.startedAt): string[] {
  const seconds = ((Date.now() - since) / 1000).toFixed(1);
  const counts = manifest.counts;
  const lines = [
    `batch ${manifest.batchId}: ${manifest.status} in ${seconds} s (bureau ${manifest.bureau.toUpperCase()})`,
    ...(['screened', 'cached', 'duplicate', 'invalid_document', 'failed', 'cancelled'] as const).map(
      (status) => `  ${status.padEnd(18)}${String(counts[status]).padStart(8)}`,
    ),
    `  ${'rows'.padEnd(18)}${String(counts.rows).padStart(8)}`,
  ];
  if (run.emulator) {
    const stats = run.emulator.stats();
    lines.push(
      `bureau requests ${stats.requests}, charged ${stats.charged} (emulator, epoch ${run.emulator.epoch}), peak ${stats.maxObservedRatePerSec} req/s`,
    );
  }
  return lines;
}

/**
 * Follows a batch to its end, downloads its results into `out` (default `out/<batchId>`), prints the counts with
 * `extraLines` after them, and turns a batch that did not complete into the command's error.
 */
export async function finishBatch(
  run: LocalRun,
  batchId: string,
  file: string,
  out: string | undefined,
  extraLines: (manifest: BatchManifest) => string[] = () => [],
  heading: string[] = [],
): Promise<BatchManifest> {
  const done = await run.follow(batchId);
  const directory = resolve(out ?? join('out', batchId));
  const manifest = await run.download(batchId, directory);
  const lines = [
    ...heading,
    ...batchReport(manifest, run),
    ...extraLines(manifest),
    `results in ${directory}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const failure = failureOf(manifest, done, file);
  if (failure) throw failure;
  return manifest;
}

/** A finished batch that did not complete becomes the command's error. */
export function failureOf(manifest: BatchManifest, done: BatchProgress, file: string): CliError | null {
  if (done.status === 'failed' || manifest.status === 'file_rejected')
    return new CliError(`${file}: ${manifest.failure?.message ?? 'the file was refused'}`);
  if (manifest.status === 'token_rejected')
    return new CliError(
      'the bureau rejected the token (Token inválido!): rows not queried are marked failed',
    );
  return null;
}
