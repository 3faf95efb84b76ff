import { fileURLToPath } from 'node:url';
import { Annotations, Aws, Duration, Fn, Names, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  DEFAULT_SETTINGS,
  EXPIRING_PREFIXES,
  eventSourceSpecs,
  functionSpecs,
  heapLimitMegabytes,
  isPortfolioName,
  type PipelineFunction,
  type PipelineQueue,
  type PipelineSettings,
  PORTFOLIO_RUN_SCHEDULE,
  parsePortfolioSettings,
  pipelineEnvironmentVariables,
  portfolioRunInput,
  portfolioScheduleName,
  queueSpecs,
  type ReportLanguage,
  S3_LAYOUT,
  SPENDING_CAP_ALERT,
  SWEEP_INTERVAL_MINUTES,
  scheduleEnvironmentVariables,
  TABLE,
  validateSettings,
} from '../src/contract/index.ts';

/** Props of {@link CreditScreenPipeline}. Everything but the bureau's URL has a secure, working default. */
export interface CreditScreenPipelineProps {
  /** Base URL of the bureau API gateway, e.g. `https://gateway.example.com`. */
  readonly bureauBaseUrl: string;
  /**
   * Secret holding the bureau token (the bare token, or JSON `{"token": "…"}`). Functions read it at run time; the
   * token is never in an environment variable or the template.
   * @default a new secret, encrypted with the pipeline's key, whose value the operator sets after deploying
   */
  readonly tokenSecret?: secretsmanager.ISecret;
  /**
   * The customer-managed KMS key that encrypts `tokenSecret`, when it is not the pipeline's: the worker is allowed
   * to decrypt with it, through Secrets Manager only. Not needed for a secret encrypted with the AWS-managed key
   * `aws/secretsmanager`, nor when `tokenSecret` already carries its key (`Secret.fromSecretAttributes`).
   * Only with `tokenSecret`: the secret the pipeline creates uses the pipeline's key.
   * @default the key `tokenSecret` carries, if any; none otherwise (a synth warning says so)
   */
  readonly tokenSecretKey?: kms.IKey;
  /**
   * Bureau requests per second across all workers, per bureau.
   * @default 10 for each bureau
   */
  readonly rateLimitPerSecond?: Partial<Record<'a' | 'b', number>>;
  /**
   * Largest burst of the global rate limit, per bureau (over `settings.rateLimitBurst`).
   * @default `settings.rateLimitBurst`, or else the rate (one second's worth)
   */
  readonly rateLimitBurst?: Partial<Record<'a' | 'b', number>>;
  /**
   * Concurrent worker invocations (the SQS event source's maximum concurrency; at least 2).
   * @default 5
   */
  readonly workerConcurrency?: number;
  /**
   * Concurrent bureau calls inside one worker invocation.
   * @default 5
   */
  readonly callsPerInvocation?: number;
  /**
   * Reuse a stored report younger than this many hours instead of paying again; 0 turns reuse off.
   * @default 24
   */
  readonly freshnessHours?: number;
  /**
   * Days customer data is kept: S3 objects expire and DynamoDB items carry a TTL (LGPD).
   * @default 90
   */
  readonly retentionDays?: number;
  /**
   * Write summaries in the Brazilian Excel dialect (`;`, decimal comma, BOM) instead of RFC 4180.
   * @default false
   */
  readonly excelSummary?: boolean;
  /**
   * Bureau used when an upload's key does not name one (`incoming/a/…`, `incoming/b/…`).
   * @default 'a'
   */
  readonly defaultBureau?: 'a' | 'b';
  /**
   * Bus that receives `BatchCompleted` events.
   * @default the account's default event bus
   */
  readonly eventBus?: events.IEventBus;
  /**
   * Topic notified when an alarm fires (dead letters, worker errors).
   * @default no action: the alarms only show in CloudWatch
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * What happens to the data stores (bucket, table, key) when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Other pipeline settings (timeouts, attempts, row limit) over the defaults of `src/contract/settings.ts`.
   * @default DEFAULT_SETTINGS
   */
  readonly settings?: Partial<PipelineSettings>;
  /**
   * Portfolios re-screened on a schedule declared here (their lists still live at `portfolios/<name>.csv`).
   * Portfolios can also be added at run time by uploading their files, without a redeploy.
   * @default none
   */
  readonly portfolios?: readonly PortfolioDeclaration[];
  /**
   * Schedule of an uploaded portfolio whose settings file gives none; null leaves those on demand only.
   * @default 'rate(7 days)'
   */
  readonly portfolioSchedule?: string | null;
  /**
   * Smallest score move a re-screen's change report lists as `score_drop` or `score_rise`.
   * @default 50
   */
  readonly scoreChangePoints?: number;
  /**
   * Language of each batch's `report.html`: Brazilian Portuguese (`R$ 1.234,56`, `31/12/2026`) or English.
   * @default 'pt-BR'
   */
  readonly reportLanguage?: ReportLanguage;
}

