import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { runCli } from '../factories/run-cli.ts';

/** Lists in a new folder: name → number of distinct documents (each list its own documents). */
async function lists(sizes: Readonly<Record<string, number>>): Promise<{ cwd: string; files: string[] }> {
  const cwd = await mkdtemp(join(tmpdir(), 'credit-screen-cli-'));
  const files: string[] = [];
  for (const [name, size] of Object.entries(sizes)) {
    const file = join(cwd, name);
    await writeFile(file, customerListCsv(distinctDocuments(size, `approvals ${name}`)));
    files.push(file);
  }
  return { cwd, files };
}

/** The one line a batch over the threshold stops with when no one can approve it (as a single file prints it). */
const WAITING =
  /^credit-screen: batch ([0-9a-f]{24}) would buy (\d+) documents for R\$ [\d.,]+ \(about [^)]+\), over the approval threshold: nothing was bought\. Rerun with --yes, or approve it with: credit-screen approve \1$/gm;
/** The same line from a run that keeps no state (no later `approve` could find its batch: only a rerun buys it). */
const WAITING_WITHOUT_STATE =
  /^credit-screen: batch ([0-9a-f]{24}) would buy (\d+) documents for R\$ [\d.,]+ \(about [^)]+\), over the approval threshold: nothing was bought\. Rerun with --yes to buy them: this run keeps no state directory, so the batch cannot be approved later$/gm;

const COMPLETED = /^batch ([0-9a-f]{24}): completed in [\d.]+ s/gm;

describe('screen with several files, one over the approval threshold', () => {
  it('with --yes, approves it with the others: every batch completes', async () => {
    const { cwd, files } = await lists({ 'big.csv': 12, 'small.csv': 3 });

    const result = await runCli(
      [
        'screen',
        ...files,
        '--approve-above',
        '5',
        '--yes',
        '--no-state',
        '--rate-limit',
        '20',
        '--out',
        'results',
      ],
      { cwd },
    );
    const completed = [...result.stdout.matchAll(COMPLETED)].map(([, batchId]) => batchId as string);
    const rows = await Promise.all(
      completed.map(
        async (batchId) =>
          JSON.parse(await readFile(join(cwd, 'results', batchId, 'manifest.json'), 'utf8')).counts.screened,
      ),
    );

    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^batch [0-9a-f]{24} approved$/m);
    expect(rows.sort((a, b) => a - b)).toEqual([3, 12]);
  }, 300_000);

  it('without --yes or a terminal, finishes the others, then exits 2 with one line per batch to approve', async () => {
    const { cwd, files } = await lists({ 'big.csv': 12, 'small.csv': 3, 'bigger.csv': 9 });

    const result = await runCli(
      ['screen', ...files, '--approve-above', '5', '--no-state', '--rate-limit', '20', '--out', 'results'],
      { cwd },
    );
    const waiting = [...result.stderr.matchAll(WAITING_WITHOUT_STATE)].map(([, , documents]) =>
      Number(documents),
    );

    expect(result.code).toBe(2);
    expect(waiting.sort((a, b) => a - b)).toEqual([9, 12]);
    // The last line of all is the command's error: one of the batches to approve.
    expect(result.stderr.trimEnd().split('\n').at(-1)).toMatch(WAITING_WITHOUT_STATE);
    expect([...result.stdout.matchAll(COMPLETED)]).toHaveLength(1);
    expect(result.stdout).toMatch(/small\.csv:\n/);
  }, 300_000);
});

describe('screen run again on a file whose batch waits for approval', () => {
  it('resumes the newest such batch, which --yes approves; --new-batch starts another instead', async () => {
    const { cwd, files } = await lists({ 'big.csv': 8 });
    const [file] = files as [string];
    const state = join(cwd, 'state');
    const screen = (...extra: string[]) =>
      runCli(['screen', file, '--state', state, '--approve-above', '5', '--rate-limit', '20', ...extra], {
        cwd,
      });

    const first = await screen();
    const second = await screen('--new-batch');
    const approved = await screen('--yes', '--out', 'results');
    const [firstId, secondId] = [first, second].map(
      (run) => run.stderr.match(/approve ([0-9a-f]{24})$/m)?.[1],
    );
    const manifest = JSON.parse(await readFile(join(cwd, 'results', 'manifest.json'), 'utf8'));

    expect([first.code, second.code, approved.code]).toEqual([2, 2, 0]);
    expect([...first.stderr.matchAll(WAITING)].map(([, batchId]) => batchId)).toEqual([firstId]);
    expect(second.stderr).not.toMatch(/resuming/);
    expect(secondId).not.toBe(firstId);
    expect(approved.stderr).toContain(`resuming batch ${secondId} of ${file}, waiting for approval`);
    expect(manifest).toMatchObject({ batchId: secondId, status: 'completed' });
    expect(manifest.counts.screened).toBe(8);
  }, 300_000);
});
