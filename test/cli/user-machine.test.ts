import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { parseSummary } from '../factories/pipeline.ts';
import { isAlive, processesMentioning } from '../factories/processes.ts';
import { runCli, startCli } from '../factories/run-cli.ts';

// What `screen` may do to the folders it is pointed at, and what it leaves behind when it is killed.

let folder: string;
let list: string;
const DOCUMENTS = 6;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'credit-screen-machine-'));
  list = join(folder, 'lista.csv');
  await writeFile(list, customerListCsv(distinctDocuments(DOCUMENTS, 'user-machine')));
});

const modeOf = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

/** Options that keep a run going for several seconds, so a test can act while it runs. */
const SLOW = ['--emulator-latency', '400', '--rate-limit', '2', '--concurrency', '1'];

describe('credit-screen screen --state --fresh', () => {
  it('refuses to empty a folder that is not a state directory, and leaves every file in it', async () => {
    const work = await mkdtemp(join(tmpdir(), 'credit-screen-work-'));
    await writeFile(join(work, 'lista.csv'), await readFile(list));
    await writeFile(join(work, 'notas.txt'), 'keep me');

    const result = await runCli(['screen', 'lista.csv', '--state', '.', '--fresh'], { cwd: work });

    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/--state .* is not a credit-screen state directory/);
    expect((await readdir(work)).sort()).toEqual(['lista.csv', 'notas.txt']);
  });
});

describe('credit-screen screen --out', () => {
  it.each([
    ['a file', async () => list, /--out .*lista\.csv: not a directory: nothing was screened/],
    ['a folder under a file', async () => join(list, 'results'), /: not a directory: nothing was screened/],
    [
      '/proc, where nothing can be created',
      async () => '/proc/credit-screen-results',
      /cannot be created there/,
    ],
  ])('refuses %s before anything is bought, at once and with one line', async (_label, out, pattern) => {
    const started = Date.now();

    const result = await runCli(['screen', list, '--no-state', '--out', await out()], { cwd: folder });

    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(pattern)]);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('writes the results private: the folders it creates 0700, the files 0600', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'credit-screen-out-')), 'new', 'results');

    const result = await runCli(['screen', list, '--no-state', '--out', out], { cwd: folder });

    expect(result.code).toBe(0);
    expect([await modeOf(join(out, '..')), await modeOf(out)]).toEqual(['700', '700']);
    const files = await readdir(out);
    expect(files.sort()).toEqual([
      'emulator-stats.json',
      'manifest.json',
      'report.html',
      'reports.jsonl',
      'summary.csv',
    ]);
    for (const file of files) expect(`${file} ${await modeOf(join(out, file))}`).toBe(`${file} 600`);
  }, 120_000);

  it.each([
    ['without a state directory, in a new private folder', false],
    ['in the state directory', true],
  ])(
    'keeps the paid results and says where when --out can no longer be written at the end: %s',
    async (_label, withState) => {
      const base = await mkdtemp(join(tmpdir(), 'credit-screen-out-'));
      const out = join(base, 'results');
      const state = withState ? ['--state', join(base, 'state')] : ['--no-state'];
      const run = startCli(['screen', list, ...state, '--out', out, ...SLOW], { cwd: folder });
      await expect.poll(() => /progress: [1-9]/.test(run.stderr()), { timeout: 60_000 }).toBe(true);
      // While the batch runs, the folder is replaced by a file.
      await rm(out, { recursive: true, force: true });
      await writeFile(out, 'in the way');

      const result = await run.done;

      expect(result.code).toBe(2);
      const kept = result.stderr.match(
        /credit-screen: could not write the results to .*results \(not a directory\); they are kept in (\S+)\n$/,
      )?.[1];
      expect(kept, result.stderr).toBeDefined();
      if (withState)
        expect(kept).toMatch(new RegExp(`^${join(base, 'state', 's3', 'results')}/[0-9a-f]{24}$`));
      const summary = parseSummary(await readFile(join(kept as string, 'summary.csv'), 'utf8'));
      expect(summary.filter((line) => line.status === 'screened')).toHaveLength(DOCUMENTS);
      expect(await modeOf(kept as string)).toBe('700');
      expect(result.stdout).toContain(`results in ${kept}`);
    },
    120_000,
  );
});

describe('credit-screen screen killed with kill -9', () => {
  const leftovers: number[] = [];
  afterAll(() => {
    for (const pid of leftovers) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  });

  it('leaves no DynamoDB Local running, and the next run on the same state works', async () => {
    const state = join(await mkdtemp(join(tmpdir(), 'credit-screen-state-')), 'state');
    const database = join(state, 'dynamodb');
    const run = startCli(['screen', list, '--state', state, ...SLOW], { cwd: folder });
    await expect.poll(() => /progress: [1-9]/.test(run.stderr()), { timeout: 60_000 }).toBe(true);
    const servers = await processesMentioning(database);
    leftovers.push(...servers);
    expect(servers).toHaveLength(1);

    run.kill('SIGKILL');
    await run.done;

    await expect
      .poll(async () => (await processesMentioning(database)).length, { timeout: 15_000, interval: 250 })
      .toBe(0);
    const next = await runCli(['screen', list, '--state', state, '--out', join(state, '..', 'out')], {
      cwd: folder,
    });
    expect(next.stderr).not.toContain('in use by another');
    expect(next.code).toBe(0);
  }, 180_000);
});
