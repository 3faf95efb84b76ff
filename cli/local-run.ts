import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  BUILT_IN_EMULATOR_ENDPOINT,
  type EmulatorStats,
  ServiceEmulator,
} from '../emulator/service-emulator.ts';
import type { WebhookDelivery } from '../src/adapters/webhook/webhook-delivery.ts';
import type { BatchManifest } from '../src/contract/index.ts';
import {
  bureausWith,
  DEFAULT_SETTINGS,
  type PipelineSettings,
  policyDecidedNothing,
} from '../src/contract/index.ts';
import { pricesOf } from './bureau-prices.ts';
import { CliError } from './cli-error.ts';
import { countLines, laterTarget } from './count-lines.ts';
import { abortOnInterrupt, type Interruption } from './interruption.ts';
import { readManifest } from './local/batch-results.ts';
import { BatchStalledError } from './local/follow-batch.ts';
import { type BatchProgress, LocalPipeline } from './local/local-pipeline.ts';
import { javaAvailable } from './local/local-services.ts';
import { LOCAL_RATE_LIMIT, localSettings } from './local/local-settings.ts';
import { LocalStateDirectory, LocalStateError } from './local/local-state.ts';
import { fileErrorReason, writePrivateFile } from './local/private-files.ts';
import {
  alertSettingsOf,
  settleWebhooks,
  startWebhooks,
  webhookHeadersOf,
  webhookSubscriptionsOf,
} from './local-webhooks.ts';
import type { CommandOptions } from './option-types.ts';
import { asLocalStartCliError } from './pipeline-connection.ts';
import { ProgressDisplay } from './progress-display.ts';
import { asCliError } from './read-customer-list.ts';
import { checkWritableDirectoryOption, resultsDirectory } from './results-directory.ts';
import { printable } from './terminal-text.ts';

/** Options of the commands that run the pipeline on this machine (`screen`, `rescreen`). */
export type LocalRunOptions = CommandOptions<'screen' | 'rescreen'>;

/** The pipeline's settings for a local run: the local defaults, with what the options change. */
function settingsFrom(options: LocalRunOptions, webhooks: WebhookDelivery | null): PipelineSettings {
  const local = localSettings(options.rateLimit ?? LOCAL_RATE_LIMIT);
  const prices = pricesOf(options);
  return {
    ...local,
    defaultBureau: options.bureau,
    excelSummary: options.excel === true,
    workerConcurrency: Math.max(2, options.concurrency ?? DEFAULT_SETTINGS.workerConcurrency),
    freshnessHours: options.freshnessHours ?? DEFAULT_SETTINGS.freshnessHours,
    rebuyChargeUnknown: options.rebuyChargeUnknown === true,
    reportLanguage: options.lang,
    approvalThreshold: options.approveAbove ?? DEFAULT_SETTINGS.approvalThreshold,
    bureaus: bureausWith(
      (bureau) => ({
        pricePerQuery: prices[bureau],
        monthlyChargeCap: options.monthlyCap ?? DEFAULT_SETTINGS.bureaus[bureau].monthlyChargeCap,
      }),
      local.bureaus,
    ),
    ...alertSettingsOf(webhooks?.subscriptions ?? []),
  };
}

/**
 * The emulator's stats as a results folder keeps them: documents are keyed by their HMAC-SHA256 under a salt of
 * this file's own (kept in it), so the file still counts charges per document (hash a document with the salt to
 * find its count) without holding a list of documents beside the results.
 */
function statsForResults(stats: EmulatorStats): Record<string, unknown> {
  const salt = randomBytes(16).toString('hex');
  const hash = (document: string) => createHmac('sha256', salt).update(document).digest('hex');
  return {
    ...stats,
    chargesByDocument: Object.fromEntries(
      Object.entries(stats.chargesByDocument).map(([document, count]) => [hash(document), count]),
    ),
    documentHash: {
      algorithm: 'HMAC-SHA256',
      salt,
      of: 'the normalised document (digits, or 14 characters)',
    },
  };
}

