import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceEmulator } from '../../emulator/service-emulator.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { parseSummary } from '../factories/pipeline.ts';
import { runCli, startCli } from '../factories/run-cli.ts';
import { caseFolder, expectOneErrorLine } from './harness.ts';

// The hostile-input corpus, round four (issue #37): a batch started with `--live --base-url` was approved or resumed
// against the built-in emulator, so its bureau received nothing and every row came out screened with made-up
// reports. A batch now remembers where it was started (never the token): whatever continues it calls that bureau,
// or refuses in one line with nothing sent. The bureau is an emulator of this process, which counts every request.

const emulators: ServiceEmulator[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((emulator) => emulator.close()));
});

/** A bureau the run calls as a real one, and a folder with a list of `documents` for it. */
async function liveCase(label: string, documents: number, latencyMs = 0) {
  const emulator = await ServiceEmulator.start({ port: 0, latencyMs });
  emulators.push(emulator);
  const cwd = await caseFolder(label);
  await writeFile(
    join(cwd, 'lista.csv'),
    customerListCsv(distinctDocuments(documents, `endpoints ${label}`)),
  );
  const live = ['--live', '--base-url', emulator.url, '--token', emulator.token];
  return { emulator, cwd, live };
}

const readManifest = async (folder: string) =>
  JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8'));

describe('a batch is continued only by the bureau it was started against', () => {
  it('approve: refused in one line without the token, nothing sent; with it, its own bureau screens every row', async () => {
    const { emulator, cwd, live } = await liveCase('approve', 8);
    const waiting = await runCli(
      ['screen', 'lista.csv', '--state', 'state', '--approve-above', '5', '--rate-limit', '20', ...live],
      { cwd },
    );
    const batchId = waiting.stderr.match(/approve ([0-9a-f]{24})$/m)?.[1] as string;

    const refused = await runCli(['approve', batchId, '--state', 'state'], {
      cwd,
      env: { BUREAU_TOKEN: '' },
    });
    const status = await runCli(['status', batchId, '--state', 'state', '--json'], { cwd });
    const approved = await runCli(['approve', batchId, '--state', 'state', '--out', 'results'], {
      cwd,
      env: { BUREAU_TOKEN: emulator.token },
    });

    expect(waiting.code, waiting.stderr).toBe(2);
    expectOneErrorLine(
      refused,
      new RegExp(
        `^credit-screen: batch ${batchId} was started against ${emulator.url.replace(/\/$/, '')}: set BUREAU_TOKEN to its token to continue there \\(nothing was sent\\)$`,
      ),
    );
    expect(JSON.parse(status.stdout)).toMatchObject({ status: 'awaiting_approval' });
    expect(approved.code, approved.stderr).toBe(0);
    expect(emulator.stats()).toMatchObject({ requests: 8, charged: 8 });
    expect((await readManifest(join(cwd, 'results'))).counts).toMatchObject({ screened: 8, failed: 0 });
  }, 300_000);

  it('a killed run: screen without --live refuses its state in one line; resume finishes it against its own bureau', async () => {
    const { emulator, cwd, live } = await liveCase('resume', 30, 300);
    const args = ['screen', 'lista.csv', '--state', 'state', '--rate-limit', '4', ...live];
    const killed = startCli(args, { cwd });
    await expect.poll(() => emulator.stats().charged, { timeout: 120_000, interval: 50 }).toBeGreaterThan(2);
    killed.kill('SIGKILL');
    await killed.done;
    const requestsBefore = emulator.stats().requests;

    const elsewhere = await runCli(['screen', 'lista.csv', '--state', 'state', '--rate-limit', '20'], {
      cwd,
    });
    const requestsElsewhere = emulator.stats().requests;
    const resumed = await runCli(['resume', '--state', 'state', '--out', 'results'], {
      cwd,
      env: { BUREAU_TOKEN: emulator.token },
    });
    const batchId = resumed.stderr.match(/\/results\/([0-9a-f]{24})$/m)?.[1];
    const manifest = await readManifest(join(cwd, 'results', batchId as string));

    expectOneErrorLine(
      elsewhere,
      /^credit-screen: state holds reports from http:\/\/127\.0\.0\.1:\d+, and this run calls the built-in emulator, which would take them for its own: nothing was sent; name another state directory with --state, or empty this one with --fresh$/,
    );
    expect(requestsElsewhere).toBe(requestsBefore);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(manifest.counts.rows).toBe(30);
    // Every screened row's report came from this bureau, bought once; no document was bought twice.
    const charges = emulator.stats().chargesByDocument;
    const summary = parseSummary(
      await readFile(join(cwd, 'results', batchId as string, 'summary.csv'), 'utf8'),
    );
    for (const row of summary.filter((line) => line.status === 'screened'))
      expect(charges[row.document as string]).toBe(1);
    expect(Math.max(...Object.values(charges))).toBe(1);
    expect(manifest.counts.screened + manifest.counts.failed).toBe(30);
  }, 300_000);

  it('a state keeps one bureau: a --live run on an emulator state is refused, nothing sent or reused', async () => {
    const { emulator, cwd, live } = await liveCase('one-bureau', 4);
    const tried = await runCli(['screen', 'lista.csv', '--state', 'state', '--out', 'tried'], { cwd });

    const refused = await runCli(['screen', 'lista.csv', '--state', 'state', '--new-batch', ...live], {
      cwd,
    });
    const requestsRefused = emulator.stats().requests;
    const elsewhere = await runCli(['screen', 'lista.csv', '--state', 'live', '--out', 'results', ...live], {
      cwd,
    });

    expect(tried.code, tried.stderr).toBe(0);
    expectOneErrorLine(
      refused,
      /^credit-screen: state holds reports from the built-in emulator, and this run calls http:\/\/127\.0\.0\.1:\d+, which would take them for its own: nothing was sent; .*--fresh$/,
    );
    expect(requestsRefused).toBe(0);
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    // Its own state reuses nothing of the emulator's: every document is bought from its bureau, once.
    expect(emulator.stats()).toMatchObject({ requests: 4, charged: 4 });
  }, 300_000);
});
