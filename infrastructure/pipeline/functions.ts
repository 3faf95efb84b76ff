import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
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
import type { PipelineQueues } from './queues.ts';

/** The pipeline's functions, by the contract's names. */
export type PipelineFunctions = Readonly<Record<PipelineFunction, NodejsFunction>>;

const FUNCTIONS_FOLDER = fileURLToPath(new URL('../../src/functions/', import.meta.url));
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

/**
 * The bundling of a function that loads native modules: they stay out of the bundle and are copied beside it with
 * their installed platform package from this project's `node_modules` (the very binary the tests load; an install
 * in the asset folder would need a lock file that lists every platform's binary, which npm does not always write).
 */
const ZEN_ENGINE = '@gorules/zen-engine';

function withNativeModules(bundling: BundlingOptions, modules: readonly string[]): BundlingOptions {
  if (modules.length === 0) return bundling;
  const packages = modules.flatMap((name) => [name, ...installedPlatformPackages(name)]);
  return {
    ...bundling,
    externalModules: [...modules],
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) => [
        ...packages.map(
          (name) =>
            `mkdir -p "${outputDir}/node_modules/${name}" && cp -R "${inputDir}/node_modules/${name}/." "${outputDir}/node_modules/${name}/"`,
        ),
        ...(modules.includes(ZEN_ENGINE) ? [`cp "${ZEN_EVALUATOR}" "${outputDir}/zen-evaluator.mjs"`] : []),
      ],
    },
  };
}

/** The platform packages of a native module that npm installed here (its optional dependencies present on disk). */
function installedPlatformPackages(name: string): string[] {
  const manifest = JSON.parse(
    readFileSync(join(PROJECT_ROOT, 'node_modules', name, 'package.json'), 'utf8'),
  ) as {
    optionalDependencies?: Record<string, string>;
  };
  return Object.keys(manifest.optionalDependencies ?? {}).filter((optional) =>
    existsSync(join(PROJECT_ROOT, 'node_modules', optional, 'package.json')),
  );
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

/** Builds one function: construct id, entry under `src/functions/`, its contract name and any extra variables. */
export type FunctionFactory = (
  name: string,
  entry: string,
  options: { readonly spec: PipelineFunction; readonly environment?: Record<string, string> },
) => NodejsFunction;

/**
 * A factory of the pipeline's functions, each with the contract's memory and timeout, a heap limit to match, an
 * encrypted log group of its own under `logGroupPrefix`, and X-Ray tracing.
 */
export function functionFactory(scope: Construct, defaults: FunctionDefaults): FunctionFactory {
  const specs = functionSpecs(defaults.settings);
  return (name, entry, options) => {
    const { memoryMegabytes, timeoutSeconds } = specs[options.spec];
    const logGroup = new logs.LogGroup(scope, `${name}Logs`, {
      logGroupName: `${defaults.logGroupPrefix}${name}`,
      retention: logs.RetentionDays.THREE_MONTHS,
      encryptionKey: defaults.key,
      removalPolicy: defaults.removalPolicy,
    });
    const created = new NodejsFunction(scope, name, {
      entry: `${FUNCTIONS_FOLDER}${entry}`,
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture:
        functionArchitecture(options.spec) === 'x86_64'
          ? lambda.Architecture.X86_64
          : lambda.Architecture.ARM_64,
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
      bundling: withNativeModules(BUNDLING, FUNCTION_NATIVE_MODULES[options.spec] ?? []),
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
  };
}
