import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';
import { runInWarmCli } from './warm-cli.ts';

const SAMPLE = join(process.cwd(), 'samples/customers.csv');

describe('runCli', () => {
  it.each([
    ['a command that succeeds', ['check', SAMPLE]],
    ['a refusal', ['decide', '/no/such-results-folder', '--policy', 'samples/policies/pessoa-fisica.json']],
    ['a usage error', ['screen', '--concurrency', 'many']],
  ])('prints and exits the same in the warm process as in a process of its own: %s', async (_case, args) => {
    // Act
    const own = await runCli(args, { ownProcess: true });
    const warm = await runInWarmCli(args, process.cwd());

    // Assert: null would mean the warm process was busy, and nothing was compared
    expect(warm).not.toBeNull();
    expect(warm).toEqual(own);
    expect(own.stdout + own.stderr).not.toBe('');
  });

  it('runs two commands at once, each to its own end', async () => {
    // Act: the second starts while the warm process runs the first
    const [first, second] = await Promise.all([
      runCli(['check', SAMPLE]),
      runCli(['check', SAMPLE, '--json']),
    ]);

    // Assert
    expect(first.code).toBe(0);
    expect(second.code).toBe(0);
    expect(() => JSON.parse(second.stdout)).not.toThrow();
    expect(first.stdout).not.toEqual(second.stdout);
  });

  it('fails a command whose folder is missing, and runs the next one', async () => {
    const missing = join(await mkdtemp(join(tmpdir(), 'credit-screen-gone-')), 'no-such-folder');

    const failed = await runInWarmCli(['check', SAMPLE], missing);
    const next = await runInWarmCli(['check', SAMPLE], process.cwd());

    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain('ENOENT');
    expect(next?.code).toBe(0);
  });
});
