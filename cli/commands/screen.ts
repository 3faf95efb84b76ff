import { stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { BureauEmulator } from '../../emulator/bureau-emulator.ts';
import { BUREAUS, type Bureau } from '../../lambdas/core/report/index.ts';
import { DEFAULT_SETTINGS, type PipelineSettings } from '../../lib/pipeline-definition.ts';
import { LocalPipeline } from '../../local/local-pipeline.ts';
import { LocalStackError } from '../../local/local-stack.ts';
import { CliError } from '../cli-error.ts';
import { nonNegativeNumber, positiveInteger, probability } from '../option-parsers.ts';
import { ProgressDisplay } from '../progress-display.ts';
import { asCliError } from '../read-customer-list.ts';

interface ScreenOptions {
  readonly bureau: Bureau;
  readonly out?: string;
  readonly excel?: boolean;
  readonly concurrency?: number;
  readonly rateLimit?: number;
  readonly token?: string;
  readonly freshnessHours?: number;
  readonly emulatorLatency: number;
  readonly emulatorErrorRate: number;
  readonly emulatorRateLimit?: number;
  readonly baseUrl?: string;
  readonly live?: boolean;
}

/** Local default of the global rate limit: the emulator has no limit of its own unless asked for one. */
const LOCAL_RATE_LIMIT = 50;

function settingsFrom(options: ScreenOptions): PipelineSettings {
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

async function screen(file: string, options: ScreenOptions): Promise<void> {
  if (options.baseUrl !== undefined && !options.live) {
    throw new CliError(
      '--base-url calls a real bureau gateway and spends real credits: add --live to confirm',
    );
  }
  if (options.live && options.baseUrl === undefined)
    throw new CliError('--live needs --base-url <gateway URL>');
  const liveToken = options.token ?? process.env.BUREAU_TOKEN;
  if (options.live && !liveToken)
    throw new CliError('--live needs the account token in BUREAU_TOKEN (or --token)');

  // A missing or unreadable file is reported before anything is started.
  try {
    const info = await stat(file);
    if (!info.isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
  } catch (error) {
    throw asCliError(file, error);
  }

  const controller = new AbortController();
  const interrupt = () => controller.abort(new CliError('interrupted; everything started was stopped', 130));
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const started = Date.now();
  let emulator: BureauEmulator | null = null;
  let pipeline: LocalPipeline | null = null;
  const progress = new ProgressDisplay();
  try {
    if (!options.live) {
      emulator = await BureauEmulator.start({
        latencyMs: options.emulatorLatency,
        errorRate: options.emulatorErrorRate,
        rateLimitPerSecond: options.emulatorRateLimit ?? null,
      });
    }
    const settings = settingsFrom(options);
    process.stderr.write('starting DynamoDB Local, S3/SQS (fauxqs) and the bureau emulator…\n');
    pipeline = await LocalPipeline.start({
      settings,
      bureauBaseUrl: options.baseUrl ?? (emulator as BureauEmulator).url,
      token: options.live ? (liveToken as string) : (options.token ?? (emulator as BureauEmulator).token),
    });
    const { endpoints } = pipeline.stack;
    process.stderr.write(
      `local stack: DynamoDB Local ${endpoints.dynamodb}, S3/SQS ${endpoints.s3AndSqs}` +
        `${emulator ? `, bureau emulator ${emulator.url}` : ''}\n`,
    );
    controller.signal.throwIfAborted();
    const outcome = await pipeline.submit(resolve(file), options.bureau);
    const done = await pipeline.waitForCompletion(outcome.batchId, {
      signal: controller.signal,
      onProgress: (state) => progress.update(state.settledRows, state.totalRows),
    });
    progress.stop();
    const directory = resolve(options.out ?? join('out', outcome.batchId));
    const { manifest } = await pipeline.downloadResults(outcome.batchId, directory);
    if (emulator)
      await writeFile(
        join(directory, 'emulator-stats.json'),
        `${JSON.stringify(emulator.stats(), null, 2)}\n`,
      );

    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const counts = manifest.counts;
    const lines = [
      `batch ${manifest.batchId}: ${manifest.status} in ${seconds} s (bureau ${manifest.bureau.toUpperCase()})`,
      ...(['screened', 'cached', 'duplicate', 'invalid_document', 'failed'] as const).map(
        (status) => `  ${status.padEnd(18)}${String(counts[status]).padStart(8)}`,
      ),
      `  ${'rows'.padEnd(18)}${String(counts.rows).padStart(8)}`,
    ];
    if (emulator) {
      const stats = emulator.stats();
      lines.push(
        `bureau requests ${stats.requests}, charged ${stats.charged} (emulator), peak ${stats.maxObservedRatePerSec} req/s`,
      );
    }
    lines.push(`results in ${directory}`);
    process.stdout.write(`${lines.join('\n')}\n`);
    if (done.status === 'failed' || manifest.status === 'file_rejected') {
      throw new CliError(`${file}: ${manifest.failure?.message ?? 'the file was refused'}`);
    }
    if (manifest.status === 'token_rejected') {
      throw new CliError(
        'the bureau rejected the token (Token inválido!): rows not queried are marked failed',
      );
    }
  } catch (error) {
    progress.stop();
    if (controller.signal.aborted && controller.signal.reason instanceof CliError)
      throw controller.signal.reason;
    if (error instanceof LocalStackError) throw new CliError(error.message);
    throw asCliError(file, error);
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    await pipeline?.stop();
    await emulator?.close();
  }
}

export function registerScreenCommand(program: Command): void {
  program
    .command('screen')
    .description('Screen a customer list through the whole pipeline on this machine (no AWS account needed)')
    .argument('<file>', 'CSV file of CPFs/CNPJs')
    .addOption(new Option('--bureau <bureau>', 'bureau to query').choices(BUREAUS).default('a'))
    .option(
      '--out <dir>',
      'where to put summary.csv, reports.jsonl and manifest.json (default out/<batchId>)',
    )
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
      '--token <token>',
      'token the pipeline sends (the embedded emulator accepts only its own dev token)',
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
    .option('--live', 'confirm that real queries, paid in real credits, may be made')
    .action(async (file: string, options: ScreenOptions) => screen(file, options));
}
