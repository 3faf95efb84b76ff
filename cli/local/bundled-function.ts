import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFile, cp, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SHIM = fileURLToPath(new URL('./lambda-runtime-shim.mjs', import.meta.url));
const SHIM_NAME = 'lambda-runtime-shim.mjs';
const INIT_TIMEOUT_MS = 30_000;

/** How one bundled function runs: its code, its configuration and Lambda's reserved variables. */
export interface BundledFunctionOptions {
  /** Folder of the bundle (a `cdk.out` asset); it is copied outside the project before it runs. */
  readonly assetDirectory: string;
  readonly functionName: string;
  readonly functionArn: string;
  /** `file.export`, as in the template. @default 'index.handler' */
  readonly handler?: string;
  readonly memorySize: number;
  readonly timeoutSeconds: number;
  /** The function's own environment (the template's, resolved). */
  readonly environment: Readonly<Record<string, string>>;
  /** Processes at most, like Lambda's concurrency: a new one starts only when all are busy. @default 1 */
  readonly maxInstances?: number;
  /** Receives every line a process writes (its logs). */
  readonly onOutput?: (line: string) => void;
  /**
   * A node_modules folder the bundle may resolve from, as the Lambda runtime's own SDK (benchmarks of bundles that
   * leave the SDK out). @default none: the bundle must carry everything it imports
   */
  readonly providedModules?: string;
}

class FunctionInvocationError extends Error {
  override readonly name = 'FunctionInvocationError';
}

interface Instance {
  readonly process: ChildProcess;
  busy: boolean;
}

type Reply =
  | { type: 'ready'; initMs: number }
  | { type: 'init-error'; error: { message: string } }
  | { type: 'result'; id: string; result: unknown }
  | { type: 'error'; id: string; error: { name: string; message: string } };

/**
 * A bundled Lambda function run as Lambda runs it: each instance is its own Node process, started from a copy of
 * the bundle in a temporary folder outside the project (so nothing resolves from the project's node_modules), with
 * only the function's environment and Lambda's reserved variables, and handling one invocation at a time.
 */
export class BundledFunction {
  readonly #options: BundledFunctionOptions;
  readonly #instances: Instance[] = [];
  readonly #waiting: ((instance: Instance) => void)[] = [];
  #directory: string | undefined;
  #starting = 0;
  /** Init durations (ms, module load to handler ready) of the instances started so far. */
  readonly initDurations: number[] = [];
  /** Durations (ms) of the invocations so far, from the event sent to the answer, as Lambda bills them. */
  readonly invocationDurations: number[] = [];

  constructor(options: BundledFunctionOptions) {
    this.#options = options;
  }

  /** Whether an invocation is running or an instance starting. */
  get busy(): boolean {
    return this.#starting > 0 || this.#instances.some((instance) => instance.busy);
  }

  /** Starts one instance ahead of the first invocation (a provisioned, warm container). */
  async start(): Promise<void> {
    const instance = await this.#acquire();
    this.#release(instance);
  }

  /** Runs one invocation on a free instance (starting one if all are busy and the limit allows). */
  async invoke(event: unknown): Promise<unknown> {
    const instance = await this.#acquire();
    const started = performance.now();
    try {
      return await this.#send(instance, event);
    } finally {
      this.invocationDurations.push(performance.now() - started);
      this.#release(instance);
    }
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.#instances.map(
        ({ process }) =>
          new Promise<void>((resolve) => {
            if (process.exitCode !== null || process.signalCode !== null) return resolve();
            process.once('exit', () => resolve());
            process.kill('SIGKILL');
          }),
      ),
    );
    this.#instances.length = 0;
    if (this.#directory) await rm(this.#directory, { recursive: true, force: true });
  }

  async #acquire(): Promise<Instance> {
    const free = this.#instances.find((instance) => !instance.busy);
    if (free) {
      free.busy = true;
      return free;
    }
    if (this.#instances.length + this.#starting < (this.#options.maxInstances ?? 1)) {
      this.#starting++;
      try {
        const instance = await this.#start();
        this.#instances.push(instance);
        return instance;
      } finally {
        this.#starting--;
      }
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #release(instance: Instance): void {
    const next = this.#waiting.shift();
    if (next) next(instance);
    else instance.busy = false;
  }

  async #taskRoot(): Promise<string> {
    if (this.#directory === undefined) {
      const directory = await mkdtemp(join(tmpdir(), `lambda-${this.#options.functionName}-`));
      await cp(this.#options.assetDirectory, join(directory, 'task'), { recursive: true });
      await copyFile(SHIM, join(directory, SHIM_NAME));
      if (this.#options.providedModules)
        await symlink(this.#options.providedModules, join(directory, 'node_modules'), 'dir');
      this.#directory = directory;
    }
    return this.#directory;
  }

  async #start(): Promise<Instance> {
    const options = this.#options;
    const root = await this.#taskRoot();
    const task = join(root, 'task');
    const child = fork(join(root, SHIM_NAME), [], {
      cwd: task,
      // Only what Lambda gives a function: no inherited variables (NODE_OPTIONS, npm's paths) leak in.
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        LANG: 'en_US.UTF-8',
        TZ: ':UTC',
        LAMBDA_TASK_ROOT: task,
        _HANDLER: options.handler ?? 'index.handler',
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
        AWS_LAMBDA_FUNCTION_NAME: options.functionName,
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(options.memorySize),
        AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
        AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${options.functionName}`,
        AWS_LAMBDA_LOG_STREAM_NAME: `cli/local/${randomUUID()}`,
        ...options.environment,
      },
      execArgv: [],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const forward = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') options.onOutput?.(line);
    };
    child.stdout?.on('data', forward);
    child.stderr?.on('data', forward);
    const initMs = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new FunctionInvocationError(`${options.functionName}: init timed out`)),
        INIT_TIMEOUT_MS,
      );
      child.once('message', (reply: Reply) => {
        clearTimeout(timer);
        if (reply.type === 'ready') resolve(reply.initMs);
        else
          reject(
            new FunctionInvocationError(`${options.functionName}: init failed: ${JSON.stringify(reply)}`),
          );
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new FunctionInvocationError(`${options.functionName}: exited during init (${code})`));
      });
    });
    this.initDurations.push(initMs);
    return { process: child, busy: true };
  }

  #send(instance: Instance, event: unknown): Promise<unknown> {
    const { functionName, functionArn, timeoutSeconds } = this.#options;
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) =>
        reject(new FunctionInvocationError(`${functionName}: the process exited (${code}) mid-invocation`));
      const onMessage = (reply: Reply) => {
        if (!('id' in reply) || reply.id !== id) return;
        instance.process.off('message', onMessage);
        instance.process.off('exit', onExit);
        if (reply.type === 'result') resolve(reply.result);
        else
          reject(new FunctionInvocationError(`${functionName}: ${reply.error.name}: ${reply.error.message}`));
      };
      instance.process.on('message', onMessage);
      instance.process.once('exit', onExit);
      instance.process.send({
        id,
        event,
        requestId: id,
        functionArn,
        deadline: Date.now() + timeoutSeconds * 1000,
      });
    });
  }
}
