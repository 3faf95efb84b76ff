import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceEmulator } from '../../emulator/service-emulator.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { type CliResult, runCli, startCliInTerminal, type TerminalCli } from '../factories/run-cli.ts';
import { caseFolder, expectOneErrorLine, treeOf } from './harness.ts';

// The hostile-input corpus, round four (issue #37): a batch over the approval threshold. At a terminal the run asks
// `Buy them? [y/N]`, and a person may answer with Ctrl-C or Ctrl-D, or the run may be sent SIGINT while it waits:
// each must end in one line, exit 130, with nothing bought and the process gone (it printed a stack trace, or said
// "interrupted" and never exited). Without a terminal the refusal must say what can still be done, and an approval
// decided already must say so. The bureau is an emulator of this process (`--live --base-url`), so what it was
// asked and charged is counted here.

const emulators: ServiceEmulator[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((emulator) => emulator.close()));
});

/** A bureau the run calls as a real one, whose requests and charges this test reads. */
async function bureau(): Promise<{ emulator: ServiceEmulator; args: string[] }> {
  const emulator = await ServiceEmulator.start({ port: 0 });
  emulators.push(emulator);
  return { emulator, args: ['--live', '--base-url', emulator.url, '--token', emulator.token] };
}

/** A run that keeps nothing (no state, the table in memory) and asks before buying more than one document. */
const MEMORY_RUN_OVER_ONE = ['--no-state', '--engine', 'memory', '--approve-above', '1'];

/** A folder with a list of three documents: over `--approve-above 1`. */
async function listFolder(label: string): Promise<string> {
  const cwd = await caseFolder(label);
  await writeFile(join(cwd, 'lista.csv'), customerListCsv(distinctDocuments(3, `approval prompt ${label}`)));
  return cwd;
}

/** Waits for the question at the terminal; says what the run printed instead if it never came. */
async function untilAsked(run: TerminalCli): Promise<void> {
  await expect
    .poll(() => run.screen().includes('Buy them? [y/N]'), { timeout: 120_000, interval: 100 })
    .toBe(true)
    .catch((error: unknown) => {
      throw new Error(`no question in 120 s; stderr:\n${run.stderr()}\nterminal:\n${run.screen()}`, {
        cause: error,
      });
    });
}

/** The run's end, or a failure naming the hang: the process must exit on its own. */
function ended(run: TerminalCli, seconds = 30): Promise<CliResult> {
  return Promise.race([
    run.done,
    new Promise<never>((_resolve, reject) =>
      setTimeout(() => {
        run.kill('SIGKILL');
        reject(new Error(`still running ${seconds} s after the answer; stderr:\n${run.stderr()}`));
      }, seconds * 1000),
    ),
  ]);
}

const INTERRUPTED = /^credit-screen: interrupted; everything started was stopped$/;

/** What a person does at the question: a key typed at the terminal, or a signal sent to the process. */
const ANSWERS: readonly (readonly [string, (run: TerminalCli) => unknown])[] = [
  ['Ctrl-C', (run) => run.type('\u0003')],
  ['Ctrl-D', (run) => run.type('\u0004')],
  ['kill -INT', async (run) => process.kill(await run.launcherPid(), 'SIGINT')],
];

describe('the approval question at a terminal', () => {
  it.each(ANSWERS)(
    'answered with %s: one line, exit 130, nothing bought, nothing written, the process gone',
    async (label, answer) => {
      const cwd = await listFolder(label.replace(/\W/g, ''));
      const { emulator, args } = await bureau();
      const run = startCliInTerminal(
        ['screen', 'lista.csv', ...MEMORY_RUN_OVER_ONE, '--out', 'results', ...args],
        { cwd },
      );
      await untilAsked(run);

      await answer(run);
      const result = await ended(run);

      expectOneErrorLine(result, INTERRUPTED, 130);
      expect(result.stdout, 'the terminal').not.toMatch(/AbortError|^\s+at \S/m);
      expect(emulator.stats()).toMatchObject({ requests: 0, charged: 0 });
      expect(await treeOf(cwd)).toEqual({ 'lista.csv': expect.any(String) });
    },
    240_000,
  );
});

describe('a batch over the approval threshold, with no one to ask', () => {
  it('with --no-state, says to rerun with --yes, not to approve a batch no state keeps', async () => {
    const cwd = await listFolder('no-state');
    const { emulator, args } = await bureau();

    const result = await runCli(
      ['screen', 'lista.csv', '--no-state', '--approve-above', '1', '--out', 'results', ...args],
      { cwd },
    );

    expectOneErrorLine(
      result,
      /nothing was bought\. Rerun with --yes to buy them: this run keeps no state directory, so the batch cannot be approved later$/,
    );
    expect(result.stderr).not.toContain('credit-screen approve');
    expect(emulator.stats()).toMatchObject({ requests: 0, charged: 0 });
  }, 240_000);

  it('says when the batch is too long to finish, and what would fit, before anything is bought', async () => {
    // Arrange: 11,000 documents at 0.01 queries per second take 12.7 days; a batch may take 7 (the work queue's alarm)
    const cwd = await caseFolder('too-long');
    await writeFile(join(cwd, 'lista.csv'), customerListCsv(distinctDocuments(11_000, 'approval too long')));
    const { emulator, args } = await bureau();

    // Act
    const result = await runCli(
      ['screen', 'lista.csv', ...MEMORY_RUN_OVER_ONE, '--rate-limit', '0.01', ...args],
      { cwd },
    );

    // Assert
    expectOneErrorLine(
      result,
      /would buy 11000 documents .*; too long for one batch: its queries must end within 7 days, .*; split the documents to buy into 2 lists of at most 6048 each, screened one after another, or screen at 0\.02 queries per second: nothing was bought\./,
    );
    expect(emulator.stats()).toMatchObject({ requests: 0, charged: 0 });
  }, 240_000);

  it('rejected, says so when rejected or approved again, instead of "it is completed"', async () => {
    const cwd = await listFolder('rejected');
    const { emulator, args } = await bureau();
    const state = ['--state', 'state'];
    const waiting = await runCli(['screen', 'lista.csv', ...state, '--approve-above', '1', ...args], { cwd });
    const batchId = /credit-screen approve ([0-9a-f]{24})$/m.exec(waiting.stderr)?.[1] as string;
    expect(batchId, waiting.stderr).toBeDefined();

    const rejected = await runCli(['reject', batchId, ...state], { cwd });
    const again = await runCli(['reject', batchId, ...state], { cwd });
    const approved = await runCli(['approve', batchId, ...state], { cwd });

    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stdout).toContain(`batch ${batchId} rejected`);
    expectOneErrorLine(
      again,
      new RegExp(`^credit-screen: batch ${batchId} was already rejected: nothing was bought$`),
    );
    expectOneErrorLine(
      approved,
      new RegExp(
        `^credit-screen: batch ${batchId} was rejected: nothing was bought, and a rejected batch cannot be approved`,
      ),
    );
    expect(`${again.stderr}${approved.stderr}`).not.toContain('it is completed');
    expect(emulator.stats()).toMatchObject({ requests: 0, charged: 0 });
  }, 240_000);
});
