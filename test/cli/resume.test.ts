import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { writeCsv } from '../factories/pipeline.ts';
import { runCli } from '../factories/run-cli.ts';

const LAUNCHER = fileURLToPath(new URL('../../bin/credit-screen.mjs', import.meta.url));

/** Runs `credit-screen` and presses Ctrl-C once its progress shows `settled` rows done. */
function interruptedCli(args: readonly string[], cwd: string, settled: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LAUNCHER, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let interrupted = false;
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      for (const match of text.matchAll(/progress: (\d+)\//g)) {
        if (!interrupted && Number(match[1]) >= settled) {
          interrupted = true;
          child.kill('SIGINT');
        }
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
}

describe('credit-screen resume', () => {
  it('finishes a batch whose run was interrupted with Ctrl-C, every row screened', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'credit-screen-cli-'));
    const state = join(cwd, 'state');
    const file = await writeCsv('list.csv', customerListCsv(distinctDocuments(40, 'ctrl-c')));

    // Two a second: the interruption must land mid-batch even when a loaded machine reads the progress late (at
    // eight a second, a run beside two other test files once finished all 40 before Ctrl-C arrived).
    const code = await interruptedCli(
      ['screen', file, '--state', state, '--rate-limit', '2', '--concurrency', '2'],
      cwd,
      5,
    );
    const status = await runCli(['batches', '--state', state, '--json'], { cwd });
    const [batch] = JSON.parse(status.stdout) as { batchId: string; status: string; settled: number }[];
    const resumed = await runCli(['resume', '--state', state], { cwd });
    const manifest = JSON.parse(
      await readFile(join(cwd, 'out', batch?.batchId ?? '', 'manifest.json'), 'utf8'),
    );

    expect(code).toBe(130);
    expect(batch).toMatchObject({ status: 'running' });
    expect(batch?.settled).toBeLessThan(40);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/resuming 1 batch \(\d+ documents queued again\)/);
    expect(manifest.counts).toMatchObject({ rows: 40, screened: 40, failed: 0 });
  }, 180_000);

  it('refuses a deployed stack with one line: its sweeper resumes stuck rows by itself', async () => {
    const result = await runCli(['resume', '--stack', 'any']);

    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'credit-screen: resume is for the local state: a deployed stack resumes stuck rows by itself (its sweeper)',
    );
  });
});
