/**
 * ZEN's evaluations, run in child processes (zen-evaluator.mjs). Two reasons, both measured with zen-engine 0.54.0:
 *
 * - **No value can kill a run.** The engine aborts its process on a number it cannot hold (an answer of 2^64 or
 *   more, an overflowing product or quotient): exit 134, whatever the caller catches. In a child, that abort ends the
 *   child; the pool sends the contexts it was evaluating again, one per child, so that only the context that stops
 *   the engine is answered {@link ZenAnswer} `stopped`, with the engine's own reason (its panic message, never its
 *   backtrace), and every other one gets its answer.
 * - **Every core.** A call into ZEN costs tens of microseconds of one core; contexts sent together are spread over
 *   as many children as the machine has cores (or as the caller asks), so that `decide` and the finaliser decide on
 *   every core with ZEN alone.
 *
 * Children start lazily, are shared by every policy of the process (a policy's graphs are loaded into each child
 * under a key), and never keep the process alive while nothing is asked of them.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { ZEN_PROCESSES_VARIABLE } from '../../../contract/functions.ts';
import { type Launch, pinnedLaunch } from './core-pinning.ts';

/** One context's answer: ZEN's result (and trace), ZEN's error, or the engine stopping on it. */
export type ZenAnswer =
  | { readonly ok: true; readonly result: unknown; readonly trace?: unknown }
  | { readonly ok: false; readonly error: string; readonly stopped?: false }
  | { readonly ok: false; readonly error: string; readonly stopped: true };

interface Request {
  readonly key: string;
  readonly context: unknown;
  readonly trace: boolean;
  /** Sent alone: it was in a message whose child stopped, and is tried again by itself. */
  readonly alone: boolean;
  readonly resolve: (answer: ZenAnswer) => void;
}

interface Child {
  readonly process: ChildProcess;
  /** Messages sent and not answered yet, by id. */
  readonly inFlight: Map<number, readonly Request[]>;
  /** The end of what the child wrote on stderr: the engine's panic message when it aborts. */
  stderr: string;
  /** Whether it ever answered (a child that stops before its first answer could not start the engine). */
  answered: boolean;
  /** Started on a core of its own (core-pinning.ts). */
  readonly pinned: boolean;
}

/** Contexts in one message: enough to amortise a message's cost, few enough to keep every child busy. */
const CONTEXTS_PER_MESSAGE = 128;
/** Messages in flight per child: one being evaluated while the next is on its way. */
const MESSAGES_PER_CHILD = 2;
/** Children that stop before answering anything, one after another, before the engine is taken as unable to start. */
const MAX_START_FAILURES = 3;
const STDERR_KEPT = 8192;
/**
 * Node's flags for a ZEN process. Not the parent's (a TypeScript loader, a heap size): the evaluator is plain
 * JavaScript whose objects live for one message, so a young generation of 1 MB semi-spaces holds them (measured on
 * 60,000 decisions: 64 MB of RSS a process instead of 74, at the same rate).
 */
const EVALUATOR_FLAGS = ['--max-semi-space-size=1'];
/** How a Rust panic begins on stderr: `thread '<unnamed>' panicked at <file>:<line>:<column>:`. */
const PANIC = "' panicked at ";

/**
 * The evaluator's file: beside this module in the source tree, and beside the bundle's `index.mjs` in a Lambda
 * (the bundling copies it there), where this module's URL is the bundle's.
 */
function evaluatorPath(): string {
  const path = fileURLToPath(new URL('./zen-evaluator.mjs', import.meta.url));
  if (!existsSync(path)) throw new Error(`the ZEN evaluator is not at ${path}`);
  return path;
}

/** The engine's reason for stopping, from what it wrote on stderr: the panic's message, without its backtrace. */
export function panicReason(stderr: string, exit: string): string {
  const lines = stderr.split('\n');
  const at = lines.findIndex((line) => line.includes(PANIC));
  const message = at === -1 ? undefined : lines[at + 1]?.trim();
  return message ? `the engine stopped (${exit}): ${message}` : `the engine stopped (${exit})`;
}

/** A pool of ZEN processes. Most callers use {@link sharedZenPool}. */
export class ZenProcessPool {
  readonly #size: number;
  readonly #graphs = new Map<
    string,
    { readonly graph: unknown; readonly fields: readonly string[] | null }
  >();
  readonly #children: Child[] = [];
  readonly #queue: Request[] = [];
  #nextId = 0;
  #flushScheduled = false;
  #startFailures = 0;
  #startError: string | null = null;
  /** Children started so far (a restart after a stop counts): read by tests and benches. */
  started = 0;

