import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, it } from 'vitest';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { isAlive, processesMentioning } from '../factories/processes.ts';
import { runCli, startCli } from '../factories/run-cli.ts';
import { caseFolder, expectOneErrorLine, expectOneLineRefusal, treeOf } from './harness.ts';

// The hostile-input corpus, part three: what only a real run shows, each in a child process as a user's shell
// starts it: what a finished run leaves on disk (nothing outside the folders it was given, all of it private, no
// document in a name), a file refused once the pipeline reads it (nothing bought), two runs on one state, and
// signals. They run side by side: most of their time is spent waiting on the local services.

const leftovers: number[] = [];
afterAll(() => {
  for (const pid of leftovers) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

/** Processes `pid` started (DynamoDB Local, fauxqs workers), to check none outlives it. */
async function childrenOf(pid: number): Promise<number[]> {
  const { stdout } = await promisify(execFile)('ps', ['-o', 'pid=', '--ppid', String(pid)]).catch(() => ({
    stdout: '',
  }));
  return stdout
    .split('\n')
    .map((line) => Number.parseInt(line.trim(), 10))
    .filter((child) => Number.isSafeInteger(child));
}

/** Options that keep a run going for several seconds, so a test can act while it runs. */
const SLOW = ['--emulator-latency', '300', '--rate-limit', '2', '--concurrency', '1'];

describe.concurrent('the hostile-input corpus, in runs of the whole pipeline', () => {
  it('cancel after a kill -9 counts every row it cancelled, the claimed ones too, as the results do', async ({
    expect,
  }) => {
    const cwd = await caseFolder('cancel-after-kill');
    await writeFile(join(cwd, 'clientes.csv'), customerListCsv(distinctDocuments(40, 'hostile cancel')));
    const run = startCli(['screen', 'clientes.csv', '--state', 'state', ...SLOW, '--concurrency', '3'], {
      cwd,
    });
    for (let waited = 0; !/progress: [3-9]\d*\//.test(run.stderr()) && waited < 120_000; waited += 100)
      await new Promise((resolve) => setTimeout(resolve, 100));
    run.kill('SIGKILL');
    await run.done;
    const listed = await runCli(['batches', '--state', 'state', '--json'], { cwd });
    const [batch] = JSON.parse(listed.stdout) as { batchId: string }[];

    const cancelled = await runCli(['cancel', batch?.batchId ?? '', '--state', 'state'], { cwd });

    expect(cancelled.code, cancelled.stderr).toBe(0);
    const manifest = JSON.parse(
      await readFile(join(cwd, 'out', batch?.batchId ?? '', 'manifest.json'), 'utf8'),
    );
    const last = cancelled.stdout.trimEnd().split('\n').at(-1);
    expect(last).toBe(
      `batch ${batch?.batchId}: ${manifest.counts.cancelled} rows cancelled in all, ${manifest.counts.screened} screened before the cancel`,
    );
    // A call out at the kill may have been charged: its row ends failed (charge unknown), neither cancelled nor
    // bought again.
    expect(manifest.counts.cancelled + manifest.counts.screened + manifest.counts.failed).toBe(40);
    expect(manifest.counts.failed).toBe(manifest.charges.charge_unknown);
    expect(manifest.counts.cancelled).toBeGreaterThan(0);
  }, 240_000);

  it('reads every file of a run of several before any is bought: a second file without documents stops it first', async ({
    expect,
  }) => {
    const cwd = await caseFolder('several-one-broken');
    await writeFile(join(cwd, 'clientes.csv'), customerListCsv(distinctDocuments(3, 'hostile several')));
    await writeFile(join(cwd, 'nomes.csv'), 'nome,valor\nAna,10\nBia,20\n');
    const before = await treeOf(cwd);

    const result = await runCli(
      ['screen', 'clientes.csv', 'nomes.csv', '--state', 'state', '--out', 'results'],
      {
        cwd,
      },
    );

    expectOneLineRefusal(
      result,
      /^credit-screen: nomes\.csv: no document column found; headers seen: "nome", "valor"/,
    );
    expect(await treeOf(cwd)).toEqual(before);
  });

  it('screens a list named after a CPF: only its folders written, all private, no document in any name, the title masked, the stats keyed by a salted hash', async ({
    expect,
  }) => {
    const cwd = await caseFolder('named');
    const documents = distinctDocuments(4, 'hostile named run');
    await writeFile(join(cwd, '529.982.247-25.csv'), customerListCsv(documents));

    const result = await runCli(
      ['screen', '529.982.247-25.csv', '--state', 'state', '--out', 'results', '--rate-limit', '200'],
      { cwd },
    );

    expect(result.stderr, result.stderr).not.toMatch(/^credit-screen: |^\s+at \S/m);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^writing results…$/m);
    const tree = await treeOf(cwd);
    const outside = Object.keys(tree).filter(
      (path) => path !== '529.982.247-25.csv' && !/^(state|results)(\/|$)/.test(path),
    );
    expect(outside).toEqual([]);
    const open = Object.entries(tree).filter(
      ([path, mode]) => path !== '529.982.247-25.csv' && mode !== '600' && mode !== '700',
    );
    expect(open).toEqual([]);
    expect(Object.keys(tree).filter((path) => /529\.?982\.?247-?25/.test(path))).toEqual([
      '529.982.247-25.csv',
    ]);
    const manifest = JSON.parse(await readFile(join(cwd, 'results', 'manifest.json'), 'utf8'));
    expect(manifest.source.name).toBe('***.982.247-**.csv');
    const page = await readFile(join(cwd, 'results', 'report.html'), 'utf8');
    expect(page).toMatch(/<h1><span class="file"[^>]*>\*\*\*\.982\.247-\*\*\.csv<\/span>/);
    const stats = JSON.parse(await readFile(join(cwd, 'results', 'emulator-stats.json'), 'utf8'));
    const hash = (document: string) =>
      createHmac('sha256', stats.documentHash.salt).update(document).digest('hex');
    expect(stats.chargesByDocument).toEqual(
      Object.fromEntries(documents.map((document) => [hash(document), 1])),
    );
    for (const name of ['manifest.json', 'report.html', 'emulator-stats.json'])
      for (const document of documents)
        expect(await readFile(join(cwd, 'results', name), 'utf8'), name).not.toContain(document);
  }, 240_000);

  it('refuses a gzip file once ingest reads it, in one line, having bought nothing', async ({ expect }) => {
    const cwd = await caseFolder('gzip');
    await writeFile(join(cwd, 'lista.csv'), gzipSync(customerListCsv(distinctDocuments(5, 'hostile gzip'))));

    const result = await runCli(['screen', 'lista.csv', '--no-state', '--out', 'results'], { cwd });

    expectOneErrorLine(result, /^credit-screen: lista\.csv: this file is gzip-compressed/);
    const stats = JSON.parse(await readFile(join(cwd, 'results', 'emulator-stats.json'), 'utf8'));
    expect(stats).toMatchObject({ requests: 0, charged: 0, chargesByDocument: {} });
    expect(JSON.parse(await readFile(join(cwd, 'results', 'manifest.json'), 'utf8')).status).toBe(
      'file_rejected',
    );
  }, 240_000);

  it('refuses a second run on a state the first holds, in one line; Ctrl-C then stops the first, leaving nothing running and no results', async ({
    expect,
  }) => {
    const cwd = await caseFolder('two-runs');
    await writeFile(join(cwd, 'lista.csv'), customerListCsv(distinctDocuments(20, 'hostile two runs')));
    const first = startCli(['screen', 'lista.csv', '--state', 'state', '--out', 'first', ...SLOW], { cwd });
    await expect
      .poll(() => /progress: /.test(first.stderr()), { timeout: 150_000, interval: 200 })
      .toBe(true)
      .catch((error: unknown) => {
        // Say what the first run printed instead (a run that ended early, a slow start), not only that it did not.
        throw new Error(
          `the first run printed no progress in 150 s; it said:\n${first.stderr().slice(-2000)}`,
          {
            cause: error,
          },
        );
      });
    const servers = await processesMentioning(join(cwd, 'state', 'dynamodb'));
    leftovers.push(...servers);

    const second = await runCli(['screen', 'lista.csv', '--state', 'state', '--out', 'second'], { cwd });
    first.kill('SIGINT');
    const interrupted = await first.done;

    expectOneLineRefusal(
      second,
      new RegExp(`--state .*state is in use by another credit-screen run \\(pid ${first.pid}\\): try again`),
    );
    expectOneErrorLine(interrupted, /^credit-screen: interrupted; everything started was stopped$/, 130);
    expect(servers).toHaveLength(1);
    await expect
      .poll(async () => (await processesMentioning(join(cwd, 'state', 'dynamodb'))).length, {
        timeout: 20_000,
      })
      .toBe(0);
    expect(Object.keys(await treeOf(cwd)).filter((path) => /^(first|second)$/.test(path))).toEqual([]);
  }, 240_000);

  it('stops in one line with exit 130 when sent SIGTERM while it starts, leaving nothing running', async ({
    expect,
  }) => {
    const cwd = await caseFolder('sigterm');
    await writeFile(join(cwd, 'lista.csv'), customerListCsv(distinctDocuments(3, 'hostile sigterm')));
    const run = startCli(['screen', 'lista.csv', '--no-state'], { cwd });
    await expect
      .poll(() => run.stderr().includes('starting DynamoDB Local'), { timeout: 60_000, interval: 50 })
      .toBe(true);
    const started = await childrenOf(run.pid);
    leftovers.push(...started);

    run.kill('SIGTERM');
    const result = await run.done;

    expectOneErrorLine(result, /^credit-screen: interrupted; everything started was stopped$/, 130);
    await expect.poll(() => started.filter(isAlive), { timeout: 20_000 }).toEqual([]);
    expect(await treeOf(cwd)).toEqual({ 'lista.csv': expect.any(String) });
  }, 240_000);
});
