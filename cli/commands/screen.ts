import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { BUILT_IN_EMULATOR_ENDPOINT } from '../../emulator/service-emulator.ts';
import type { IngestOutcome } from '../../src/application/ingest/ingest-upload.ts';
import type { BatchManifest } from '../../src/contract/index.ts';
import type { BatchRecord } from '../../src/domain/batch/index.ts';
import { decideApproval, type WaitingBatch } from '../approval-prompt.ts';
import { CliError } from '../cli-error.ts';
import { progressOf } from '../local/batch-results.ts';
import type { BatchProgress, UploadOptions } from '../local/local-pipeline.ts';
import { localSettings } from '../local/local-settings.ts';
import {
  batchReport,
  checkBeforeStarting,
  failureOf,
  finishBatch,
  type LocalRun,
  runLocally,
  withEngine,
} from '../local-run.ts';
import { addTableAction } from '../option-parsers.ts';
import type { CommandOptions } from '../option-types.ts';
import { readPolicyOption } from '../policy-option.ts';
import { checkWholeListFile } from '../read-customer-list.ts';
import { checkResultsDirectoryOption } from '../results-directory.ts';
import { printable } from '../terminal-text.ts';

type ScreenOptions = CommandOptions<'screen'>;

/** What a run resumes: batches an earlier run left screening, finalising, or waiting for approval. */
const RESUMABLE: ReadonlySet<BatchRecord['status']> = new Set(['running', 'finalising', 'awaiting_approval']);

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * The batch an earlier run on this state left unfinished for `file` (the same content, by its SHA-256 as ingest
 * recorded it, for the same bureau), the newest, unless `--new-batch` or another file of this run took it: a rerun
 * goes on with that batch instead of buying its documents again in a second one.
 */
async function unfinishedBatchOf(
  run: LocalRun,
  file: string,
  options: ScreenOptions,
  taken: Set<string>,
): Promise<BatchRecord | null> {
  if (options.newBatch) return null;
  const candidates = run.pipeline.unfinishedBatches.filter(
    (batch) =>
      RESUMABLE.has(batch.status) &&
      batch.portfolio === null &&
      batch.bureau === options.bureau &&
      batch.sourceSha256 !== null &&
      !taken.has(batch.batchId),
  );
  if (candidates.length === 0) return null;
  const sha256 = await sha256Of(file);
  const batch = candidates.find((candidate) => candidate.sourceSha256 === sha256) ?? null;
  if (batch !== null && !run.pipeline.continues(batch))
    throw new CliError(
      `batch ${batch.batchId} of ${printable(file)} was started against ${printable(batch.bureauEndpoint ?? BUILT_IN_EMULATOR_ENDPOINT)}, not the bureau this run calls: nothing was sent. ${
        (batch.bureauEndpoint ?? BUILT_IN_EMULATOR_ENDPOINT) === BUILT_IN_EMULATOR_ENDPOINT
          ? 'Continue it without --live'
          : 'Continue it there (the same --live --base-url and BUREAU_TOKEN)'
      }, or screen it as a new batch with --new-batch`,
    );
  if (batch !== null) {
    taken.add(batch.batchId);
    const { settledRows, totalRows } = progressOf(batch);
    process.stderr.write(
      `resuming batch ${batch.batchId} of ${printable(file)}, ${
        batch.status === 'awaiting_approval'
          ? 'waiting for approval'
          : `interrupted at ${settledRows}/${totalRows ?? '?'}`
      } (--new-batch screens it as a new batch)\n`,
    );
  }
  return batch;
}

/** A resumed batch as ingest would have answered for it: waiting for approval, or on its way. */
function outcomeOf(batch: BatchRecord): IngestOutcome | WaitingOutcome {
  return batch.status === 'awaiting_approval'
    ? { batchId: batch.batchId, outcome: 'awaiting_approval', quote: batch.quote }
    : { batchId: batch.batchId, outcome: 'already_ingested' };
}

type WaitingOutcome = WaitingBatch & { readonly outcome: 'awaiting_approval' };

