import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceEmulator } from '../../emulator/service-emulator.ts';
import { CHARGE_UNKNOWN_DETAIL } from '../../src/domain/batch/index.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { parseSummary, writeCsv } from '../factories/pipeline.ts';
import { type RunningCli, runCli, startCli } from '../factories/run-cli.ts';

/**
 * One emulator, in this process, answers every run of a test (the interrupted one and the rerun): its charges
 * per document are what the account would be billed across both. The runs reach it as a gateway (`--base-url`).
 */
let emulator: ServiceEmulator;
beforeAll(async () => {
  emulator = await ServiceEmulator.start();
});
afterAll(async () => {
  await emulator.close();
});

const DOCUMENTS = 40;

function gateway(): string[] {
  return ['--base-url', emulator.url, '--live', '--token', emulator.token];
}

/** The largest `progress: n/` count the run has written so far. */
function settledSoFar(run: RunningCli): number {
  return Math.max(0, ...[...run.stderr().matchAll(/progress: (\d+)\//g)].map((match) => Number(match[1])));
}

/** Resolves once `check` holds, polling; fails if the run ends first (it would have nothing left to show). */
async function until(run: RunningCli, check: () => boolean | Promise<boolean>): Promise<void> {
  let ended = false;
  void run.done.then(() => {
    ended = true;
  });
  while (!(await check())) {
    if (ended) throw new Error(`the run ended first:\n${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A list of distinct documents, a state directory and the arguments of a `screen` of it on that state. */
async function interruptible(seed: string) {
  emulator.reset();
  emulator.configure({ hangRate: 0 });
  const cwd = await mkdtemp(join(tmpdir(), 'credit-screen-cli-'));
  const documents = distinctDocuments(DOCUMENTS, seed);
  const file = await writeCsv('list.csv', customerListCsv(documents));
  const state = join(cwd, 'state');
  // No reuse of stored reports: a second batch would buy every document again, so only a resume keeps the count.
  const screen = (rate: string, out: string) => [
    'screen',
    file,
    '--state',
    state,
    '--out',
    join(cwd, out),
    '--freshness-hours',
    '0',
    '--rate-limit',
    rate,
    '--concurrency',
    '2',
    ...gateway(),
  ];
  return { cwd, documents, state, screen };
}

/** What the emulator charged, per document of the list, in the list's order. */
function chargesOf(documents: readonly string[]): number[] {
  const { chargesByDocument } = emulator.stats();
  return documents.map((document) => chargesByDocument[document] ?? 0);
}

async function batchesOf(state: string, cwd: string): Promise<{ batchId: string; status: string }[]> {
  return JSON.parse((await runCli(['batches', '--state', state, '--json'], { cwd })).stdout);
}

async function manifestIn(directory: string) {
  return JSON.parse(await readFile(join(directory, 'manifest.json'), 'utf8'));
}

const RESUMING = /resuming batch ([0-9a-f]{24}) of \S*list\.csv, interrupted at (\d+)\/40/;

describe('screen run again on a file whose batch was interrupted', () => {
  it('after Ctrl-C at about 40 %, resumes that batch: one batch id, each document charged once', async () => {
    const { cwd, documents, state, screen } = await interruptible('rerun after ctrl-c');
    // Two a second: the interruption lands mid-batch even when a loaded machine reads the progress late.
    const first = startCli(screen('2', 'first'), { cwd });
    await until(first, () => settledSoFar(first) >= 16);
    first.kill('SIGINT');
    const interrupted = await first.done;
    const chargedBefore = emulator.stats().charged;

    const rerun = await runCli(screen('8', 'rerun'), { cwd });
    const manifest = await manifestIn(join(cwd, 'rerun'));
    const batches = await batchesOf(state, cwd);

    expect(interrupted.code).toBe(130);
    expect(chargedBefore).toBeGreaterThanOrEqual(16);
    expect(chargedBefore).toBeLessThan(DOCUMENTS);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toMatch(RESUMING);
    expect(rerun.stderr.match(RESUMING)?.[1]).toBe(manifest.batchId);
    expect(batches).toEqual([expect.objectContaining({ batchId: manifest.batchId, status: 'completed' })]);
    expect(manifest.counts).toMatchObject({ rows: DOCUMENTS, screened: DOCUMENTS, failed: 0 });
    expect(chargesOf(documents)).toEqual(documents.map(() => 1));
    expect(emulator.stats().charged).toBe(DOCUMENTS);
  }, 420_000);

  it('after kill -9 at about 40 %, resumes that batch to its end from what was on disk: no document bought twice, none in flight bought again', async () => {
    const { cwd, documents, state, screen } = await interruptible('rerun after kill -9');
    const first = startCli(screen('4', 'first'), { cwd });
    await until(first, () => settledSoFar(first) >= 16);
    // From now on the bureau answers nothing (and charges nothing). The run is killed once every answer it paid
    // for is on disk: the write-ahead, not the kill's timing, decides what a rerun may buy again.
    emulator.configure({ hangRate: 1 });
    const paid = emulator.stats().charged;
    const answers = join(state, 's3', 'raw', 'a');
    await until(first, async () => {
      const [batchId] = await readdir(answers).catch(() => []);
      return batchId !== undefined && (await readdir(join(answers, batchId))).length === paid;
    });
    first.kill('SIGKILL');
    const killed = await first.done;
    emulator.configure({ hangRate: 0 });
    const [batchId] = await readdir(answers);
    const upload = await readdir(join(state, 's3', 'incoming', 'a'));

    const rerun = await runCli(screen('8', 'rerun'), { cwd });
    const manifest = await manifestIn(join(cwd, 'rerun'));
    const batches = await batchesOf(state, cwd);
    const resume = await runCli(['resume', '--state', state], { cwd });

    // The calls out at the kill (to a bureau that hung) may have been charged, as far as anyone can tell: their rows
    // end failed, charge unknown, and are not bought again; every other row is screened, each bought once.
    const summary = parseSummary(await readFile(join(cwd, 'rerun', 'summary.csv'), 'utf8'));
    const lost = summary.filter((row) => row.status_detail === CHARGE_UNKNOWN_DETAIL);
    const lostDocuments = new Set(lost.map((row) => row.document));

    expect(killed.code).toBeNull();
    expect(upload).toHaveLength(1);
    expect(paid).toBeLessThan(DOCUMENTS);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr.match(RESUMING)?.[1]).toBe(batchId);
    expect(manifest).toMatchObject({ batchId, status: 'completed' });
    expect(manifest.counts).toMatchObject({
      rows: DOCUMENTS,
      screened: DOCUMENTS - lost.length,
      failed: lost.length,
    });
    expect(manifest.charges.charge_unknown).toBe(lost.length);
    expect(batches).toEqual([expect.objectContaining({ batchId, status: 'completed' })]);
    expect(chargesOf(documents)).toEqual(documents.map((document) => (lostDocuments.has(document) ? 0 : 1)));
    expect(emulator.stats().charged).toBe(DOCUMENTS - lost.length);
    expect(resume.code).toBe(0);
    expect(resume.stdout.trim()).toBe(`nothing to resume in local state ${state}`);
  }, 420_000);

  it('after kill -9, resume itself ends: the batch completes with every row, and its results are written', async () => {
    const { cwd, state, screen } = await interruptible('resume after kill -9');
    const first = startCli(screen('4', 'first'), { cwd });
    await until(first, () => settledSoFar(first) >= 16);
    first.kill('SIGKILL');
    await first.done;

    // The batch is finished by the bureau it was started against, with its token.
    const resume = await runCli(['resume', '--state', state], {
      cwd,
      env: { BUREAU_TOKEN: emulator.token },
    });
    const [batch] = await batchesOf(state, cwd);
    const manifest = await manifestIn(join(cwd, 'out', batch?.batchId ?? ''));

    expect(resume.code).toBe(0);
    expect(resume.stdout).toMatch(/resuming 1 batch \(\d+ documents queued again\)/);
    expect(batch?.status).toBe('completed');
    // A call out at the kill may have been charged: its row ends failed, charge unknown, and is not bought again.
    expect(manifest.counts.rows).toBe(DOCUMENTS);
    expect(manifest.counts.screened + manifest.counts.failed).toBe(DOCUMENTS);
    expect(manifest.counts.failed).toBe(manifest.charges.charge_unknown);
    // Every row's last progress line is written once, not once a poll.
    expect(resume.stderr.match(/progress: 40\/40/g)).toHaveLength(1);
  }, 420_000);
});
