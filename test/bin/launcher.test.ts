import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../factories/run-cli.ts';

/** The command lines of a process's children, from /proc. */
function childCommandLines(pid: number): string[][] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean);
  return children.map((child) => readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').filter(Boolean));
}

/** Reads until `accept` takes the value, for up to 30 s (a loaded machine starts a process slowly). */
async function eventually<T>(read: () => T, accept: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = read();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the launcher', () => {
  it('runs decide again in a process with a larger young generation, and passes a kill on to it', async () => {
    // The command started again waits in a preload until it is stopped (the launcher itself goes on).
    const folder = mkdtempSync(join(tmpdir(), 'credit-screen-launcher-'));
    const wait = join(folder, 'wait.cjs');
    writeFileSync(
      wait,
      "if (process.execArgv.includes('--max-semi-space-size=32')) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);",
    );
    const running = startCli(['decide', folder, '--policy', 'samples/policies/pessoa-fisica.json'], {
      env: { NODE_OPTIONS: `--require ${wait}` },
    });

    // Read once the child has become the command (before its exec, /proc shows the launcher's own line).
    const commands = await eventually(
      () => childCommandLines(running.pid),
      (lines) => lines.some((line) => line.includes('decide') && line.includes('--max-semi-space-size=32')),
    );
    running.kill('SIGTERM');
    const result = await running.done;

    expect(commands).toHaveLength(1);
    expect(commands[0]).toEqual(expect.arrayContaining(['--max-semi-space-size=32', 'decide', folder]));
    expect([result.code, result.stderr]).toEqual([null, '']);
  });

  it('ends with the command’s own exit code and message', async () => {
    const result = await runCli(['decide', join(tmpdir(), 'no-such-results-folder')], { ownProcess: true });

    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