/** A portfolio whose schedule the stack owns. */
export interface PortfolioDeclaration {
  /** The portfolio's name: its list is `portfolios/<name>.csv`. Letters, digits, `-` and `_`, at most 48. */
  readonly name: string;
  /** EventBridge Scheduler `cron(…)` or `rate(…)`. */
  readonly schedule: string;
  /**
   * IANA time zone of a cron schedule.
   * @default UTC
   */
  readonly timezone?: string;
  /**
   * Bureau to screen with.
   * @default the pipeline's default bureau
   */
  readonly bureau?: 'a' | 'b';
  /**
   * Reports younger than this many hours are reused instead of bought again.
   * @default every document is asked again on every run
   */
  readonly maxAgeHours?: number;
}

const FUNCTIONS_FOLDER = fileURLToPath(new URL('../src/functions/', import.meta.url));

/** Reads props into settings once, rejecting what cannot work, so a bad value fails `cdk synth`, not production. */
function settingsFrom(props: CreditScreenPipelineProps): PipelineSettings {
  let url: URL;
  try {
    url = new URL(props.bureauBaseUrl);
  } catch {
    throw new Error(
      `CreditScreenPipeline: bureauBaseUrl is not a URL: ${JSON.stringify(props.bureauBaseUrl)}`,
    );
  }
  if (url.protocol !== 'https:')
    throw new Error(
      'CreditScreenPipeline: bureauBaseUrl must be https (the token travels with every request)',
    );
  const base = { ...DEFAULT_SETTINGS, ...props.settings };
  const rate = { ...base.rateLimitPerSecond, ...props.rateLimitPerSecond };
  return validateSettings({
    ...base,
    rateLimitPerSecond: rate,
    rateLimitBurst: {
      a: props.rateLimitBurst?.a ?? props.settings?.rateLimitBurst?.a ?? Math.max(1, rate.a),
      b: props.rateLimitBurst?.b ?? props.settings?.rateLimitBurst?.b ?? Math.max(1, rate.b),
    },
    workerConcurrency: props.workerConcurrency ?? base.workerConcurrency,
    callsPerInvocation: props.callsPerInvocation ?? base.callsPerInvocation,
    freshnessHours: props.freshnessHours ?? base.freshnessHours,
    retentionDays: props.retentionDays ?? base.retentionDays,
    excelSummary: props.excelSummary ?? base.excelSummary,
    defaultBureau: props.defaultBureau ?? base.defaultBureau,
    portfolioSchedule:
      props.portfolioSchedule === undefined ? base.portfolioSchedule : props.portfolioSchedule,
    scoreChangePoints: props.scoreChangePoints ?? base.scoreChangePoints,
    reportLanguage: props.reportLanguage ?? base.reportLanguage,
  });
}

/** Checks declared portfolios with the same rules as a settings file, so a typo fails `cdk synth`. */
function validatedPortfolios(declared: readonly PortfolioDeclaration[]): readonly PortfolioDeclaration[] {
  const seen = new Set<string>();
  for (const portfolio of declared) {
    if (!isPortfolioName(portfolio.name))
      throw new Error(
        `CreditScreenPipeline: portfolio name ${JSON.stringify(portfolio.name)} is not allowed`,
      );
    if (seen.has(portfolio.name))
      throw new Error(`CreditScreenPipeline: portfolio ${portfolio.name} is declared twice`);
    seen.add(portfolio.name);
    const { name: _name, ...settings } = portfolio;
    try {
      parsePortfolioSettings(JSON.stringify(settings));
    } catch (error) {
      throw new Error(`CreditScreenPipeline: portfolio ${portfolio.name}: ${(error as Error).message}`);
    }
  }
  return declared;
}

