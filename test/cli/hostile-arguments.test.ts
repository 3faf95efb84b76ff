import { mkdtemp, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { type CliResult, runCli } from '../factories/run-cli.ts';

/** What a terminal would act on if it were printed raw (ESC, BEL, the one-character CSI). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters looked for
const RAW_CONTROLS = /[\u001b\u0007\u009b]/;

// The command line as an attacker or a confused user drives it: each case must end in one line on stderr, exit
// status 2, nothing started and nothing echoed raw to the terminal.

let directory: string;
let list: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'credit-screen-hostile-'));
  list = join(directory, 'lista.csv');
  await writeFile(list, customerListCsv(distinctDocuments(2, 'hostile-arguments')));
});

function expectOneLineRefusal(result: CliResult, pattern: RegExp): void {
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^credit-screen: /);
  expect(lines[0]).toMatch(pattern);
  expect(result.code).toBe(2);
}

describe('credit-screen on hostile arguments', () => {
  it.each([
    ['a rate limit of 0 (a busy loop)', ['--rate-limit', '0'], /--rate-limit must be at least 0\.01/],
    ['a rate limit of 1e-9 (a timer overflow)', ['--rate-limit', '1e-9'], /--rate-limit must be at least/],
    ['a rate limit that is not a number', ['--rate-limit', 'fast'], /--rate-limit must be/],
  ])('refuses %s before starting anything', async (_label, options, pattern) => {
    const result = await runCli(['screen', list, '--no-state', ...options], { cwd: directory });

    expectOneLineRefusal(result, pattern);
    expect(result.stderr).not.toContain('starting DynamoDB Local');
  });

  it('refuses a state directory that is a file, naming it', async () => {
    const result = await runCli(['screen', list, '--state', list], { cwd: directory });

    expectOneLineRefusal(result, /--state .*lista\.csv.*not a directory/);
    expect(result.stderr).not.toContain('starting DynamoDB Local');
  });

  it('refuses a portfolio named after its file when the file name is a document', async () => {
    const named = join(directory, '529.982.247-25.csv');
    await writeFile(named, customerListCsv(distinctDocuments(2, 'document-name')));

    const result = await runCli(['rescreen', named, '--no-state'], { cwd: directory });

    expectOneLineRefusal(result, /file name holds what looks like a CPF or CNPJ/);
    expect(result.stderr).not.toContain('529');
  });

  it('refuses to screen /dev/zero as what it is, not "a directory"', async () => {
    const result = await runCli(['screen', '/dev/zero', '--no-state'], { cwd: directory });

    expectOneLineRefusal(result, /\/dev\/zero: not a regular file/);
  });

  it('refuses a 100,000-character batch id without querying, and without echoing it whole', async () => {
    const result = await runCli(['status', 'a'.repeat(100_000), '--state', directory], { cwd: directory });

    expectOneLineRefusal(result, /not a batch id/);
    expect(result.stderr.length).toBeLessThan(300);
  });

  it('refuses to normalise a file over 512 MB without reading it (a sparse file)', async () => {
    const huge = join(directory, 'huge.json');
    await writeFile(huge, '');
    await truncate(huge, 513 * 1024 * 1024);

    const result = await runCli(['normalize', huge, '--bureau', 'a'], { cwd: directory });

    expectOneLineRefusal(result, /huge\.json: 513 MB, more than the 512 MB a bureau response can be/);
  });

  it('refuses to normalise a device that never ends', async () => {
    const result = await runCli(['normalize', '/dev/zero', '--bureau', 'a'], { cwd: directory });

    expectOneLineRefusal(result, /\/dev\/zero: not a regular file/);
  });
});

describe('credit-screen never echoes escape sequences to the terminal', () => {
  const title = '\u001b]0;pwned\u0007';
  const colour = '\u001b[31m\u009b2J';

  it('in an error about a batch id', async () => {
    const result = await runCli(['status', `${title}x`, '--state', directory], { cwd: directory });

    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(RAW_CONTROLS);
    expect(result.stderr).toContain('\\u001b]0;pwned\\u0007');
  });

  it('in an error about a file name', async () => {
    const result = await runCli(['screen', join(directory, `${colour}.csv`), '--no-state'], {
      cwd: directory,
    });

    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(RAW_CONTROLS);
    expect(result.stderr).toContain('\\u001b[31m\\u009b2J.csv: no such file');
  });

  it('in check’s report of a file whose name holds them', async () => {
    const named = join(directory, `${colour}lista.csv`);
    await writeFile(named, customerListCsv(distinctDocuments(2, 'escape-name')));

    const result = await runCli(['check', named], { cwd: directory });

    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(RAW_CONTROLS);
    expect(result.stdout).toContain('\\u001b[31m\\u009b2Jlista.csv: 2 rows');
  });

  it('in an error about an option value', async () => {
    const result = await runCli(['screen', list, '--bureau', colour, '--no-state'], { cwd: directory });

    expectOneLineRefusal(result, /--bureau/);
    expect(result.stderr).not.toMatch(RAW_CONTROLS);
  });
});