/** What a local-run command works with while the stack is up. */
export interface LocalRun {
  readonly pipeline: LocalPipeline;
  /** The run's webhooks (`--webhook`); null without. */
  readonly webhooks: WebhookDelivery | null;
  readonly emulator: ServiceEmulator | null;
  readonly signal: AbortSignal;
  /** Stops the run as Ctrl-C does (exit 130), for a Ctrl-C that arrives as a key at a prompt. */
  interrupt(): void;
  readonly startedAt: number;
  /** Follows a batch to its end with the progress bar (see {@link LocalPipeline.follow}); Ctrl-C interrupts it. */
  follow(batchId: string): Promise<BatchProgress>;
  /** Downloads the results into `directory`, with the emulator's stats beside them. */
  download(batchId: string, directory: string): Promise<BatchManifest>;
  /**
   * Keeps the results somewhere when `download` could not write them: with a state directory they are already
   * there (the bucket is written through to it); without, they go to a new private folder.
   */
  keep(batchId: string): Promise<{ readonly manifest: BatchManifest; readonly directory: string }>;
}

/**
 * Refuses what cannot work before anything starts: a real gateway without --live, a missing file, and a state or
 * results directory that cannot be written (a batch paid for and then lost for want of a folder costs money).
 */
export async function checkBeforeStarting(options: LocalRunOptions, file: string): Promise<void> {
  // --base-url without --live and --live without --base-url are refused with the options (option-table.ts).
  if (options.live && !(options.token ?? process.env.BUREAU_TOKEN))
    throw new CliError('--live needs the account token in BUREAU_TOKEN (or --token)');
  webhookSubscriptionsOf(options);
  webhookHeadersOf(options);
  try {
    const info = await stat(file);
    if (info.isDirectory()) throw Object.assign(new Error('a directory'), { code: 'EISDIR' });
    // A device or a pipe (/dev/zero, /dev/stdin) cannot be uploaded as a file of known size.
    if (!info.isFile()) throw new CliError(`cannot read ${file}: not a regular file`);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw asCliError(file, error);
  }
  if (options.state !== false) {
    try {
      await LocalStateDirectory.check(options.state);
    } catch (error) {
      if (error instanceof LocalStateError) throw new CliError(`--state ${error.message}`);
      throw error;
    }
    await checkWritableDirectoryOption('--state', options.state);
  }
}

/**
 * The engine a local run uses: `--engine`, else DynamoDB Local when Java is on PATH, else the memory engine (Node
 * alone), which keeps no state: said in one line, with how to get Java. The results are the same either way.
 */
export function withEngine<Options extends LocalRunOptions>(options: Options): Options {
  const engine = options.engine ?? (javaAvailable() ? 'dynamodb-local' : 'memory');
  if (engine === 'dynamodb-local') return { ...options, engine };
  process.stderr.write(
    `${options.engine === undefined ? 'no Java on PATH' : '--engine memory'}: running on the memory engine (Node alone), which keeps nothing between runs (no state directory); with Java 17+ on PATH (e.g. apt-get install openjdk-17-jre-headless) runs keep their state in --state\n`,
  );
  return { ...options, engine, state: false, fresh: false };
}

/** A promise that rejects with the signal's reason once it is aborted. */
function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** Starts the bundled emulator, unless the run calls a real gateway (`--live`). */
async function startEmulator(options: LocalRunOptions): Promise<ServiceEmulator | null> {
  if (options.live) return null;
  return ServiceEmulator.start({
    latencyMs: options.emulatorLatency,
    errorRate: options.emulatorErrorRate,
    rateLimitPerSecond: options.emulatorRateLimit ?? null,
    epoch: options.epoch,
  });
}

