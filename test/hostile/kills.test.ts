import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SeededRandom } from '../../emulator/seeded-random.ts';
import { ServiceEmulator } from '../../emulator/service-emulator.ts';
import { CHARGE_UNKNOWN_DETAIL } from '../../src/domain/batch/index.ts';
import { formatBrl } from '../../src/domain/spend/index.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { parseSummary } from '../factories/pipeline.ts';
import { runCli, startCli } from '../factories/run-cli.ts';
import { caseFolder, expectOneErrorLine } from './harness.ts';

// The hostile-input corpus, round four (issue #37): kill -9 in the middle of a run, then the same screen again, as
// a user does after a crash. The bureau is an emulator of this test's process (`--live --base-url`), so it counts
// every charge across the runs. A call that left before a kill may have been charged: the rerun never buys its
// document again by itself (the row ends failed, charge unknown), and a call that never left is bought once.

/**
 * Kills per run of the test: each is a whole local pipeline started and killed (about 5 s, 10 s of CPU). Three land at
 * three seeded moments, each with a call in flight; `CREDIT_SCREEN_TEST_KILLS=20` tries more of them.
 */
const KILLS = Number(process.env.CREDIT_SCREEN_TEST_KILLS ?? 3);
const DOCUMENTS = 30;
const escaped = (text: string) => text.replace(/[$.()]/g, '\\$&');

let emulator: ServiceEmulator;
afterAll(async () => {
  await emulator?.close();
});

describe('screen killed with -9 at random moments, then run again', () => {
  it(`buys every document at most once over ${KILLS} kills, and says which charges are unknown`, async () => {
    emulator = await ServiceEmulator.start({ port: 0, latencyMs: 400 });
    const cwd = await caseFolder('kills');
    const documents = distinctDocuments(DOCUMENTS, 'hostile kills');
    await writeFile(join(cwd, 'lista.csv'), customerListCsv(documents));
    const args = [
      'screen',
      'lista.csv',
      '--state',
      'state',
      '--out',
      'results',
      '--rate-limit',
      '4',
      '--concurrency',
      '3',
      // A contract price of the user's: every later quote of this batch (its last line, the redrive) is at it.
      '--price',
      'a=3,15',
      '--live',
      '--base-url',
      emulator.url,
      '--token',
      emulator.token,
    ];
    const random = new SeededRandom(37);

    for (let kill = 0; kill < KILLS; kill++) {
      const run = startCli(args, { cwd });
      // Somewhere after the pipeline is up and calls are in flight: 0 to 1.5 s after the first progress line.
      for (let waited = 0; !/progress: /.test(run.stderr()) && waited < 120_000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, random.next() * 1500));
      // Then at the next request the bureau receives: that call is surely in flight (400 ms) when the kill lands.
      const requests = emulator.stats().requests;
      for (let waited = 0; emulator.stats().requests === requests && waited < 30_000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));
      run.kill('SIGKILL');
      await run.done;
    }
    const last = await runCli(args, { cwd });

    const charges = emulator.stats().chargesByDocument;
    expect(Math.max(0, ...Object.values(charges)), JSON.stringify(charges)).toBeLessThanOrEqual(1);
    const folder = join(cwd, 'results');
    const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8'));
    const summary = parseSummary(await readFile(join(folder, 'summary.csv'), 'utf8'));
    const unknown = summary.filter((row) => row.status_detail === CHARGE_UNKNOWN_DETAIL);
    expect(last.code === 0 || last.code === 1, last.stderr).toBe(true);
    expect(manifest.counts.rows).toBe(DOCUMENTS);
    expect(manifest.counts.screened + manifest.counts.failed).toBe(DOCUMENTS);
    expect(manifest.counts.failed).toBe(unknown.length);
    // A row failed this way had its call written ahead: the request may have reached the bureau (1) or not (0, a
    // kill between the write and the send); every screened row was bought exactly once.
    for (const row of unknown) expect(charges[row.document as string] ?? 0).toBeLessThanOrEqual(1);
    for (const row of summary.filter((line) => line.status === 'screened'))
      expect(charges[row.document as string]).toBe(1);
    // Each kill lands while a call is in flight: its row ends charge unknown unless a kill stopped it first.
    expect(unknown.length).toBeGreaterThan(0);
    expect(last.stdout + last.stderr).toMatch(
      new RegExp(
        `charge unknown: \\d+ rows .*; ${unknown.length} of them failed and are not bought again without your word: credit-screen redrive ${manifest.batchId} --charge-unknown --state \\S+ buys them again for ${escaped(formatBrl(unknown.length * 3.15))}$`,
        'm',
      ),
    );

    // That command: without --yes and with no one to ask, nothing is bought; with it, exactly those rows, once.
    const redrive = [
      'redrive',
      manifest.batchId,
      '--charge-unknown',
      '--state',
      'state',
      '--out',
      'redriven',
    ];
    const env = { BUREAU_TOKEN: emulator.token };
    const unasked = await runCli(redrive, { cwd, env });
    const chargedBefore = { ...emulator.stats().chargesByDocument };
    const bought = await runCli([...redrive, '--yes'], { cwd, env });
    const chargedAfter = emulator.stats().chargesByDocument;
    const redriven = JSON.parse(await readFile(join(cwd, 'redriven', 'manifest.json'), 'utf8'));

    expectOneErrorLine(
      unasked,
      new RegExp(
        `^credit-screen: batch ${manifest.batchId}: ${unknown.length} rows whose earlier call may have been charged would be bought again for ${escaped(formatBrl(unknown.length * 3.15))} \\(R\\$ 3,15 each, possibly paid twice\\): nothing was bought\\. Rerun with --yes to buy them$`,
      ),
    );
    expect(chargedBefore).toEqual(charges);
    expect(bought.code, bought.stderr).toBe(0);
    for (const document of documents) {
      const again = unknown.some((row) => row.document === document) ? 1 : 0;
      expect(chargedAfter[document] ?? 0).toBe((charges[document] ?? 0) + again);
    }
    expect(redriven).toMatchObject({ revision: 2, chargeUnknownFailed: 0 });
    // Every request that reached the bureau is in the audit log, those whose answer was lost in a kill included (a
    // call written ahead that a kill stopped before it left counts too: at least as many entries as requests).
    const audit = await runCli(['audit', '--batch', manifest.batchId, '--state', 'state', '--json'], { cwd });
    const requests = JSON.parse(audit.stdout).entries.filter(
      (entry: { kind: string }) => entry.kind === 'bureau_request',
    );
    expect(requests.length).toBeGreaterThanOrEqual(emulator.stats().requests);
    expect(redriven.counts).toMatchObject({ screened: DOCUMENTS, failed: 0 });
  }, 600_000);
});
