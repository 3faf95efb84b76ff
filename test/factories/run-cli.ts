import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const LAUNCHER = fileURLToPath(new URL('../../bin/credit-screen.mjs', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real `credit-screen` launcher in a child process, as a user's shell would. */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  return startCli(args, options).done;
}

/** A `credit-screen` process still running: its output so far, and its end. */
export interface RunningCli {
  readonly pid: number;
  /** What it has written to stderr so far. */
  stderr(): string;
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
    kill: (signal) => child.kill(signal),
    done: new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    }),
  };
}
