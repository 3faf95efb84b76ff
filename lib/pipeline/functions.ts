import { fileURLToPath } from 'node:url';
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import {
  CONSOLE_API_FUNCTION,
  type DeployedFunction,
  FUNCTION_NATIVE_MODULES,
  functionArchitecture,
  functionSpecs,
  heapLimitMegabytes,
  type PipelineFunction,
  type PipelineSettings,
  pipelineEnvironmentVariables,
  ZEN_PROCESSES_VARIABLE,
  zenProcessesFor,
} from '../../src/contract/index.ts';
import { type LambdaArchitecture, resolveNativeModule, type ShippedPackage } from './native-modules.ts';
import type { PipelineQueues } from './queues.ts';

/** The pipeline's functions, by the contract's names. */
export type PipelineFunctions = Readonly<Record<PipelineFunction, NodejsFunction>>;

const FUNCTIONS_FOLDER = fileURLToPath(new URL('../../lambdas/', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The file a function that decides forks to run ZEN (src/adapters/decision/zen-process/): copied beside its bundle. */
const ZEN_EVALUATOR = fileURLToPath(
  new URL('../../src/adapters/decision/zen-process/zen-evaluator.mjs', import.meta.url),
);

/** How every function is bundled: minified ESM for Node 22, with source maps and the SDK the tests ran. */
const BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  sourceMap: true,
  minify: true,
  target: 'node22',
  // esm output needs a require shim for the CommonJS dependencies bundled in.
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  forceDockerBundling: false,
  // Production runs the SDK the tests ran, not whichever one the Lambda runtime happens to carry.
  bundleAwsSDK: true,
};

const ZEN_ENGINE = '@gorules/zen-engine';

/** A path as one word of the bundling hook's shell command, whatever characters it holds. */
const shellWord = (path: string): string => `'${path.replaceAll("'", "'\\''")}'`;

/**
 * The bundling of a function that loads native modules on `architecture`: they stay out of the bundle and are copied
 * beside it, each with exactly the build that architecture's Lambda loads, at the version package.json pins
 * (./native-modules.ts: from node_modules where npm installed it, as on x86_64 Linux and in CI, else fetched from the
 * registry), never the build machine's own binary. They are resolved as the stack is built when it is bundled, so a
 * build that cannot be had fails synth in one line; a synth that skips bundling (template tests) fetches nothing.
 */
function withNativeModules(
  scope: Construct,
  bundling: BundlingOptions,
  modules: readonly string[],
  architecture: LambdaArchitecture,
): BundlingOptions {
  if (modules.length === 0) return bundling;
  let resolved: readonly ShippedPackage[] | undefined;
  const packages = () => {
    resolved ??= modules.flatMap((name) =>
      resolveNativeModule(name, architecture, { projectRoot: PROJECT_ROOT }),
    );
    return resolved;
  };
  if (Stack.of(scope).bundlingRequired) packages();
  return {
    ...bundling,
    externalModules: [...modules],
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_inputDir: string, outputDir: string) => [
        ...packages().map(({ name, directory }) => {
          const target = shellWord(`${outputDir}/node_modules/${name}`);
          return `mkdir -p ${target} && cp -R ${shellWord(`${directory}/.`)} ${target}/`;
        }),
        ...(modules.includes(ZEN_ENGINE)
          ? [`cp ${shellWord(ZEN_EVALUATOR)} ${shellWord(`${outputDir}/zen-evaluator.mjs`)}`]
          : []),
      ],
    },
  };
}

/** What every function shares: its settings, the key of its log group, and the environment it starts with. */
export interface FunctionDefaults {
  readonly settings: PipelineSettings;
  readonly key: kms.IKey;
  readonly logGroupPrefix: string;
  readonly removalPolicy: RemovalPolicy;
  /** The variables every function gets (where its resources are, the settings). */
  readonly environment: Readonly<Record<string, string>>;
}

/** Where the functions' resources are (CDK tokens until deployment). */
export interface FunctionResources {
  readonly table: dynamodb.ITable;
  readonly bucket: s3.IBucket;
  readonly queues: PipelineQueues;
  readonly eventBus: events.IEventBus;
  readonly tokenSecret: secretsmanager.ISecret;
  /** Keys documents in the audit log (an HMAC key the deployment generates). */
  readonly auditKeySecret: secretsmanager.ISecret;
  readonly bureauBaseUrl: string;
}

