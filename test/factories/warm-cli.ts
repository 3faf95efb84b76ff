import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('./warm-cli-server.mjs', import.meta.url));
/** Longer than any one command of the tests takes (the longest, a documented rescreen, about 100 s). */
const WARM_COMMAND_LIMIT_MS = 300_000;

/** What a command printed and how it ended. */
export interface WarmResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

interface Pending {
  resolve(result: WarmResult): void;
  reject(error: Error): void;
}

/**
 * A credit-screen process of this test worker that runs commands one after another (warm-cli-server.mjs), so that
 * a command does not pay for loading the command line again. Started at the first command, stopped with the worker.
 */
class WarmCli {
  #pending = new Map<number, Pending>();
  #nextId = 0;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: { id: number; retiring: boolean } & WarmResult) => {
      if (message.retiring) this.#forget();
      const pending = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      pending?.resolve({ code: message.code, stdout: message.stdout, stderr: message.stderr });
      this.#holdWorker();
    });
    child.on('exit', (code, signal) => {
      this.#forget();
      for (const pending of this.#pending.values())
        pending.reject(
          new Error(`the warm credit-screen process ended (${signal ?? code}) during a command`),
        );
      this.#pending.clear();
    });
    this.#holdWorker();
  }

  static start(): Promise<WarmCli> {
    // As runCli gives every command's process (the terminal's colours are decided once, when a module loads).
    const child = fork(SERVER, [], {
      // Node's own options, as a command's process has them: none of the vitest worker's (its --conditions and
      // --require), whatever the worker was started with.
      execArgv: [],
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) =>
        reject(new Error(`the warm credit-screen process did not start (${code})`)),
      );
      child.once('message', () => {
        child.removeAllListeners('exit');
        current = new WarmCli(child);
        resolve(current);
      });
    });
  }

  /** The next command starts a new process: this one is ending (a newer one, if any, is left alone). */
  #forget(): void {
    if (current !== this) return;
    current = null;
    warm = null;
  }

  get busy(): boolean {
    return this.#pending.size > 0;
  }

  run(args: readonly string[], cwd: string): Promise<WarmResult> {
    const id = this.#nextId++;
    const result = new Promise<WarmResult>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    this.#holdWorker();
    this.child.send({ id, args, cwd });
    // A command that never ends would keep this process busy for the rest of the worker's files: it is killed,
    // which fails the command, and the next command starts a new process.
    const limit = setTimeout(() => this.child.kill('SIGKILL'), WARM_COMMAND_LIMIT_MS);
    return result.finally(() => clearTimeout(limit));
  }

  /** The worker waits for the process only while a command runs in it: idle, it must not keep the worker up. */
  #holdWorker(): void {
    const channel = this.child.channel as { ref(): void; unref(): void } | undefined;
    if (this.busy) {
      this.child.ref();
      channel?.ref();
    } else {
      this.child.unref();
      channel?.unref();
    }
  }
}

let warm: Promise<WarmCli> | null = null;
/** The process `warm` resolved to, once it has. */
let current: WarmCli | null = null;

/**
 * Runs a command in this worker's warm credit-screen process, or returns null when that process is running another
 * command (two commands at once each need a process, as they would at a user's shell).
 */
export async function runInWarmCli(args: readonly string[], cwd: string): Promise<WarmResult | null> {
  warm ??= WarmCli.start();
  let cli: WarmCli;
  try {
    cli = await warm;
  } catch (error) {
    // The next command tries to start one again.
    warm = null;
    throw error;
  }
  if (cli.busy) return null;
  return cli.run(args, cwd);
}