  /** How the n-th process starts on a core of its own; null once a pinned start failed (pinning refused). */
  #pin: ((started: number, flags: readonly string[]) => Launch) | null;

  /**
   * @param options `processes`: how many (the cores by default); `pin`: how a process is started on a core of its
   *   own ({@link pinnedLaunch} by default; tests give one that fails)
   */
  constructor(
    options: {
      readonly processes?: number;
      readonly pin?: (started: number, flags: readonly string[]) => Launch;
    } = {},
  ) {
    this.#size = Math.max(1, options.processes ?? availableParallelism());
    this.#pin = options.pin ?? pinnedLaunch;
  }

  /**
   * Keeps a decision graph for evaluation; the key names it in {@link evaluate}. The key is the graph's hash, so a
   * policy loaded again (a warm worker opening a batch's copy) is kept once.
   */
  register(graph: unknown, fields: readonly string[] | null = null): string {
    const key = createHash('sha256')
      .update(JSON.stringify([graph, fields]))
      .digest('base64url');
    if (this.#graphs.has(key)) return key;
    this.#graphs.set(key, { graph, fields });
    for (const child of this.#children) child.process.send({ type: 'load', key, graph, fields });
    return key;
  }

  /**
   * Evaluates one context with a registered graph (with ZEN's trace when asked). Never rejects. A graph registered
   * with `fields` takes the context as the list of their values, in that order.
   */
  evaluate(key: string, context: unknown, trace: boolean): Promise<ZenAnswer> {
    return new Promise((resolve) => this.#enqueue({ key, context, trace, alone: false, resolve }));
  }

  #enqueue(request: Request): void {
    this.#queue.push(request);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    // Contexts asked for in the same turn of the event loop go together.
    setImmediate(() => {
      this.#flushScheduled = false;
      this.#flush();
    });
  }

  #flush(): void {
    if (this.#startError !== null) {
      for (const request of this.#queue.splice(0)) request.resolve({ ok: false, error: this.#startError });
      return;
    }
    while (this.#queue.length > 0) {
      const child = this.#idlest();
      if (child === null) return;
      const first = this.#queue[0] as Request;
      const batch: Request[] = [];
      if (first.alone) batch.push(this.#queue.shift() as Request);
      else {
        // A run of requests for the same graph and mode, taken in order.
        while (batch.length < this.#share()) {
          const next = this.#queue[0];
          if (next === undefined || next.alone || next.key !== first.key || next.trace !== first.trace) break;
          batch.push(this.#queue.shift() as Request);
        }
      }
      this.#send(child, batch);
    }
  }

  /** How many contexts one message takes: the queue shared out over the children, at most a message's worth. */
  #share(): number {
    return Math.max(1, Math.min(CONTEXTS_PER_MESSAGE, Math.ceil(this.#queue.length / this.#size)));
  }

  /**
   * The child to send the queue's next message to, or none for now. An idle child takes whatever is queued; a busy
   * one takes a full message only, so that while it evaluates, what is asked meanwhile gathers into one message (a
   * message costs the parent a write and a parse whatever its size: measured, 16 % of `decide`'s time went to
   * writing messages of 16 contexts). Children are started up to the pool's size as long as all are busy.
   */
  #idlest(): Child | null {
    let best: Child | null = null;
    for (const child of this.#children) {
      if (best === null || child.inFlight.size < best.inFlight.size) best = child;
    }
    if (best !== null && best.inFlight.size === 0) return best;
    if (this.#children.length < this.#size) return this.#start();
    const full = this.#queue.length >= CONTEXTS_PER_MESSAGE * this.#size;
    return best !== null && full && best.inFlight.size < MESSAGES_PER_CHILD ? best : null;
  }

  #start(): Child {
    const launch = this.#pin?.(this.started, EVALUATOR_FLAGS) ?? { execArgv: [...EVALUATOR_FLAGS] };
    const process = fork(evaluatorPath(), [], {
      // On one core of its own where possible (core-pinning.ts).
      ...launch,
      // One thread of ZEN's own runtime per process: the evaluations of a process are sent one message at a time,
      // and more threads only hand each one over (measured on 96,000 decisions: 12.5 s of CPU in two processes
      // with the default, 10.4 s with one thread each).
      env: { TOKIO_WORKER_THREADS: '1', ...globalThis.process.env },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    this.started++;
    const child: Child = {
      process,
      inFlight: new Map(),
      stderr: '',
      answered: false,
      pinned: launch.execPath !== undefined,
    };
    process.stderr?.setEncoding('utf8');
    // Read while the child lives, but never a reason for this process to wait (the channel is, while busy).
    (process.stderr as (NodeJS.ReadableStream & { unref?: () => void }) | null)?.unref?.();
    process.stderr?.on('data', (text: string) => {
      child.stderr = (child.stderr + text).slice(-STDERR_KEPT);
    });
    process.on('message', (message: { id: number; answers: ZenAnswer[] }) => this.#answered(child, message));
    // 'close', not 'exit': by then everything it wrote on stderr (the panic's message) has been read.
    process.on('close', (code, signal) => this.#stopped(child, signal ?? `exit ${code}`));
    process.on('error', () => {
      // 'close' follows (or the fork failed: then no message was ever answered, and #stopped reports it).
    });
    for (const [key, { graph, fields }] of this.#graphs) process.send({ type: 'load', key, graph, fields });
    this.#children.push(child);
    this.#keepAlive(child);
    return child;
  }

  #send(child: Child, batch: readonly Request[]): void {
    const id = this.#nextId++;
    child.inFlight.set(id, batch);
    this.#keepAlive(child);
    const first = batch[0] as Request;
    child.process.send({
      type: 'evaluate',
      id,
      key: first.key,
      trace: first.trace,
      contexts: batch.map((request) => request.context),
    });
  }

  #answered(child: Child, message: { id: number; answers: ZenAnswer[] }): void {
    const batch = child.inFlight.get(message.id);
    if (batch === undefined) return;
    child.inFlight.delete(message.id);
    child.answered = true;
    this.#startFailures = 0;
    batch.forEach((request, index) => {
      request.resolve(message.answers[index] ?? { ok: false, error: 'the engine gave no answer' });
    });
    this.#keepAlive(child);
    this.#flush();
  }

  /** A child ended: what it was evaluating is tried again, one context per child, and a lone one is answered. */
  #stopped(child: Child, exit: string): void {
    const index = this.#children.indexOf(child);
    if (index !== -1) this.#children.splice(index, 1);
    const reason = panicReason(child.stderr, exit);
    const neverStarted = !child.answered && !child.stderr.includes(PANIC);
    // A pinned process that never answered: `taskset` may not set the affinity here (a sandbox that forbids it).
    // Pinning is a saving, never a condition: what it was sent goes to a process started plainly, unanswered.
    if (neverStarted && child.pinned) {
      this.#pin = null;
      for (const batch of [...child.inFlight.values()].reverse()) this.#queue.unshift(...batch);
      child.inFlight.clear();
      this.#flush();
      return;
    }
    // Never answered and did not panic on a value: the engine could not start (a binary missing, a broken install).
    // Without this a broken engine would be started again for every row.
    if (neverStarted) {
      this.#startFailures++;
      const said = child.stderr
        .split('\n')
        .find((line) => line.trim() !== '')
        ?.trim();
      if (this.#startFailures >= MAX_START_FAILURES)
        this.#startError = `the engine could not start (${exit}): ${said ?? 'it said nothing'}`;
    }
    for (const batch of child.inFlight.values()) {
      for (const request of batch) {
        if (request.alone || batch.length === 1) request.resolve({ ok: false, error: reason, stopped: true });
        else this.#queue.unshift({ ...request, alone: true });
      }
    }
    child.inFlight.clear();
    if (this.#queue.length > 0) this.#flush();
  }

  /** A child keeps the process alive only while it has something to answer. */
  #keepAlive(child: Child): void {
    const busy = child.inFlight.size > 0;
    const channel = child.process.channel as { ref?: () => void; unref?: () => void } | undefined;
    if (busy) {
      child.process.ref();
      channel?.ref?.();
    } else {
      child.process.unref();
      channel?.unref?.();
    }
  }

  /** Ends every child (tests and benches; a process that exits ends them too). */
  close(): void {
    for (const child of this.#children.splice(0)) child.process.kill();
  }
}

let shared: ZenProcessPool | null = null;

/**
 * The process's pool, made on first use. Its size is the machine's cores (measured with `npm run bench:decide` on
 * 2 cores: one ZEN process beside the command decided a million rows at a quarter of the rate the command reads
 * them, two at two fifths), or {@link ZEN_PROCESSES_VARIABLE} when set
 * (the construct sets it from a function's memory: a Lambda function with less than one vCPU gains nothing from a
 * second child).
 */
export function sharedZenPool(): ZenProcessPool {
  if (shared === null) {
    const setting = process.env[ZEN_PROCESSES_VARIABLE];
    const processes = setting === undefined || setting === '' ? undefined : Number(setting);
    if (processes !== undefined && !(Number.isInteger(processes) && processes >= 1 && processes <= 64))
      throw new Error(`${ZEN_PROCESSES_VARIABLE} must be a whole number from 1 to 64 (it is "${setting}")`);
    shared = new ZenProcessPool(processes === undefined ? {} : { processes });
  }
  return shared;
}
