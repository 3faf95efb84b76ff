import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('./warm-cli-server.mjs', import.meta.url));

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
    child.on('message', (message: { id: number } & WarmResult) => {
      const pending = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      pending?.resolve({ code: message.code, stdout: message.stdout, stderr: message.stderr });
      this.#holdWorker();
    });
    child.on('exit', (code, signal) => {
      warm = null;
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
        resolve(new WarmCli(child));
      });
    });
  }

  get busy(): boolean {
    return this.#pending.size > 0;
  }

  run(args: readonly string[], cwd: string): Promise<WarmResult> {
    const id = this.#nextId++;
    const result = new Promise<WarmResult>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    this.#holdWorker();
    this.child.send({ id, args, cwd });
    return result;
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

/**
 * Runs a command in this worker's warm credit-screen process, or returns null when that process is running another
 * command (two commands at once each need a process, as they would at a user's shell).
 */
export async function runInWarmCli(args: readonly string[], cwd: string): Promise<WarmResult | null> {
  warm ??= WarmCli.start();
  const cli = await warm;
  if (cli.busy) return null;
  return cli.run(args, cwd);
}