async function screen(files: readonly string[], given: ScreenOptions): Promise<void> {
  const options = withEngine(given);
  for (const file of files) await checkBeforeStarting(options, file);
  // One file is checked whole by ingest before anything is queued; several would be bought one after the other, so
  // each is read whole here first: a problem in the third file stops the run before the first is bought.
  if (files.length > 1) for (const file of files) await checkWholeListFile(file, localSettings().maxRows);
  // Compiled before anything starts: a broken policy is refused before any document is bought.
  const policy = await readPolicyOption(options.policy);
  // One file's results go into --out itself; several files' each into a folder of their own in it.
  await checkResultsDirectoryOption(options.out, files.length > 1 ? 'batch folders' : undefined);
  const [first] = files;
  if (first === undefined) return;
  await runLocally(first, options, async (run) => {
    run.signal.throwIfAborted();
    if (policy !== null) await run.pipeline.putPolicy(policy.name, policy.bytes);
    const upload = { priority: options.priority, maxCharges: options.maxCharges, policy: policy?.name };
    if (files.length === 1) {
      const resumed = await unfinishedBatchOf(run, first, options, new Set());
      const outcome = resumed
        ? outcomeOf(resumed)
        : await run.pipeline.submit(resolve(first), options.bureau, upload);
      if (outcome.outcome === 'awaiting_approval') {
        const stop = await decideApproval(run, outcome, options);
        if (stop) throw stop;
      }
      await finishBatch(run, outcome.batchId, first, options.out);
      return;
    }
    await screenSeveral(run, files, options, upload);
  });
}

/**
 * Several lists in one running pipeline, each its own batch: uploaded `--stagger` seconds apart (counted from one
 * upload to the next, whatever the ingest takes, as S3 notifies ingest asynchronously), followed together, each
 * one's results under `--out/<batchId>/` and its completion time counted from its own upload. A file whose batch an
 * earlier run left unfinished resumes it. A batch over the approval threshold is approved by `--yes` or asked
 * about at a terminal; without either it is not followed, and once the others have finished the run ends with exit
 * 2 and, for each such batch, the line that says how to approve it.
 */
async function screenSeveral(
  run: LocalRun,
  files: readonly string[],
  options: ScreenOptions,
  upload: UploadOptions,
): Promise<void> {
  const followers: Promise<void>[] = [];
  const unapproved: CliError[] = [];
  const taken = new Set<string>();
  for (const [index, file] of files.entries()) {
    if (index > 0 && (options.stagger ?? 0) > 0)
      await sleep((options.stagger ?? 0) * 1000, undefined, { signal: run.signal });
    run.signal.throwIfAborted();
    const resumed = await unfinishedBatchOf(run, file, options, taken);
    const ingested: Promise<IngestOutcome | WaitingOutcome> = resumed
      ? Promise.resolve(outcomeOf(resumed))
      : run.pipeline.deliverUploadEvent(await run.pipeline.upload(resolve(file), options.bureau, upload));
    const startedAt = Date.now();
    const follower = ingested.then(async (outcome) => {
      if (outcome.outcome === 'awaiting_approval') {
        const stop = await decideApproval(run, outcome, options);
        if (stop) {
          unapproved.push(stop);
          return;
        }
      }
      await followOne(run, outcome.batchId, file, startedAt, options.out);
    });
    // Seen below, once every file is on its way; meanwhile a failure must not count as unhandled.
    follower.catch(() => undefined);
    followers.push(follower);
  }
  const outcomes = await Promise.allSettled(followers);
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  const stops = failed === undefined ? unapproved : [...unapproved, (failed as PromiseRejectedResult).reason];
  // Every line but the last is written here; the last is the command's error, written as every refusal is.
  for (const stop of stops.slice(0, -1))
    process.stderr.write(
      `credit-screen: ${printable(stop instanceof Error ? stop.message : String(stop))}\n`,
    );
  if (stops.length > 0) throw stops[stops.length - 1];
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
  const done = await run.pipeline.follow(batchId, { signal: run.signal, onProgress });
  const directory = resolve(join(out ?? 'out', batchId));
  const manifest: BatchManifest = await run.download(batchId, directory);
  const lines = [`${file}:`, ...batchReport(manifest, run, uploadedAt), `results in ${directory}`];
  process.stdout.write(`${lines.join('\n')}\n`);
  const failure = failureOf(manifest, done, file);
  if (failure) throw failure;
}

export function registerScreenCommand(program: Command): void {
  addTableAction(
    program
      .command('screen')
      .description(
        'Screen customer lists through the whole pipeline on this machine (no AWS account needed); several files are several batches sharing one pipeline',
      )
      .argument('<files...>', 'CSV files of CPFs/CNPJs, each its own batch'),
    'screen',
    async (options, files: string[]) => screen(files, options),
  );
}
