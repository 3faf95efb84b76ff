import { spawn } from 'node:child_process';
import { Socket } from 'node:net';

/**
 * The watchdog's program. It holds the read end of a pipe whose only write end is in the parent; the kernel
 * closes that end however the parent ends, `kill -9` included, and the watchdog then stops the child: SIGTERM, and
 * SIGKILL if it is still there after five seconds. It also leaves when the child is gone.
 */
const WATCHDOG_PROGRAM = `
const pid = Number(process.argv[1]);
const gone = () => { try { process.kill(pid, 0); return false; } catch { return true; } };
const watching = setInterval(() => { if (gone()) process.exit(0); }, 1000);
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  clearInterval(watching);
  try { process.kill(pid, 'SIGTERM'); } catch { process.exit(0); }
  const since = Date.now();
  setInterval(() => {
    if (gone()) process.exit(0);
    if (Date.now() - since > 5000) { try { process.kill(pid, 'SIGKILL'); } catch {} process.exit(0); }
  }, 100);
};
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.on('error', stop);
process.stdin.resume();
`;

/** A process that stops a child if this process dies without stopping it. */
export interface ChildWatchdog {
  readonly pid: number | undefined;
  /** Stands the watchdog down (the child was stopped the ordinary way, or is about to be). */
  release(): void;
}

/**
 * Makes `childPid` die with this process. A child (DynamoDB Local, on Java) outlives a parent killed with
 * `kill -9`, and would keep the state's database open while the next run starts another server on it. Node
 * cannot ask the kernel to signal a child when its parent dies, so a small watchdog process does it: it runs in
 * its own process group (a Ctrl-C meant for the command does not reach it) and keeps nothing of this process
 * alive.
 */
export function watchOverChild(childPid: number): ChildWatchdog {
  const watchdog = spawn(process.execPath, ['-e', WATCHDOG_PROGRAM, String(childPid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
    env: {},
  });
  watchdog.on('error', () => undefined);
  watchdog.stdin?.on('error', () => undefined);
  if (watchdog.stdin instanceof Socket) watchdog.stdin.unref();
  watchdog.unref();
  return {
    pid: watchdog.pid,
    release: () => {
      watchdog.kill('SIGKILL');
    },
  };
}
