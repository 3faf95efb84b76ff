/**
 * One core per ZEN process, where the machine lets us say so. zen-engine 0.54.0 hands every evaluation from the
 * JavaScript thread to a pool of its own threads, one per core the process may run on, and back: with two cores, each
 * process ran two such threads beside its JavaScript thread, and the hand-overs between them cost more than the
 * evaluation. Measured on the reference machine (2 cores, the sample policy marked for its fired rules): 140 µs of
 * CPU an evaluation in a process that may use both cores, 101 µs in one that may use one, for the same wall time.
 *
 * The engine sizes its pool from the cores the process is allowed (its CPU affinity), so the process is started
 * through `taskset` on one core. Without `taskset`, or when the cores allowed cannot be read (another system than
 * Linux, a sandbox without `/proc`), the process is started as usual and only pays the hand-overs: pinning is a
 * saving, never a condition.
 */
import { existsSync, readFileSync } from 'node:fs';

const TASKSET = '/usr/bin/taskset';

/** The cores this process may run on, from `/proc/self/status` (`Cpus_allowed_list: 0-3,6`), or none when unknown. */
export function allowedCores(status?: string): number[] {
  let text = status;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/status', 'utf8');
    } catch {
      return [];
    }
  }
  const list = text.match(/^Cpus_allowed_list:\s*([\d,\s-]+)$/m)?.[1]?.trim();
  if (!list) return [];
  const cores: number[] = [];
  for (const part of list.split(',')) {
    const [first, last = first] = part.split('-').map((bound) => Number(bound.trim()));
    if (!Number.isInteger(first) || !Number.isInteger(last) || (last as number) < (first as number))
      return [];
    for (let core = first as number; core <= (last as number); core++) cores.push(core);
  }
  return cores;
}

/** How to start the n-th ZEN process: through `taskset` on one of the allowed cores, or plainly. */
export interface Launch {
  /** The program `fork` runs (`taskset`), or none for Node itself. */
  readonly execPath?: string;
  /** What comes before the evaluator's path: Node's flags, after `-c <core> <node>` for `taskset`. */
  readonly execArgv: string[];
}

/**
 * The launch of the process started `started`-th (0, 1, …) with Node's `flags`: pinned round-robin over the allowed
 * cores when there is more than one of them and `taskset` is there (a process allowed one core already has a pool
 * of one thread).
 */
export function pinnedLaunch(
  started: number,
  flags: readonly string[],
  cores: readonly number[] = allowedCores(),
): Launch {
  if (cores.length < 2 || !existsSync(TASKSET)) return { execArgv: [...flags] };
  const core = cores[started % cores.length] as number;
  return { execPath: TASKSET, execArgv: ['-c', String(core), process.execPath, ...flags] };
}