/**
 * The credit-screening pipeline: an upload under `incoming/` in the bucket starts a batch; SQS fans it out to
 * rate-limited workers that query the bureau; results land under `results/<batchId>/` with the manifest last, and
 * a `BatchCompleted` event announces them.
 *
 * Secure by default: one customer-managed KMS key (rotated) encrypts the bucket, table, queues and secret; the
 * bucket blocks public access and refuses plain HTTP; data expires after `retentionDays`; each function gets only
 * the permissions it uses; alarms watch the dead-letter queues and worker errors.
 */
export class CreditScreenPipeline extends Construct {
  /** The settings the functions run with (defaults merged with props). */
  readonly settings: PipelineSettings;
  readonly key: kms.Key;
  readonly bucket: s3.Bucket;
  readonly accessLogsBucket: s3.Bucket;
  readonly table: dynamodb.Table;
  readonly workQueue: sqs.Queue;
  readonly workDeadLetterQueue: sqs.Queue;
  readonly finaliseQueue: sqs.Queue;
  readonly finaliseDeadLetterQueue: sqs.Queue;
  readonly tokenSecret: secretsmanager.ISecret;
  readonly eventBus: events.IEventBus;
  readonly ingestFunction: NodejsFunction;
  readonly workerFunction: NodejsFunction;
  readonly finaliseFunction: NodejsFunction;
  readonly deadLetterFunction: NodejsFunction;
  /** Keeps each uploaded portfolio's schedule in line with its files. */
  readonly portfolioSchedulesFunction: NodejsFunction;
  /** Runs every few minutes and queues again the rows left stuck in a claim whose message is gone. */
  readonly sweeperFunction: NodejsFunction;
  /** Holds every portfolio schedule, declared or uploaded. */
  readonly scheduleGroup: scheduler.CfnScheduleGroup;
  /** What EventBridge Scheduler assumes to start a re-screen (it may only invoke the ingest function). */
  readonly schedulerRole: iam.Role;
  /** The schedules of the declared portfolios, by name. */
  readonly declaredSchedules: ReadonlyMap<string, scheduler.CfnSchedule>;
  readonly alarms: readonly cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: CreditScreenPipelineProps) {
    super(scope, id);
    const settings = settingsFrom(props);
    this.settings = settings;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    this.key = new kms.Key(this, 'Key', {
      description: 'credit-screen: customer lists, reports and queues (personal data under LGPD)',
      enableKeyRotation: true,
      removalPolicy,
    });
    const logGroupPrefix = this.#allowLogsToUseKey();

    this.accessLogsBucket = new s3.Bucket(this, 'AccessLogs', {
      // S3 server access logs cannot be delivered to a KMS-encrypted bucket.
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(settings.retentionDays) }],
      removalPolicy,
    });
    Validations.of(this.accessLogsBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the access-log bucket itself; logging it into itself would loop.',
    });

    const expire = (prefix: string) => ({ prefix, expiration: Duration.days(settings.retentionDays) });
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: this.key,
      bucketKeyEnabled: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: false,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'pipeline-bucket/',
      lifecycleRules: [
        ...EXPIRING_PREFIXES.map(expire),
        { abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      removalPolicy,
    });

    // The classic Table: TableV2's customer-managed key needs a region, and the stack stays region-agnostic.
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: this.key,
      timeToLiveAttribute: TABLE.timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy,
    });
    const claimedRows = TABLE.claimedRowsIndex;
    this.table.addGlobalSecondaryIndex({
      indexName: claimedRows.name,
      partitionKey: { name: claimedRows.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: claimedRows.sortKey, type: dynamodb.AttributeType.NUMBER },
      projectionType: dynamodb.ProjectionType.INCLUDE,
      nonKeyAttributes: [...claimedRows.projected],
    });

    const queueSpec = queueSpecs(settings);
    const queues = new Map<PipelineQueue, sqs.Queue>();
    const queue = (name: string, spec: PipelineQueue) => {
      const { visibilityTimeoutSeconds, retentionSeconds, deadLetter } = queueSpec[spec];
      const deadLetterQueue = deadLetter && queues.get(deadLetter.queue);
      if (deadLetter && !deadLetterQueue) throw new Error(`queue ${spec}: its dead-letter queue comes first`);
      const created = new sqs.Queue(this, name, {
        encryption: sqs.QueueEncryption.KMS,
        encryptionMasterKey: this.key,
        enforceSSL: true,
        visibilityTimeout: Duration.seconds(visibilityTimeoutSeconds),
        retentionPeriod: Duration.seconds(retentionSeconds),
        deadLetterQueue:
          deadLetter && deadLetterQueue
            ? { queue: deadLetterQueue, maxReceiveCount: deadLetter.maxReceiveCount }
            : undefined,
      });
      queues.set(spec, created);
      return created;
    };
    this.workDeadLetterQueue = queue('WorkDeadLetterQueue', 'workDeadLetter');
    this.workQueue = queue('WorkQueue', 'work');
    this.finaliseDeadLetterQueue = queue('FinaliseDeadLetterQueue', 'finaliseDeadLetter');
    this.finaliseQueue = queue('FinaliseQueue', 'finalise');
    for (const deadLetter of [this.workDeadLetterQueue, this.finaliseDeadLetterQueue]) {
      Validations.of(deadLetter).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason: 'This queue is itself a dead-letter queue.',
      });
    }

    if (props.tokenSecretKey && !props.tokenSecret)
      throw new Error(
        'CreditScreenPipeline: tokenSecretKey is the key of a given tokenSecret; the secret the pipeline creates uses the pipeline key',
      );
    if (props.tokenSecret) {
      this.tokenSecret = props.tokenSecret;
    } else {
      const secret = new secretsmanager.Secret(this, 'BureauToken', {
        description: 'credit-screen: Bearer token of the bureau account (set it after deploying)',
        encryptionKey: this.key,
      });
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'The token is issued in the bureau account area and cannot be rotated by a Lambda; it is replaced by hand.',
      });
      this.tokenSecret = secret;
    }
    this.eventBus = props.eventBus ?? events.EventBus.fromEventBusName(this, 'DefaultBus', 'default');

    const environment: Record<string, string> = {
      ...pipelineEnvironmentVariables(
        {
          tableName: this.table.tableName,
          bucketName: this.bucket.bucketName,
          workQueueUrl: this.workQueue.queueUrl,
          finaliseQueueUrl: this.finaliseQueue.queueUrl,
          eventBusName: this.eventBus.eventBusName,
          bureauBaseUrl: props.bureauBaseUrl,
          // The secret's ARN, never its value.
          tokenSecretId: this.tokenSecret.secretArn,
        },
        settings,
      ),
      POWERTOOLS_SERVICE_NAME: 'credit-screen',
      POWERTOOLS_LOG_LEVEL: 'INFO',
    };
    const functionSpec = functionSpecs(settings);
    const fn = (
      name: string,
      entry: string,
      options: { spec: PipelineFunction; environment?: Record<string, string> },
    ) => {
      const { memoryMegabytes, timeoutSeconds } = functionSpec[options.spec];
      const logGroup = new logs.LogGroup(this, `${name}Logs`, {
        logGroupName: `${logGroupPrefix}${name}`,
        retention: logs.RetentionDays.THREE_MONTHS,
        encryptionKey: this.key,
        removalPolicy,
      });
      const created = new NodejsFunction(this, name, {
        entry: `${FUNCTIONS_FOLDER}${entry}`,
        handler: 'handler',
        runtime: lambda.Runtime.NODEJS_22_X,
        architecture: lambda.Architecture.ARM_64,
        memorySize: memoryMegabytes,
        timeout: Duration.seconds(timeoutSeconds),
        environment: {
          ...environment,
          ...options.environment,
          NODE_OPTIONS: `--enable-source-maps --max-old-space-size=${heapLimitMegabytes(memoryMegabytes)}`,
        },
        logGroup,
        tracing: lambda.Tracing.ACTIVE,
        bundling: {
          format: OutputFormat.ESM,
          sourceMap: true,
          minify: true,
          target: 'node22',
          // esm output needs a require shim for the CommonJS dependencies bundled in.
          banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
          forceDockerBundling: false,
          // Production runs the SDK the tests ran, not whichever one the Lambda runtime happens to carry.
          bundleAwsSDK: true,
        },
      });
      Validations.of(created).acknowledge({
        id: 'AwsSolutions-L1',
        reason: 'The functions target Node.js 22, the runtime the project is built and tested for.',
      });
      return created;
    };
    this.ingestFunction = fn('Ingest', 'ingest/handler.ts', { spec: 'ingest' });
    this.workerFunction = fn('Worker', 'worker/handler.ts', { spec: 'worker' });
    this.finaliseFunction = fn('Finalise', 'finalise/handler.ts', { spec: 'finalise' });
    this.deadLetterFunction = fn('DeadLetter', 'dead-letter/handler.ts', { spec: 'deadLetter' });
    this.sweeperFunction = fn('Sweeper', 'sweeper/handler.ts', { spec: 'sweeper' });
    // A missed sweep is made up by the next one: no retries, and never two sweeps at once from retries.
    new events.Rule(this, 'SweepSchedule', {
      description: 'credit-screen: queue again rows left stuck in a claim',
      schedule: events.Schedule.rate(Duration.minutes(SWEEP_INTERVAL_MINUTES)),
      targets: [new eventTargets.LambdaFunction(this.sweeperFunction, { retryAttempts: 0 })],
    });

    // Portfolio monitoring: one schedule group; Scheduler may only invoke ingest, with a portfolio run.
    const declared = validatedPortfolios(props.portfolios ?? []);
    this.scheduleGroup = new scheduler.CfnScheduleGroup(this, 'PortfolioScheduleGroup', {});
    this.schedulerRole = new iam.Role(this, 'SchedulerRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: 'EventBridge Scheduler starts portfolio re-screens by invoking the ingest function',
    });
    this.ingestFunction.grantInvoke(this.schedulerRole);
    const scheduleTarget = (portfolio: string, settings?: object): scheduler.CfnSchedule.TargetProperty => ({
      arn: this.ingestFunction.functionArn,
      roleArn: this.schedulerRole.roleArn,
      input: portfolioRunInput(portfolio, { settings }),
      retryPolicy: { ...PORTFOLIO_RUN_SCHEDULE.retryPolicy },
    });
    this.declaredSchedules = new Map(
      declared.map(({ name, schedule, timezone, bureau, maxAgeHours }) => [
        name,
        new scheduler.CfnSchedule(this, `Portfolio${name}`, {
          name: `declared-${name}`,
          groupName: this.scheduleGroup.ref,
          description: `credit-screen: re-screen declared portfolio ${name}`,
          scheduleExpression: schedule,
          scheduleExpressionTimezone: timezone,
          flexibleTimeWindow: { mode: 'OFF' },
          target: scheduleTarget(name, { bureau: bureau ?? settings.defaultBureau, maxAgeHours }),
        }),
      ]),
    );
    this.portfolioSchedulesFunction = fn('PortfolioSchedules', 'portfolio-schedules/handler.ts', {
      spec: 'portfolioSchedules',
      environment: scheduleEnvironmentVariables({
        groupName: this.scheduleGroup.ref,
        targetArn: this.ingestFunction.functionArn,
        roleArn: this.schedulerRole.roleArn,
        declaredPortfolios: declared.map((portfolio) => portfolio.name),
      }),
    });
    this.bucket.grantRead(this.portfolioSchedulesFunction, `${S3_LAYOUT.portfolios}*`);
    this.schedulerRole.grantPassRole(this.portfolioSchedulesFunction.grantPrincipal);
    this.portfolioSchedulesFunction.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
        resources: [
          Stack.of(this).formatArn({
            service: 'scheduler',
            resource: 'schedule',
            resourceName: `${this.scheduleGroup.ref}/${portfolioScheduleName('*')}`,
          }),
        ],
      }),
    );
    for (const event of [s3.EventType.OBJECT_CREATED, s3.EventType.OBJECT_REMOVED]) {
      this.bucket.addEventNotification(event, new s3n.LambdaDestination(this.portfolioSchedulesFunction), {
        prefix: S3_LAYOUT.portfolios,
      });
    }

    // Least privilege: each function gets what its use case touches.
    this.bucket.grantRead(this.ingestFunction, `${S3_LAYOUT.incoming}*`);
    this.bucket.grantRead(this.ingestFunction, `${S3_LAYOUT.portfolios}*`);
    this.bucket.grantPut(this.ingestFunction, `${S3_LAYOUT.work}*`);
    this.table.grantReadWriteData(this.ingestFunction);
    this.workQueue.grantSendMessages(this.ingestFunction);
    this.finaliseQueue.grantSendMessages(this.ingestFunction);

    this.table.grantReadWriteData(this.workerFunction);
    // Read as well as written: a worker settles a row from the answer an earlier attempt persisted (grantRead's
    // ListBucket lets a missing answer read as 404, not 403).
    this.bucket.grantRead(this.workerFunction, `${S3_LAYOUT.raw}*`);
    this.bucket.grantPut(this.workerFunction, `${S3_LAYOUT.raw}*`);
    this.tokenSecret.grantRead(this.workerFunction);
    this.#grantTokenSecretKey(props);
    this.finaliseQueue.grantSendMessages(this.workerFunction);
    // Budget alerts (BudgetExhausted at 80 % and 100 % of a cap).
    this.eventBus.grantPutEventsTo(this.workerFunction);

    this.table.grantReadWriteData(this.finaliseFunction);
    this.bucket.grantRead(this.finaliseFunction, `${S3_LAYOUT.work}*`);
    this.bucket.grantPut(this.finaliseFunction, `${S3_LAYOUT.results}*`);
    this.eventBus.grantPutEventsTo(this.finaliseFunction);

    this.table.grantReadWriteData(this.deadLetterFunction);
    // Whether a dead-lettered row's answer was persisted (it was then charged).
    this.bucket.grantRead(this.deadLetterFunction, `${S3_LAYOUT.raw}*`);
    this.finaliseQueue.grantSendMessages(this.deadLetterFunction);

    // The sweeper lists batches, queries the claimed-rows index, releases claims and asks for finalisations.
    this.table.grant(
      this.sweeperFunction,
      'dynamodb:Query',
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:UpdateItem',
    );
    this.key.grantEncryptDecrypt(this.sweeperFunction);
    this.workQueue.grantSendMessages(this.sweeperFunction);
    this.finaliseQueue.grantSendMessages(this.sweeperFunction);

    this.bucket.addEventNotification(
      s3.EventType.OBJECT_CREATED,
      new s3n.LambdaDestination(this.ingestFunction),
      {
        prefix: S3_LAYOUT.incoming,
      },
    );
    const functions: Readonly<Record<PipelineFunction, lambda.Function>> = {
      ingest: this.ingestFunction,
      worker: this.workerFunction,
      finalise: this.finaliseFunction,
      deadLetter: this.deadLetterFunction,
      portfolioSchedules: this.portfolioSchedulesFunction,
      sweeper: this.sweeperFunction,
    };
    for (const source of eventSourceSpecs(settings)) {
      const sourceQueue = queues.get(source.queue);
      if (!sourceQueue) throw new Error(`event source of ${source.function}: no queue ${source.queue}`);
      functions[source.function].addEventSource(
        new SqsEventSource(sourceQueue, {
          batchSize: source.batchSize,
          maxBatchingWindow:
            source.batchingWindowSeconds > 0 ? Duration.seconds(source.batchingWindowSeconds) : undefined,
          maxConcurrency: source.maxConcurrency,
          reportBatchItemFailures: source.reportBatchItemFailures,
        }),
      );
    }

    const alarm = (
      name: string,
      metric: cloudwatch.IMetric,
      description: string,
      periods: { evaluationPeriods: number; datapointsToAlarm: number } = {
        evaluationPeriods: 1,
        datapointsToAlarm: 1,
      },
    ) => {
      const created = new cloudwatch.Alarm(this, name, {
        metric,
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        ...periods,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      if (props.alarmTopic) created.addAlarmAction(new cloudwatchActions.SnsAction(props.alarmTopic));
      return created;
    };
    this.alarms = [
      alarm(
        'WorkDeadLettersAlarm',
        this.workDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        'Work messages reached the dead-letter queue: rows are being settled as failed.',
      ),
      alarm(
        'FinaliseDeadLettersAlarm',
        this.finaliseDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        'A batch could not be finalised: its results are missing.',
      ),
      alarm(
        'WorkerErrorsAlarm',
        this.workerFunction.metricErrors({ period: Duration.minutes(5) }),
        'Worker invocations are failing.',
      ),
      alarm(
        'IngestErrorsAlarm',
        this.ingestFunction.metricErrors({ period: Duration.minutes(5) }),
        'Uploads are failing to ingest.',
      ),
      alarm(
        'StuckRowsAlarm',
        new logs.MetricFilter(this, 'StuckRowsRequeued', {
          logGroup: this.sweeperFunction.logGroup,
          // The sweeper logs each sweep's figures (`sweep done`); a sweep that found nothing counts 0.
          filterPattern: logs.FilterPattern.numberValue('$.requeued', '>=', 0),
          metricNamespace: 'credit-screen',
          metricName: 'StuckRowsRequeued',
          metricValue: '$.requeued',
        }).metric({ period: Duration.minutes(SWEEP_INTERVAL_MINUTES), statistic: 'Sum' }),
        'Rows keep getting stuck in a claim with no message left (the sweeper queued some again in two of the last three sweeps): look for what deletes work messages or ends workers early.',
        { evaluationPeriods: 3, datapointsToAlarm: 2 },
      ),
      ...([80, 100] as const).map((percent) =>
        alarm(
          percent === 100 ? 'BudgetExhaustedAlarm' : 'BudgetAt80PercentAlarm',
          new logs.MetricFilter(this, `BudgetAlerts${percent}`, {
            logGroup: this.workerFunction.logGroup,
            // The worker logs one line when a reservation takes a cap (a batch's or a month's) to this share.
            filterPattern: logs.FilterPattern.all(
              logs.FilterPattern.stringValue('$.message', '=', SPENDING_CAP_ALERT),
              logs.FilterPattern.numberValue('$.percent', '=', percent),
            ),
            metricNamespace: 'credit-screen',
            metricName: `BudgetAlerts${percent}`,
            metricValue: '1',
          }).metric({ period: Duration.minutes(5), statistic: 'Sum' }),
          percent === 100
            ? 'A spending cap was reached: rows left are settled not_queried (budget exhausted).'
            : 'A spending cap is 80 % used.',
        ),
      ),
      alarm(
        'SweeperErrorsAlarm',
        this.sweeperFunction.metricErrors({ period: Duration.minutes(SWEEP_INTERVAL_MINUTES) }),
        'The sweeper is failing: stuck rows are not being queued again.',
      ),
      alarm(
        'PortfolioSchedulesErrorsAlarm',
        this.portfolioSchedulesFunction.metricErrors({ period: Duration.minutes(5) }),
        'Portfolio schedules are not being updated from their files.',
      ),
    ];

    this.#acknowledgeGeneratedPermissions();
  }

  /**
   * A given secret encrypted with its own customer-managed key also needs kms:Decrypt on that key, or the worker's
   * first bureau call fails with AccessDenied. A secret that carries its key got that grant from `grantRead`.
   * Without a key it may well use the AWS-managed `aws/secretsmanager` key, which needs no grant, so a missing key
   * is a warning (acknowledgeable), not an error: refusing would block the most common setup.
   */
  #grantTokenSecretKey(props: CreditScreenPipelineProps): void {
    if (props.tokenSecretKey) {
      // An identity-policy statement: the key is not in this stack, so its key policy cannot be edited here (a
      // grant with kms.ViaServicePrincipal would be dropped silently). The key policy must delegate to IAM, as
      // the default key policy does.
      this.workerFunction.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['kms:Decrypt'],
          resources: [props.tokenSecretKey.keyArn],
          conditions: { StringEquals: { 'kms:ViaService': `secretsmanager.${Aws.REGION}.amazonaws.com` } },
        }),
      );
    } else if (props.tokenSecret && !props.tokenSecret.encryptionKey) {
      Annotations.of(this).addWarningV2(
        'credit-screen:tokenSecretKey',
        'tokenSecret is given without its KMS key: if a customer-managed key encrypts it, pass that key as ' +
          'tokenSecretKey (context tokenSecretKeyArn), or the worker cannot decrypt the token (AccessDenied at the ' +
          'first bureau call). Nothing is needed for the AWS-managed key aws/secretsmanager.',
      );
    }
  }

  /**
   * CloudWatch Logs encrypts a log group with a customer-managed key only if the key policy lets the regional logs
   * principal use it for that log group; CDK adds no such statement, and without it the first log group fails
   * to create and the stack rolls back. The log groups get names under a prefix of their own (the stack's name,
   * its creation id, so a retained group of an earlier deployment never clashes, and this construct's id), so the
   * statement can name them before they exist: their ARNs cannot appear in the key policy, which they depend on.
   * Returns that prefix.
   */
  #allowLogsToUseKey(): string {
    const stackId = Fn.select(2, Fn.split('/', Aws.STACK_ID));
    const prefix = `/credit-screen/${Aws.STACK_NAME}/${stackId}/${Names.uniqueId(this)}/`;
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchLogsForThePipelineLogGroups',
        principals: [new iam.ServicePrincipal(`logs.${Aws.REGION}.amazonaws.com`)],
        actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
        resources: ['*'],
        conditions: {
          ArnLike: {
            'kms:EncryptionContext:aws:logs:arn': `arn:${Aws.PARTITION}:logs:${Aws.REGION}:${Aws.ACCOUNT_ID}:log-group:${prefix}*`,
          },
        },
      }),
    );
    return prefix;
  }

  /** cdk-nag findings on what the grant helpers and CDK's own custom resources generate, each with its reason. */
  #acknowledgeGeneratedPermissions(): void {
    const stack = Stack.of(this);
    for (const fn of [
      this.ingestFunction,
      this.workerFunction,
      this.finaliseFunction,
      this.deadLetterFunction,
      this.portfolioSchedulesFunction,
      this.sweeperFunction,
    ]) {
      const role = fn.role as Construct;
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(this.table.node.defaultChild as never)}.Arn>/index/*]`,
        reason:
          'Generated by CDK table grants: the indexes of the pipeline table only (the sparse claimed-rows index).',
      });
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: 'The AWS-managed basic execution role only lets the function write its own logs.',
      });
      for (const finding of [
        'Action::kms:GenerateDataKey*',
        'Action::kms:ReEncrypt*',
        'Action::s3:GetObject*',
        'Action::s3:GetBucket*',
        'Action::s3:List*',
        'Action::s3:Abort*',
        'Resource::*',
        ...Object.values(S3_LAYOUT).map(
          (prefix) =>
            `Resource::<${stack.getLogicalId(this.bucket.node.defaultChild as never)}.Arn>/${prefix}*`,
        ),
      ]) {
        Validations.of(role).acknowledge({
          id: `AwsSolutions-IAM5[${finding}]`,
          reason:
            'Generated by CDK grants: key actions on the pipeline key only, object actions limited to one prefix of the ' +
            'pipeline bucket, and X-Ray tracing, which has no resource-level permissions.',
        });
      }
    }
    Validations.of(this.portfolioSchedulesFunction.role as Construct).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/<${stack.getLogicalId(this.scheduleGroup)}>/portfolio-*]`,
      reason:
        'Portfolios are created at run time, so their schedules cannot be named in advance: the function may change ' +
        'only schedules named portfolio-* in the pipeline’s own schedule group.',
    });
    Validations.of(this.schedulerRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(this.ingestFunction.node.defaultChild as never)}.Arn>:*]`,
      reason: 'Generated by grantInvoke: the ingest function and its versions, nothing else.',
    });
    // S3 bucket notifications are configured by a CDK-provided custom resource function.
    const notifications = stack.node.tryFindChild(
      'BucketNotificationsHandler050a0587b7544547bf325f094a3db834',
    );
    if (notifications) {
      Validations.of(notifications).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          'CDK custom resource that sets the bucket notification; basic execution role for its logs only.',
      });
      Validations.of(notifications).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'CDK custom resource: s3:PutBucketNotification has to be allowed on the bucket it configures at deploy time.',
      });
    }
  }
}