/** The environment every function starts with: where its resources are and the settings. */
export function functionEnvironment(
  resources: FunctionResources,
  settings: PipelineSettings,
): Record<string, string> {
  const locations = {
    tableName: resources.table.tableName,
    bucketName: resources.bucket.bucketName,
    workQueueUrl: resources.queues.work.queueUrl,
    finaliseQueueUrl: resources.queues.finalise.queueUrl,
    dispatchQueueUrl: resources.queues.dispatch.queueUrl,
    eventBusName: resources.eventBus.eventBusName,
    bureauBaseUrl: resources.bureauBaseUrl,
    // The secret's ARN, never its value.
    tokenSecretId: resources.tokenSecret.secretArn,
    auditKeySecretId: resources.auditKeySecret.secretArn,
  };
  return {
    ...pipelineEnvironmentVariables(locations, settings),
    POWERTOOLS_SERVICE_NAME: 'credit-screen',
    POWERTOOLS_LOG_LEVEL: 'INFO',
  };
}

/** Builds one function: construct id, entry under `lambdas/`, its contract name and any extra variables. */
export type FunctionFactory = (
  name: string,
  entry: string,
  options: { readonly spec: DeployedFunction; readonly environment?: Record<string, string> },
) => NodejsFunction;

/**
 * A factory of the pipeline's functions, each with the contract's memory and timeout, a heap limit to match, an
 * encrypted log group of its own under `logGroupPrefix`, and X-Ray tracing.
 */
export function functionFactory(scope: Construct, defaults: FunctionDefaults): FunctionFactory {
  const specs = { ...functionSpecs(defaults.settings), consoleApi: CONSOLE_API_FUNCTION };
  return (name, entry, options) => {
    const { memoryMegabytes, timeoutSeconds } = specs[options.spec];
    const logGroup = new logs.LogGroup(scope, `${name}Logs`, {
      logGroupName: `${defaults.logGroupPrefix}${name}`,
      retention: logs.RetentionDays.THREE_MONTHS,
      encryptionKey: defaults.key,
      removalPolicy: defaults.removalPolicy,
    });
    const architecture = functionArchitecture(options.spec);
    const created = new NodejsFunction(scope, name, {
      entry: `${FUNCTIONS_FOLDER}${entry}`,
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: architecture === 'x86_64' ? lambda.Architecture.X86_64 : lambda.Architecture.ARM_64,
      memorySize: memoryMegabytes,
      timeout: Duration.seconds(timeoutSeconds),
      environment: {
        ...defaults.environment,
        ...options.environment,
        NODE_OPTIONS: `--enable-source-maps --max-old-space-size=${heapLimitMegabytes(memoryMegabytes)}`,
        ...(FUNCTION_NATIVE_MODULES[options.spec]?.includes(ZEN_ENGINE)
          ? { [ZEN_PROCESSES_VARIABLE]: String(zenProcessesFor(memoryMegabytes)) }
          : {}),
      },
      logGroup,
      tracing: lambda.Tracing.ACTIVE,
      bundling: withNativeModules(scope, BUNDLING, FUNCTION_NATIVE_MODULES[options.spec] ?? [], architecture),
    });
    Validations.of(created).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'The functions target Node.js 22, the runtime the project is built and tested for.',
    });
    return created;
  };
}

/** The functions that run a batch (the portfolio-schedules function comes with the portfolios). */
export function createBatchFunctions(fn: FunctionFactory): Omit<PipelineFunctions, 'portfolioSchedules'> {
  return {
    ingest: fn('Ingest', 'ingest/handler.ts', { spec: 'ingest' }),
    worker: fn('Worker', 'worker/handler.ts', { spec: 'worker' }),
    finalise: fn('Finalise', 'finalise/handler.ts', { spec: 'finalise' }),
    deadLetter: fn('DeadLetter', 'dead-letter/handler.ts', { spec: 'deadLetter' }),
    sweeper: fn('Sweeper', 'sweeper/handler.ts', { spec: 'sweeper' }),
    policyCheck: fn('PolicyCheck', 'policy-check/handler.ts', { spec: 'policyCheck' }),
    dispatch: fn('Dispatch', 'dispatch/handler.ts', { spec: 'dispatch' }),
  };
}
