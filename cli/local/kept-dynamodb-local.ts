/**
 * DynamoDB Local kept running between the runs of one process on one state folder. A command stops its Java as it
 * ends, and the next command on the folder starts another: about 2 CPU-seconds and 1.5 s of wall time each. A
 * process that runs many commands one after another (the test suite's warm command line: in the CLI tests, 57 of 124
 * Java starts were on a folder an earlier command of the same process had just left) turns keeping on: a run on a state folder then leaves its
 * server here instead of stopping it, marks the folder's lock as parked (`LocalStateDirectory.release`), and the
 * next run of this process on the same folder takes it back.
 *
 * A parked server is never used on a database that changed under it: another process opening the folder stops it
 * (a parked lock is not held), `--fresh` stops it before emptying the folder, and a database file that is not the
 * one it was parked on (replaced, rewritten, written to) makes the next run start a new server. Servers are kept by
 * the folder's real path (a symlink or a relative path names the same one), at most {@link MAX_PARKED} at a time,
 * and never one that writes the class archive as it exits (the other starts would go without it until then).
 */
import type { ChildProcess } from 'node:child_process';
import { realpathSync, statSync } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import {
  DYNAMODB_LOCAL_DATABASE_FILE,
  type DynamoDbLocal,
  stopProcess,
  writesClassArchive,
} from './dynamodb-local.ts';

/** A DynamoDB Local a stack started itself (not the memory engine's stand-in, not a shared one). */
export type OwnDynamoDbLocal = DynamoDbLocal & { readonly process: ChildProcess };

interface ParkedServer {
  readonly dynamo: OwnDynamoDbLocal;
  /** The database file as it was parked (inode, size, modification time). */
  readonly databaseFile: string;
}

/** Idle servers kept at once (about 180 MB of memory each): the oldest is stopped to park another. */
const MAX_PARKED = 2;

let keeping = false;
/** By the real path of the database folder, the oldest first. */
const parked = new Map<string, ParkedServer>();

/** The folder's real path: one key however the folder is named. */
function keyOf(databasePath: string): string {
  try {
    return realpathSync(databasePath);
  } catch {
    return databasePath;
  }
}

/** Whether `pid` is a server this process has parked (a lock naming it may be taken back rather than reclaimed). */
export function isParkedHere(pid: number): boolean {
  return [...parked.values()].some(({ dynamo }) => dynamo.process.pid === pid);
}

/**
 * From now on, runs of this process on a state folder leave their DynamoDB Local running for the next run on the
 * same folder (`keep` true), or stop it as they end (false, the default). Kept servers still die with the process
 * (their watchdog); {@link stopKeptDynamoDbLocals} stops them.
 */
export function keepDynamoDbLocalBetweenRuns(keep: boolean): void {
  keeping = keep;
}

/** Stops every parked server (a process that kept them, about to end, lets each write its class archive). */
export async function stopKeptDynamoDbLocals(): Promise<void> {
  const servers = [...parked.values()];
  parked.clear();
  await Promise.all(servers.map(({ dynamo }) => stop(dynamo)));
}

/**
 * The identity of a database file: another inode, size or modification time is another database. (Not its change
 * time: opening the folder sets the files' mode again, which changes it.)
 */
function databaseFileOf(databasePath: string): string {
  const file = statSync(join(databasePath, DYNAMODB_LOCAL_DATABASE_FILE), { throwIfNoEntry: false });
  return file === undefined ? 'none' : `${file.ino}:${file.size}:${file.mtimeMs}`;
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** Makes the server's handles keep this process alive (`true`), or not: a parked server must not hold it up. */
function holdProcess(dynamo: OwnDynamoDbLocal, hold: boolean): void {
  const { process: child } = dynamo;
  if (hold) child.ref();
  else child.unref();
  for (const stream of [child.stdout, child.stderr])
    if (stream instanceof Socket) {
      if (hold) stream.ref();
      else stream.unref();
    }
}

async function stop(dynamo: OwnDynamoDbLocal): Promise<void> {
  holdProcess(dynamo, true);
  await stopProcess(dynamo.process);
  dynamo.watchdog?.release();
}

/**
 * Leaves a run's server running for the next run on `databasePath`, when keeping is on and it still runs. Returns
 * whether it was parked; if not, the caller stops it.
 */
export async function parkDynamoDbLocal(databasePath: string, dynamo: OwnDynamoDbLocal): Promise<boolean> {
  const key = keyOf(databasePath);
  const { process: child } = dynamo;
  if (!keeping || parked.has(key) || !running(child) || writesClassArchive(child)) return false;
  const [oldestKey, oldest] = parked.size >= MAX_PARKED ? ([...parked][0] ?? []) : [];
  if (oldestKey !== undefined && oldest !== undefined) {
    parked.delete(oldestKey);
    await stop(oldest.dynamo);
  }
  holdProcess(dynamo, false);
  parked.set(key, { dynamo, databaseFile: databaseFileOf(databasePath) });
  return true;
}

/** Stops the server parked on `databasePath`, if any (its lock could not be marked parked: nothing would name it). */
export async function stopParkedDynamoDbLocal(databasePath: string): Promise<void> {
  const key = keyOf(databasePath);
  const server = parked.get(key);
  if (server === undefined) return;
  parked.delete(key);
  await stop(server.dynamo);
}

/**
 * The server parked on `databasePath`, taken back, or null when there is none that may be used (it was stopped, or
 * its database changed since: then it is stopped, and the caller starts a new one).
 */
export async function takeParkedDynamoDbLocal(databasePath: string): Promise<OwnDynamoDbLocal | null> {
  const key = keyOf(databasePath);
  const server = parked.get(key);
  if (server === undefined) return null;
  parked.delete(key);
  if (running(server.dynamo.process) && databaseFileOf(databasePath) === server.databaseFile) {
    holdProcess(server.dynamo, true);
    return server.dynamo;
  }
  await stop(server.dynamo);
  return null;
}
