import { lstat, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import { main } from '../../cli/main.ts';

/** What a run of the command line left: its exit code and what it wrote. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** How long an in-process case may take before it counts as hung (a FIFO read, a prompt). */
const HANG_MS = 20_000;

/**
 * Runs `credit-screen <args>` in this process, in `cwd`, as the launcher does (main(argv), its exit code), and
 * returns what it wrote: a refusal made before anything starts takes milliseconds here, where a child process
 * takes one to five seconds on a loaded machine. An error main lets through (a bug, with its stack) comes back as
 * exit code null with the stack on stderr; a case that hangs fails after {@link HANG_MS}.
 */
export async function runInProcess(args: readonly string[], cwd: string): Promise<CliResult> {
  const written = { stdout: '', stderr: '' };
  const streams = { stdout: process.stdout, stderr: process.stderr } as const;
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
  for (const name of ['stdout', 'stderr'] as const) {
    streams[name].write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      written[name] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      const callback = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }) as typeof process.stdout.write;
  }
  const previous = process.cwd();
  process.chdir(cwd);
  let timer: NodeJS.Timeout | undefined;
  try {
    const hang = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`credit-screen ${args.join(' ')} hung`)), HANG_MS);
    });
    const code = await Promise.race([main(['node', 'credit-screen', ...args]), hang]);
    return { code, ...written };
  } catch (error) {
    return { code: null, stdout: written.stdout, stderr: `${written.stderr}${(error as Error).stack}` };
  } finally {
    clearTimeout(timer);
    process.chdir(previous);
    streams.stdout.write = writes.stdout;
    streams.stderr.write = writes.stderr;
  }
}

/** What a stack trace or an error escaping as it is looks like. */
const STACK_TRACE =
  /^\s+at \S|node:internal|\b(Range|Type|Reference|Syntax|Internal)Error\b|InternalFailure/m;

/** Asserts the one-line refusal every bad input gets: exit code, exactly one line on stderr, no stack, no output. */
export function expectOneLineRefusal(result: CliResult, pattern: RegExp, code = 2): void {
  const lines = result.stderr.trimEnd().split('\n');
  expect(result.stderr, 'a stack trace').not.toMatch(STACK_TRACE);
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^credit-screen: \S/);
  expect(lines[0]).toMatch(pattern);
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
}

/** Asserts a run that ended with one error line after its progress: the last line is the only refusal. */
export function expectOneErrorLine(result: CliResult, pattern: RegExp, code = 2): void {
  expect(result.stderr, 'a stack trace').not.toMatch(STACK_TRACE);
  const refusals = result.stderr.split('\n').filter((line) => line.startsWith('credit-screen: '));
  expect(refusals, result.stderr).toEqual([expect.stringMatching(pattern)]);
  expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(refusals[0]);
  expect(result.code, result.stderr).toBe(code);
}

/** Every file and folder under `directory`, with its permission bits: compared before and after a case. */
export async function treeOf(directory: string): Promise<Record<string, string>> {
  const tree: Record<string, string> = {};
  async function walk(folder: string): Promise<void> {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      tree[relative(directory, path)] = ((await lstat(path)).mode & 0o777).toString(8);
      if (entry.isDirectory()) await walk(path);
    }
  }
  await walk(directory);
  return tree;
}

/** A new empty folder for a case to run in. */
export function caseFolder(label: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `credit-screen-hostile-${label}-`));
}
