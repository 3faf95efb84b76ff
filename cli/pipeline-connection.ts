import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createPipelineAdapters } from '../lambdas/shared/pipeline-adapters.ts';
import { HmacDocumentKeys } from '../src/adapters/audit/hmac-document-keys.ts';
import { DynamoDbSubjectErasure } from '../src/adapters/aws/dynamodb-subject-erasure.ts';
import { eventBridgePublisher } from '../src/adapters/aws/eventbridge-publisher.ts';
import { secretStringOf } from '../src/adapters/aws/secrets-manager-token.ts';
import { type BatchStores, joinBatchStores } from '../src/adapters/batch-stores.ts';
import { MemoryLogger } from '../src/adapters/memory/memory-logger.ts';
import { DEFAULT_SETTINGS, type PipelineSettings } from '../src/contract/index.ts';
import type {
  AuditLog,
  BatchStore,
  ChargeBudget,
  DecisionOverrides,
  DocumentKeys,
  EventPublisher,
  Logger,
  ObjectStore,
  ReviewCases,
  SubjectErasureStore,
  WorkQueue,
} from '../src/domain/ports/index.ts';
import { CliError } from './cli-error.ts';
import { LocalPipeline } from './local/local-pipeline.ts';
import { LocalServicesError } from './local/local-services.ts';
import { localSettings } from './local/local-settings.ts';
import { LocalStateDirectory, LocalStateError } from './local/local-state.ts';
import type { TARGET_OPTIONS } from './option-groups.ts';
import type { OptionsOf } from './option-types.ts';
import { printable } from './terminal-text.ts';

/** A pipeline the control commands act on: a deployed stack, or the local state directory. */
export interface PipelineConnection extends BatchStores {
  /** Said in messages: `stack <name>` or `local state <dir>`. */
  readonly where: string;
  /** The four stores as one, for what reads across them. */
  readonly store: BatchStore;
  readonly objects: ObjectStore;
  readonly queue: WorkQueue;
  readonly budget: ChargeBudget;
  readonly overrides: DecisionOverrides;
  readonly reviewCases: ReviewCases;
  /** The audit log, and the deployment's keyed hash that names documents in it. */
  readonly audit: { readonly log: AuditLog; readonly documentKeys: DocumentKeys };
  /** What a data subject's erasure changes in the table (no function of the pipeline is given it). */
  readonly subjectErasure: SubjectErasureStore;
  /** The pipeline's events: the stack's bus, or the local pipeline's record of them. */
  readonly events: EventPublisher;
  readonly logger: Logger;
  /** Set for the local state: the pipeline, whose workers run while the connection is open. */
  readonly local: LocalPipeline | null;
  close(): Promise<void>;
}

/** Where a command acts: `--stack`, or the local `--state` directory. */
export type TargetOptions = OptionsOf<typeof TARGET_OPTIONS>;

const REQUIRED_OUTPUTS = [
  'BucketName',
  'TableName',
  'WorkQueueUrl',
  'FinaliseQueueUrl',
  'DispatchQueueUrl',
] as const;

/** Refuses a stack without every output the CLI reads, in one line that says whether to deploy it again. */
function checkOutputs(stackName: string, outputs: ReadonlyMap<string, string>): void {
  const missing = REQUIRED_OUTPUTS.filter((name) => !outputs.has(name));
  if (missing.length === 0) return;
  // A stack with the first outputs but not the newer ones is one deployed by an earlier version.
  if (outputs.has('BucketName') && outputs.has('TableName'))
    throw new CliError(
      `stack ${stackName} was deployed by an earlier credit-screen: it has no output ${missing.join(', ')}; deploy it again (npx cdk deploy)`,
    );
  throw new CliError(
    `stack ${stackName} is not a credit-screen stack: it has no output ${missing.join(', ')}`,
  );
}

/**
 * The deployed pipeline behind a stack, from the stack's outputs. SDK clients take credentials, region and
 * endpoints from the standard AWS settings (profiles, `AWS_REGION`, `AWS_ENDPOINT_URL` and its per-service forms),
 * which is also how tests point this same code at the local emulators.
 */
