import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import type { BatchManifest } from '../../../src/contract/index.ts';
import type { BatchProgress } from '../../local/local-pipeline.ts';
import {
  addLocalRunOptions,
  approveOrStop,
  batchReport,
  checkBeforeStarting,
  failureOf,
  finishBatch,
  type LocalRun,
  type LocalRunOptions,
  runLocally,
} from '../local-run.ts';
import { nonNegativeNumber } from '../option-parsers.ts';

interface ScreenOptions extends LocalRunOptions {
  readonly out?: string;
  /** Seconds between one file's upload and the next's (several files). */
  readonly stagger?: number;
  /** Upload under `incoming/<bureau>/priority/`: the priority lane. */
  readonly priority?: boolean;
}

async function screen(files: readonly string[], options: ScreenOptions): Promise<void> {
  for (const file of files) await checkBeforeStarting(options, file);
  const [first] = files;
  if (first === undefined) return;
  await runLocally(first, options, async (run) => {
    run.signal.throwIfAborted();
    if (files.length === 1) {
      const outcome = await run.pipeline.submit(resolve(first), options.bureau, {
        priority: options.priority,
        maxCharges: options.maxCharges,
      });
      await approveOrStop(run, outcome, options);
      await finishBatch(run, outcome.batchId, first, options.out);
      return;
    }
    await screenSeveral(run, files, options);
  });
}

/**
 * Several lists in one running pipeline, each its own batch: uploaded `--stagger` seconds apart (counted from one
 * upload to the next, whatever the ingest takes, as S3 notifies ingest asynchronously), followed together, each
 * one's results under `--out/<batchId>/` and its completion time counted from its own upload.
 */
async function screenSeveral(run: LocalRun, files: readonly string[], options: ScreenOptions): Promise<void> {
  const followers: Promise<void>[] = [];
  for (const [index, file] of files.entries()) {
    if (index > 0 && (options.stagger ?? 0) > 0)
      await sleep((options.stagger ?? 0) * 1000, undefined, { signal: run.signal });
    run.signal.throwIfAborted();
    const upload = await run.pipeline.upload(resolve(file), options.bureau, { priority: options.priority });
    const uploadedAt = Date.now();
    followers.push(
      run.pipeline
        .deliverUploadEvent(upload)
        .then((outcome) => followOne(run, outcome.batchId, file, uploadedAt, options.out)),
    );
  }
  const outcomes = await Promise.allSettled(followers);
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
}

/** One batch among several: plain progress lines (a bar per batch would interleave), then its report. */
async function followOne(
  run: LocalRun,
  batchId: string,
  file: string,
  uploadedAt: number,
  out: string | undefined,
): Promise<void> {
  process.stderr.write(`batch ${batchId}: ${file} ingested\n`);
  let reported = -1;
  const onProgress = (progress: BatchProgress) => {
    const { settledRows, totalRows } = progress;
    if (totalRows === null || totalRows === 0) return;
    // A line each tenth of the way, not one per poll.
    const tenth = Math.floor((settledRows / totalRows) * 10);
    if (tenth === reported) return;
    reported = tenth;
    process.stderr.write(`batch ${batchId}: ${settledRows}/${totalRows} rows settled\n`);
  };
  const done = await run.pipeline.waitForCompletion(batchId, { signal: run.signal, onProgress });
  const directory = resolve(join(out ?? 'out', batchId));
  const manifest: BatchManifest = await run.download(batchId, directory);
  const lines = [`${file}:`, ...batchReport(manifest, run, uploadedAt), `results in ${directory}`];
  process.stdout.write(`${lines.join('\n')}\n`);
  const failure = failureOf(manifest, done, file);
  if (failure) throw failure;
}

export function registerScreenCommand(program: Command): void {
  addLocalRunOptions(
    program
      .command('screen')
      .description(
        'Screen customer lists through the whole pipeline on this machine (no AWS account needed); several files are several batches sharing one pipeline',
      )
      .argument('<files...>', 'CSV files of CPFs/CNPJs, each its own batch')
      .option(
        '--out <dir>',
        'where to put summary.csv, reports.jsonl and manifest.json (default out/<batchId>; with several files <dir>/<batchId>)',
      )
      .option(
        '--stagger <seconds>',
        'with several files: wait this long between one upload and the next',
        nonNegativeNumber('--stagger'),
      )
      .option('--priority', 'upload under incoming/<bureau>/priority/: go ahead of large batches'),
  ).action(async (files: string[], options: ScreenOptions) => screen(files, options));
}
