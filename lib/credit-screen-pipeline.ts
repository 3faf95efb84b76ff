import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
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
import { portfolioScheduleName } from '../lambdas/adapters/aws/eventbridge-portfolio-scheduler.ts';
import {
  isPortfolioName,
  PORTFOLIO_PREFIX,
  parsePortfolioSettings,
} from '../lambdas/core/monitoring/index.ts';
import {
  DEFAULT_SETTINGS,
  FUNCTION_MEMORY,
  heapLimitMegabytes,
  type PipelineSettings,
  S3_LAYOUT,
  TABLE,
  validateSettings,
  workQueueVisibilitySeconds,
} from './pipeline-definition.ts';

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
   * Bureau requests per second across all workers, per bureau.
   * @default 10 for each bureau
   */
  readonly rateLimitPerSecond?: Partial<Record<'a' | 'b', number>>;
  /**
   * Largest burst of the global rate limit, per bureau.
   * @default the rate (one second's worth)
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
   * Other pipeline settings (timeouts, attempts, row limit) over the defaults of `lib/pipeline-definition.ts`.
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

const LAMBDAS = fileURLToPath(new URL('../lambdas/', import.meta.url));

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
      a: props.rateLimitBurst?.a ?? Math.max(1, rate.a),
      b: props.rateLimitBurst?.b ?? Math.max(1, rate.b),
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
        ...[S3_LAYOUT.incoming, S3_LAYOUT.raw, S3_LAYOUT.results, S3_LAYOUT.work].map(expire),
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

    const queue = (name: string, visibility: Duration, deadLetter?: sqs.IQueue) =>
      new sqs.Queue(this, name, {
        encryption: sqs.QueueEncryption.KMS,
        encryptionMasterKey: this.key,
        enforceSSL: true,
        visibilityTimeout: visibility,
        retentionPeriod: Duration.days(14),
        deadLetterQueue: deadLetter
          ? { queue: deadLetter, maxReceiveCount: settings.maxReceiveCount }
          : undefined,
      });
    this.workDeadLetterQueue = queue('WorkDeadLetterQueue', Duration.minutes(5));
    this.workQueue = queue(
      'WorkQueue',
      Duration.seconds(workQueueVisibilitySeconds(settings)),
      this.workDeadLetterQueue,
    );
    this.finaliseDeadLetterQueue = queue('FinaliseDeadLetterQueue', Duration.minutes(5));
    this.finaliseQueue = queue('FinaliseQueue', Duration.minutes(90), this.finaliseDeadLetterQueue);
    for (const deadLetter of [this.workDeadLetterQueue, this.finaliseDeadLetterQueue]) {
      Validations.of(deadLetter).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason: 'This queue is itself a dead-letter queue.',
      });
    }

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
      TABLE_NAME: this.table.tableName,
      BUCKET_NAME: this.bucket.bucketName,
      WORK_QUEUE_URL: this.workQueue.queueUrl,
      FINALISE_QUEUE_URL: this.finaliseQueue.queueUrl,
      EVENT_BUS_NAME: this.eventBus.eventBusName,
      BUREAU_BASE_URL: props.bureauBaseUrl,
      // The secret's ARN, never its value.
      BUREAU_TOKEN_SECRET_ID: this.tokenSecret.secretArn,
      PIPELINE_SETTINGS: JSON.stringify(settings),
      POWERTOOLS_SERVICE_NAME: 'credit-screen',
      POWERTOOLS_LOG_LEVEL: 'INFO',
    };
    const fn = (
      name: string,
      entry: string,
      options: { memorySize: number; timeout: Duration; environment?: Record<string, string> },
    ) => {
      const logGroup = new logs.LogGroup(this, `${name}Logs`, {
        retention: logs.RetentionDays.THREE_MONTHS,
        encryptionKey: this.key,
        removalPolicy,
      });
      const created = new NodejsFunction(this, name, {
        entry: `${LAMBDAS}${entry}`,
        handler: 'handler',
        runtime: lambda.Runtime.NODEJS_22_X,
        architecture: lambda.Architecture.ARM_64,
        memorySize: options.memorySize,
        timeout: options.timeout,
        environment: {
          ...environment,
          ...options.environment,
          NODE_OPTIONS: `--enable-source-maps --max-old-space-size=${heapLimitMegabytes(options.memorySize)}`,
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
    this.ingestFunction = fn('Ingest', 'ingest/handler.ts', {
      memorySize: FUNCTION_MEMORY.ingest,
      timeout: Duration.minutes(15),
    });
    this.workerFunction = fn('Worker', 'worker/handler.ts', {
      memorySize: FUNCTION_MEMORY.worker,
      timeout: Duration.seconds(settings.workerTimeoutSeconds),
    });
    this.finaliseFunction = fn('Finalise', 'finalise/handler.ts', {
      memorySize: FUNCTION_MEMORY.finalise,
      timeout: Duration.minutes(15),
    });
    this.deadLetterFunction = fn('DeadLetter', 'dead-letter/handler.ts', {
      memorySize: FUNCTION_MEMORY.deadLetter,
      timeout: Duration.minutes(1),
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
      input: JSON.stringify({
        portfolio,
        runId: '<aws.scheduler.execution-id>',
        ...(settings ? { settings } : {}),
      }),
      retryPolicy: { maximumRetryAttempts: 10, maximumEventAgeInSeconds: 3600 },
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
      memorySize: 256,
      timeout: Duration.minutes(1),
      environment: {
        SCHEDULE_GROUP_NAME: this.scheduleGroup.ref,
        SCHEDULE_TARGET_ARN: this.ingestFunction.functionArn,
        SCHEDULE_ROLE_ARN: this.schedulerRole.roleArn,
        DECLARED_PORTFOLIOS: JSON.stringify(declared.map((portfolio) => portfolio.name)),
      },
    });
    this.bucket.grantRead(this.portfolioSchedulesFunction, `${PORTFOLIO_PREFIX}*`);
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
        prefix: PORTFOLIO_PREFIX,
      });
    }

    // Least privilege: each function gets what its use case touches.
    this.bucket.grantRead(this.ingestFunction, `${S3_LAYOUT.incoming}*`);
    this.bucket.grantRead(this.ingestFunction, `${PORTFOLIO_PREFIX}*`);
    this.bucket.grantPut(this.ingestFunction, `${S3_LAYOUT.work}*`);
    this.table.grantReadWriteData(this.ingestFunction);
    this.workQueue.grantSendMessages(this.ingestFunction);
    this.finaliseQueue.grantSendMessages(this.ingestFunction);

    this.table.grantReadWriteData(this.workerFunction);
    this.bucket.grantPut(this.workerFunction, `${S3_LAYOUT.raw}*`);
    this.tokenSecret.grantRead(this.workerFunction);
    this.finaliseQueue.grantSendMessages(this.workerFunction);

    this.table.grantReadWriteData(this.finaliseFunction);
    this.bucket.grantRead(this.finaliseFunction, `${S3_LAYOUT.work}*`);
    this.bucket.grantPut(this.finaliseFunction, `${S3_LAYOUT.results}*`);
    this.eventBus.grantPutEventsTo(this.finaliseFunction);

    this.table.grantReadWriteData(this.deadLetterFunction);
    this.finaliseQueue.grantSendMessages(this.deadLetterFunction);

    this.bucket.addEventNotification(
      s3.EventType.OBJECT_CREATED,
      new s3n.LambdaDestination(this.ingestFunction),
      {
        prefix: S3_LAYOUT.incoming,
      },
    );
    this.workerFunction.addEventSource(
      new SqsEventSource(this.workQueue, {
        batchSize: settings.workerBatchSize,
        maxBatchingWindow: Duration.seconds(settings.workerBatchingWindowSeconds),
        maxConcurrency: settings.workerConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    this.deadLetterFunction.addEventSource(
      new SqsEventSource(this.workDeadLetterQueue, {
        batchSize: 10,
        maxConcurrency: 2,
        reportBatchItemFailures: true,
      }),
    );
    this.finaliseFunction.addEventSource(
      new SqsEventSource(this.finaliseQueue, {
        batchSize: 1,
        maxConcurrency: 2,
        reportBatchItemFailures: true,
      }),
    );

    const alarm = (name: string, metric: cloudwatch.IMetric, description: string) => {
      const created = new cloudwatch.Alarm(this, name, {
        metric,
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
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
        'PortfolioSchedulesErrorsAlarm',
        this.portfolioSchedulesFunction.metricErrors({ period: Duration.minutes(5) }),
        'Portfolio schedules are not being updated from their files.',
      ),
    ];

    this.#acknowledgeGeneratedPermissions();
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
    ]) {
      const role = fn.role as Construct;
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
        `Resource::<${stack.getLogicalId(this.bucket.node.defaultChild as never)}.Arn>/incoming/*`,
        `Resource::<${stack.getLogicalId(this.bucket.node.defaultChild as never)}.Arn>/work/*`,
        `Resource::<${stack.getLogicalId(this.bucket.node.defaultChild as never)}.Arn>/raw/*`,
        `Resource::<${stack.getLogicalId(this.bucket.node.defaultChild as never)}.Arn>/results/*`,
        `Resource::<${stack.getLogicalId(this.bucket.node.defaultChild as never)}.Arn>/portfolios/*`,
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