/** Starts the local pipeline against the emulator, or with `--live` against the real gateway and its token. */
async function startPipeline(
  options: LocalRunOptions,
  emulator: ServiceEmulator | null,
  webhooks: WebhookDelivery | null,
): Promise<LocalPipeline> {
  process.stderr.write(
    `starting ${options.engine === 'memory' ? 'the in-memory table' : 'DynamoDB Local'}, S3/SQS (fauxqs) and the bureau emulator…\n`,
  );
  return LocalPipeline.start({
    engine: options.engine,
    settings: settingsFrom(options, webhooks),
    bureauBaseUrl: options.baseUrl ?? (emulator as ServiceEmulator).url,
    token: options.live
      ? ((options.token ?? process.env.BUREAU_TOKEN) as string)
      : (options.token ?? (emulator as ServiceEmulator).token),
    // Recorded on each batch: only a run calling the same bureau continues it.
    ...(options.live ? {} : { bureauEndpoint: BUILT_IN_EMULATOR_ENDPOINT }),
    stateDirectory: options.state === false ? undefined : options.state,
    fresh: options.fresh,
    ...(webhooks === null ? {} : { alsoPublishTo: webhooks }),
  });
}

/** Says on stderr where the services listen, and what the state directory held from an earlier, killed run. */
function announceStack(
  pipeline: LocalPipeline,
  emulator: ServiceEmulator | null,
  state: string | false,
): void {
  const { endpoints } = pipeline.stack;
  const table =
    pipeline.stack.engine === 'memory' ? 'table in memory' : `DynamoDB Local ${endpoints.dynamodb}`;
  process.stderr.write(
    `local stack: ${table}, S3/SQS ${endpoints.s3AndSqs}` +
      `${emulator ? `, bureau emulator ${emulator.url}` : ''}` +
      `${state ? `; state in ${printable(pipeline.stack.state?.directory ?? state)}` : ''}\n`,
  );
  const reclaimed = pipeline.stack.state?.reclaimed ?? [];
  if (reclaimed.length > 0)
    process.stderr.write(
      `stopped DynamoDB Local (pid ${reclaimed.join(', ')}) left running on this state by a run that was killed\n`,
    );
  if (pipeline.resumed) {
    process.stderr.write(
      `an interrupted run left unfinished batches here: ${pipeline.resumed.requeued} documents queued again; \`credit-screen resume\` finishes them\n`,
    );
  }
}

/** The {@link LocalRun} a command's body works with, on a started pipeline. */
function localRun(
  pipeline: LocalPipeline,
  emulator: ServiceEmulator | null,
  webhooks: WebhookDelivery | null,
  interruption: Interruption,
  progress: ProgressDisplay,
): LocalRun {
  const { signal } = interruption;
  const run: LocalRun = {
    pipeline,
    emulator,
    webhooks,
    signal,
    interrupt: interruption.interrupt,
    startedAt: Date.now(),
    follow: async (batchId) => {
      const done = await pipeline.follow(batchId, {
        signal,
        onProgress: (state) => progress.update(state.settledRows, state.totalRows, state.status),
      });
      progress.stop();
      return done;
    },
    download: async (batchId, directory) => {
      const { manifest } = await pipeline.downloadResults(batchId, directory);
      if (emulator)
        await writePrivateFile(
          join(directory, 'emulator-stats.json'),
          `${JSON.stringify(statsForResults(emulator.stats()), null, 2)}\n`,
        );
      return manifest;
    },
    keep: async (batchId) => {
      const kept = pipeline.stack.state;
      if (kept) {
        const manifest = await readManifest(pipeline.adapters.objects, batchId);
        if (manifest === null) throw new Error(`batch ${batchId} has no results`);
        return { manifest, directory: join(kept.objectsPath, 'results', batchId) };
      }
      // mkdtemp makes the folder 0700.
      const directory = await mkdtemp(join(tmpdir(), `credit-screen-results-${batchId}-`));
      return { manifest: await run.download(batchId, directory), directory };
    },
  };
  return run;
}