export async function connectToStack(stackName: string): Promise<PipelineConnection> {
  const cloudFormation = new CloudFormationClient({});
  let outputs: Map<string, string>;
  try {
    const result = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
    const stack = result.Stacks?.[0];
    if (!stack) throw new CliError(`stack ${stackName} not found`);
    outputs = new Map(
      (stack.Outputs ?? []).flatMap((output) =>
        output.OutputKey && output.OutputValue ? [[output.OutputKey, output.OutputValue]] : [],
      ),
    );
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read stack ${stackName}: ${(error as Error).message}`);
  } finally {
    cloudFormation.destroy();
  }
  checkOutputs(stackName, outputs);
  const clients = {
    dynamo: DynamoDBDocumentClient.from(new DynamoDBClient({}), {
      marshallOptions: { removeUndefinedValues: true },
    }),
    s3: new S3Client({}),
    sqs: new SQSClient({}),
    eventBridge: new EventBridgeClient({}),
  };
  const adapters = createPipelineAdapters(
    clients,
    {
      bucketName: outputs.get('BucketName') as string,
      tableName: outputs.get('TableName') as string,
      workQueueUrl: outputs.get('WorkQueueUrl') as string,
      finaliseQueueUrl: outputs.get('FinaliseQueueUrl') as string,
      dispatchQueueUrl: outputs.get('DispatchQueueUrl') as string,
    },
    // Only TTLs of items written here depend on settings; the control commands write none of their own.
    DEFAULT_SETTINGS,
  );
  const eventBusName = outputs.get('EventBusName');
  const auditKeyArn = outputs.get('AuditKeySecretArn');
  const secrets = new SecretsManagerClient({});
  return {
    where: `stack ${stackName}`,
    ...adapters,
    events:
      eventBusName === undefined
        ? eventsNotAnnounced(stackName)
        : eventBridgePublisher({ client: clients.eventBridge, eventBusName, fullDocuments: false }),
    audit: { log: adapters.auditLog, documentKeys: stackDocumentKeys(stackName, secrets, auditKeyArn) },
    subjectErasure: new DynamoDbSubjectErasure({
      client: clients.dynamo,
      tableName: outputs.get('TableName') as string,
    }),
    store: joinBatchStores(adapters),
    logger: new MemoryLogger(),
    local: null,
    close: async () => {
      clients.dynamo.destroy();
      clients.s3.destroy();
      clients.sqs.destroy();
      clients.eventBridge.destroy();
      secrets.destroy();
    },
  };
}

/** The stack's audit key, read when first needed; a stack deployed before the audit log has none to read. */
function stackDocumentKeys(
  stackName: string,
  secrets: SecretsManagerClient,
  auditKeyArn: string | undefined,
): DocumentKeys {
  return new HmacDocumentKeys(
    auditKeyArn === undefined
      ? async () => {
          throw new CliError(
            `stack ${stackName} has no AuditKeySecretArn output (deployed before the audit log): deploy it again`,
          );
        }
      : secretStringOf(secrets, auditKeyArn),
  );
}

/** A stack deployed before it named its event bus: events cannot be announced until it is deployed again. */
function eventsNotAnnounced(stackName: string): EventPublisher {
  const refuse = async () => {
    throw new Error(
      `stack ${stackName} has no EventBusName output (deployed before overrides): deploy it again`,
    );
  };
  return {
    batchCompleted: refuse,
    policyRejected: refuse,
    overrideRecorded: refuse,
    batchAwaitingApproval: refuse,
    portfolioChanged: refuse,
    documentsChanged: refuse,
    budgetExhausted: refuse,
  };
}

/**
 * The local pipeline on the state directory, its stores only: a command that needs its workers and finaliser
 * starts them (`local.startWorkers`) once it knows which bureau they call.
 */
async function connectToLocalState(
  stateDirectory: string,
  settings: Partial<PipelineSettings>,
): Promise<PipelineConnection> {
  let pipeline: LocalPipeline;
  try {
    // Only screen and rescreen make a state directory: a typo here must not leave a new, empty one behind.
    const exists = await LocalStateDirectory.exists(stateDirectory).catch((error: unknown) => {
      throw error instanceof LocalStateError ? new CliError(`--state ${error.message}`) : error;
    });
    if (!exists)
      throw new CliError(
        `--state ${printable(stateDirectory)}: no credit-screen state there (screen and rescreen make one); check the path`,
      );
    pipeline = await LocalPipeline.start({
      settings: { ...localSettings(), ...settings },
      // Until workers start nothing calls the bureau; the URL only has to be well formed.
      bureauBaseUrl: 'http://127.0.0.1:9',
      token: 'unused',
      stateDirectory,
      eventSources: false,
    });
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw asLocalStartCliError(error);
  }
  return {
    where: `local state ${stateDirectory}`,
    ...pipeline.adapters,
    events: pipeline.events,
    audit: pipeline.audit,
    subjectErasure: new DynamoDbSubjectErasure({
      client: pipeline.stack.clients.dynamo,
      tableName: pipeline.stack.resources.tableName,
    }),
    store: pipeline.store,
    logger: pipeline.logger,
    local: pipeline,
    close: () => pipeline.stop(),
  };
}

/**
 * A local services or state directory that could not be opened (no Java, a directory in use) is one line for the
 * user; anything else is returned as it is.
 */
export function asLocalStartCliError(error: unknown): unknown {
  if (error instanceof LocalServicesError || error instanceof LocalStateError)
    return new CliError(error.message);
  return error;
}

/** Opens the connection the options name, runs `body`, and always closes it. */
export async function withConnection<T>(
  options: TargetOptions,
  body: (connection: PipelineConnection) => Promise<T>,
  localOverrides: Partial<PipelineSettings> = {},
): Promise<T> {
  const connection = options.stack
    ? await connectToStack(options.stack)
    : await connectToLocalState(options.state, localOverrides);
  try {
    return await body(connection);
  } finally {
    await connection.close();
  }
}
