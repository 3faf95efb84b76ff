import { join } from 'node:path';
import { DeleteTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import type { PipelineClients } from '../../lambdas/shared/pipeline-adapters.ts';
import { type PipelineSettings, TABLE } from '../../src/contract/index.ts';
import { compactDatabaseFile } from './database-compaction.ts';
import {
  assertJavaAvailable,
  DYNAMODB_LOCAL_DATABASE_FILE,
  type DynamoDbLocal,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  LocalServicesError,
  localDynamoDbClient,
  type SharedDynamoDb,
  startDynamoDbLocal,
  stopProcess,
  waitForDynamo,
} from './dynamodb-local.ts';
import {
  isParkedHere,
  parkDynamoDbLocal,
  stopParkedDynamoDbLocal,
  takeParkedDynamoDbLocal,
} from './kept-dynamodb-local.ts';
import {
  describeLocalPipeline,
  LOCAL_NAMES,
  type LocalPipelineDescription,
  type LocalResources,
} from './local-pipeline-description.ts';
import { createResources, deleteExpiredItems } from './local-resources.ts';
import { LocalStateDirectory } from './local-state.ts';
import { StrictAwsProxy, type StrictModeOptions, type StrictStats } from './strict-aws-proxy.ts';
import { writeBucketThrough } from './write-through-bucket.ts';

export {
  javaAvailable,
  LocalServicesError,
  type SharedDynamoDb,
  startSharedDynamoDbLocal,
} from './dynamodb-local.ts';
export {
  describeLocalPipeline,
  LOCAL_NAMES,
  type LocalPipelineDescription,
  type LocalResources,
} from './local-pipeline-description.ts';

/** How a {@link LocalServices} starts. */
export interface LocalServicesOptions {
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
export class LocalServices {
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
  static async start(settings: PipelineSettings, options: LocalServicesOptions = {}): Promise<LocalServices> {
    const memory = options.engine === 'memory';
    checkStartOptions(options);
    const state =
      options.stateDirectory === undefined
        ? null
        : await LocalStateDirectory.open(options.stateDirectory, {
            fresh: options.fresh,
            parkedHere: isParkedHere,
          });
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
      if (!memory) await waitForDynamo(dynamoClient, dynamo.process, dynamo.output, direct.dynamodb);
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
      return new LocalServices(
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
        await this.#releaseState();
      }
    }
  }

  /** The pid of the stack's DynamoDB Local once it is parked rather than stopped (see {@link #releaseDynamoDb}). */
  #parkedServer: number | undefined;

  /**
   * Lets the state directory go: its lock names the parked server, if any. A lock that could not say so would name
   * nothing another process could stop, so the server is stopped then, and the lock removed.
   */
  async #releaseState(): Promise<void> {
    const { state } = this;
    if (state === null) return;
    if (this.#parkedServer === undefined) return state.release();
    try {
      await state.release(this.#parkedServer);
    } catch (error) {
      await stopParkedDynamoDbLocal(state.dynamoDbPath);
      await state.release();
      throw error;
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

  /**
   * Stops the stack's own DynamoDB Local (or parks it for this process's next run on the state folder, when
   * keeping is on and no compaction waits for its exit), or drops its table from a shared one (which others go on
   * using).
   */
  async #releaseDynamoDb(): Promise<void> {
    if (this.engine === 'memory') return;
    const { process: dynamoProcess, tableName } = this.dynamo;
    if (dynamoProcess === null) {
      await this.connections.directDynamoDb.send(new DeleteTableCommand({ TableName: tableName }));
      return;
    }
    const own = { ...this.dynamo, process: dynamoProcess };
    const park = this.state !== null && !this.#compactAtStop;
    if (park && (await parkDynamoDbLocal((this.state as LocalStateDirectory).dynamoDbPath, own))) {
      this.#parkedServer = dynamoProcess.pid;
      return;
    }
    await stopProcess(dynamoProcess);
    this.dynamo.watchdog?.release();
  }
}

/** The clients a stack built and the strict endpoint, for its setup, its teardown and {@link LocalServices.stop}. */
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

/** Refuses what cannot be started together, and a missing Java when DynamoDB Local is to be started. */
function checkStartOptions(options: LocalServicesOptions): void {
  if (options.sharedDynamoDb !== undefined && options.stateDirectory !== undefined)
    throw new LocalServicesError('a state directory needs a DynamoDB Local of its own, not a shared one');
  if (options.engine !== 'memory') {
    if (options.sharedDynamoDb === undefined) assertJavaAvailable();
    return;
  }
  if (options.stateDirectory !== undefined || options.strict !== undefined)
    throw new LocalServicesError('the memory engine keeps no state directory and has no strict mode');
}

/** The DynamoDB a stack uses: none (memory engine), the shared one, or one of its own with the state's database. */
async function dynamoDbFor(
  options: LocalServicesOptions,
  state: LocalStateDirectory | null,
): Promise<DynamoDbLocal> {
  if (options.engine === 'memory') return NO_DYNAMODB;
  if (options.sharedDynamoDb !== undefined) return useSharedDynamoDb(options.sharedDynamoDb);
  const parked = state === null ? null : await takeParkedDynamoDbLocal(state.dynamoDbPath);
  return parked ?? startDynamoDbLocal(state, LOCAL_NAMES.table);
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
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      forcePathStyle: true,
    }),
    sqs: new SQSClient({ endpoint: s3AndSqsEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
  };
}