/** What a local run that failed tells the user: the interruption, a local service that did not start, or the file. */
function runFailure(error: unknown, signal: AbortSignal, file: string): unknown {
  if (signal.aborted && signal.reason instanceof CliError) return signal.reason;
  if (error instanceof BatchStalledError) return new CliError(error.message);
  const local = asLocalStartCliError(error);
  if (local !== error) return local;
  return asCliError(file, error);
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
  const interruption = abortOnInterrupt('interrupted; everything started was stopped', ['SIGINT', 'SIGTERM']);
  const { signal } = interruption;
  let emulator: ServiceEmulator | null = null;
  let pipeline: LocalPipeline | null = null;
  let webhooks: WebhookDelivery | null = null;
  const progress = new ProgressDisplay();
  try {
    webhooks = startWebhooks(options);
    emulator = await startEmulator(options);
    pipeline = await startPipeline(options, emulator, webhooks);
    announceStack(pipeline, emulator, options.state);
    signal.throwIfAborted();
    // Ctrl-C is honoured even while the body waits on something that does not listen to the signal.
    const work = body(localRun(pipeline, emulator, webhooks, interruption, progress));
    work.catch(() => undefined);
    return await Promise.race([work, rejectOnAbort(signal)]);
  } catch (error) {
    progress.stop();
    throw runFailure(error, signal, file);
  } finally {
    interruption.release();
    // Events of a run that ended before its batch's results (a batch left waiting for approval) still go out.
    if (!signal.aborted) await settleWebhooks(webhooks, options.state === false ? null : options.state);
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
  const lines = [
    `batch ${manifest.batchId}: ${manifest.status} in ${seconds} s (bureau ${manifest.bureau.toUpperCase()})`,
    ...countLines(manifest, laterTarget(run.pipeline.stack.state?.directory)),
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
  const directory = resultsDirectory(out, batchId);
  const { manifest, kept } = await downloadOrKeep(run, batchId, directory);
  const lines = [
    ...heading,
    ...batchReport(manifest, run),
    ...extraLines(manifest),
    `results in ${printable(kept?.directory ?? directory)}`,
    ...(manifest.files?.report
      ? [`report: ${printable(join(kept?.directory ?? directory, basename(manifest.files.report)))}`]
      : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  await settleWebhooks(run.webhooks, kept?.directory ?? directory);
  if (kept)
    throw new CliError(
      `could not write the results to ${directory} (${kept.reason}); they are kept in ${kept.directory}`,
    );
  const failure = failureOf(manifest, done, file);
  if (failure) throw failure;
  return manifest;
}

/**
 * Downloads the results into `directory`; if that fails (the folder went away, the disk filled up), the paid-for
 * results are kept elsewhere and `kept` says where and why.
 */
async function downloadOrKeep(
  run: LocalRun,
  batchId: string,
  directory: string,
): Promise<{ manifest: BatchManifest; kept: { directory: string; reason: string } | null }> {
  try {
    return { manifest: await run.download(batchId, directory), kept: null };
  } catch (error) {
    run.signal.throwIfAborted();
    const reason = fileErrorReason(error);
    try {
      const kept = await run.keep(batchId);
      return { manifest: kept.manifest, kept: { directory: kept.directory, reason } };
    } catch (keepError) {
      throw new CliError(
        `could not write the results to ${directory} (${reason}), nor keep them (${fileErrorReason(keepError)})`,
      );
    }
  }
}

/** A finished batch that did not complete becomes the command's error. */
export function failureOf(manifest: BatchManifest, done: BatchProgress, file: string): CliError | null {
  if (done.status === 'failed' || manifest.status === 'file_rejected')
    return new CliError(`${file}: ${manifest.failure?.message ?? 'the file was refused'}`);
  if (manifest.status === 'token_rejected')
    return new CliError(
      'the bureau rejected the token (Token inválido!): rows not queried are marked failed',
    );
  if (policyDecidedNothing(manifest.decisions))
    return new CliError(
      `the policy ${manifest.policy?.name ?? ''} could not decide any row: every decision is POLICY_ERROR (a review); see reports.jsonl for why, and check the policy with decide before screening again`,
    );
  return null;
}
