import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runInWarmCli } from './warm-cli.ts';

const LAUNCHER = fileURLToPath(new URL('../../bin/credit-screen.mjs', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Where a command runs, and what it is given. */
export interface CliRunOptions {
  readonly cwd?: string;
  /** Variables set for the command, over the test's; a command given any runs in a process of its own. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Run the real launcher in a process of its own, as a user's shell does: for what only a process shows (the
   * launcher itself, its exit, what it leaves running). Otherwise the command runs in the test worker's warm
   * credit-screen process (`warm-cli.ts`: the same `main`, without loading the command line again), unless it is
   * given variables (a module reads its settings once) or that process is busy with another command. The warm
   * process is one process for many commands: a test about what a process owns (a state folder's lock names its
   * pid, Node's once-per-process warnings, the heap flags of `decide`, what is left running at exit) takes its own.
   * @default false
   */
  readonly ownProcess?: boolean;
}

/** Runs a `credit-screen` command to its end, with its arguments, folder and environment (see {@link CliRunOptions}). */
export async function runCli(args: readonly string[], options: CliRunOptions = {}): Promise<CliResult> {
  if (!options.ownProcess && options.env === undefined) {
    const result = await runInWarmCli(args, options.cwd ?? process.cwd());
    if (result !== null) return result;
  }
  return startCli(args, options).done;
}

/** A `credit-screen` process still running: its output so far, and its end. */
export interface RunningCli {
  readonly pid: number;
  /** What it has written to stderr so far. */
  stderr(): string;
  /** What it has written to stdout so far. */
  stdout(): string;
  /** Sends it a signal, as a user's shell or `kill` would. */
  kill(signal: NodeJS.Signals): void;
  readonly done: Promise<CliResult>;
}

/** Starts the real launcher and returns at once, for tests that act on it while it runs. */
export function startCli(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): RunningCli {
  const child = spawn(process.execPath, [LAUNCHER, ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  return {
    pid: child.pid as number,
    stderr: () => stderr,
    stdout: () => stdout,
    kill: (signal) => child.kill(signal),
    done: new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    }),
  };
}

/** A `credit-screen` started at a terminal: what it has shown there so far, and the keys a person would type. */
export interface TerminalCli extends RunningCli {
  /** What the terminal shows (stdout, prompts and echoes); stderr is kept apart, in the result. */
  screen(): string;
  /** Types `text` at the terminal (`\u0003` is Ctrl-C, `\u0004` Ctrl-D). */
  type(text: string): void;
  /** The pid of the launcher itself (not of the terminal around it), for `kill -INT`. */
  launcherPid(): Promise<number>;
}

const quoted = (argument: string) => `'${argument.replaceAll("'", "'\\''")}'`;

/**
 * Starts the real launcher in a pseudo-terminal (util-linux `script`), as a person runs it at a terminal: stdin and
 * stdout are the terminal, so prompts are asked; stderr goes to a file of its own, so a test can count its lines.
 */
export function startCliInTerminal(args: readonly string[], options: { cwd: string }): TerminalCli {
  const stderrFile = join(mkdtempSync(join(tmpdir(), 'credit-screen-tty-')), 'stderr');
  const command = `exec ${[process.execPath, LAUNCHER, ...args].map(quoted).join(' ')} 2>${quoted(stderrFile)}`;
  const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    screen += text;
  });
  const stderr = () => (existsSync(stderrFile) ? readFileSync(stderrFile, 'utf8') : '');
  return {
    pid: child.pid as number,
    stderr,
    stdout: () => screen,
    screen: () => screen,
    type: (text) => child.stdin.write(text),
    kill: (signal) => child.kill(signal),
    launcherPid: async () => {
      const { stdout } = await promisify(execFile)('ps', ['-o', 'pid=', '--ppid', String(child.pid)]);
      return Number.parseInt(stdout.trim(), 10);
    },
    done: new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => {
        child.stdin.end();
        resolve({ code, stdout: screen, stderr: stderr() });
      });
    }),
  };
}
