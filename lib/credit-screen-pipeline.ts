import { RemovalPolicy } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import type * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { BUREAUS, type Bureau, isBureau, type PipelineSettings, perBureau } from '../src/contract/index.ts';
import { alarmFactory, createAlarms } from './pipeline/alarms.ts';
import { createAuditKey, protectAuditLog } from './pipeline/audit-log.ts';
import { addConsole, type ConsoleResources } from './pipeline/console.ts';
import { scheduleSweeps, wireEventSources } from './pipeline/event-wiring.ts';
import {
  createBatchFunctions,
  functionEnvironment,
  functionFactory,
  type PipelineFunctions,
} from './pipeline/functions.ts';
import { acknowledgeGeneratedPermissions } from './pipeline/nag-acknowledgements.ts';
import { grantLeastPrivilege } from './pipeline/permissions.ts';
import { type CreditScreenPipelineProps, validatedProps } from './pipeline/pipeline-props.ts';
import { createPortfolioSchedules, type PortfolioDeclaration } from './pipeline/portfolios.ts';
import { createQueues, type PipelineQueues } from './pipeline/queues.ts';
import {
  compileShippedPolicies,
  type PolicyFile,
  type ShippedPolicy,
  shipPolicies,
  warnOfPoliciesNotShipped,
} from './pipeline/shipped-policies.ts';
import { createStorage } from './pipeline/storage.ts';
import { tokenSecretFor } from './pipeline/token-secret.ts';
import {
  createWebhooks,
  DEFAULT_ALERT_TOPIC_EVENTS,
  type WebhookAuth,
  type WebhookDelivery,
  type WebhookProps,
} from './pipeline/webhooks.ts';

/** @public The console's props, and what it adds to the stack. */
export type { ConsoleProps, ConsoleResources } from './pipeline/console.ts';
/** @public The construct's props, and a whole `PipelineSettings` turned into them. */
export { type CreditScreenPipelineProps, propsOfSettings } from './pipeline/pipeline-props.ts';
/** @public A portfolio to re-screen on a schedule, as the `portfolios` prop takes it. */
/** @public A credit policy file shipped with the deployment, as the `policies` prop takes it. */
/** @public A webhook the pipeline's events are delivered to, and how EventBridge authenticates to it. */
export type { PolicyFile, PortfolioDeclaration, WebhookAuth, WebhookProps };
/** @public The bureaus of the registry, for apps that set the `bureaus` prop from their own configuration. */
export { BUREAUS, type Bureau, isBureau, perBureau };

/** Every part of the pipeline, by the construct's member names. */
type PipelineParts = Omit<CreditScreenPipeline, keyof Construct | 'settings'>;

/** Builds the parts in `scope` (the pipeline itself, so every construct id and logical id stays where it was). */
function composePipeline(
  scope: Construct,
  props: CreditScreenPipelineProps,
  { settings, portfolios }: ReturnType<typeof validatedProps>,
  shippedPolicies: readonly ShippedPolicy[],
): PipelineParts {
  const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
  const storage = createStorage(scope, settings, removalPolicy);
  const { key, logGroupPrefix, accessLogsBucket, bucket, table } = storage;
  const queues = createQueues(scope, key, settings);
  const tokenSecret = tokenSecretFor(scope, props, key);
  const eventBus = props.eventBus ?? events.EventBus.fromEventBusName(scope, 'DefaultBus', 'default');
  const auditKeySecret = createAuditKey(scope, key, removalPolicy);
  const environment = functionEnvironment(
    { table, bucket, queues, eventBus, tokenSecret, auditKeySecret, bureauBaseUrl: props.bureauBaseUrl },
    settings,
  );
  const fn = functionFactory(scope, { settings, key, logGroupPrefix, removalPolicy, environment });
  const batchFunctions = createBatchFunctions(fn);
  scheduleSweeps(scope, batchFunctions.sweeper);
  const { portfolioSchedulesFunction, ...schedules } = createPortfolioSchedules(scope, {
    declared: portfolios,
    settings,
    ingest: batchFunctions.ingest,
    bucket,
    fn,
  });
  const functions = { ...batchFunctions, portfolioSchedules: portfolioSchedulesFunction };
  grantLeastPrivilege(scope, functions, { key, bucket, table, queues, tokenSecret, eventBus }, props);
  protectAuditLog(functions, table, auditKeySecret);
  wireEventSources(functions, { bucket, queues, settings });
  const alarms = createAlarms(scope, { functions, queues, settings, alarmTopic: props.alarmTopic });
  const alerts = createWebhooks(scope, {
    key,
    eventBus,
    webhooks: props.webhooks ?? [],
    alertTopic: props.alertTopic,
    alertTopicEvents: props.alertTopicEvents ?? DEFAULT_ALERT_TOPIC_EVENTS,
    alarm: alarmFactory(scope, props.alarmTopic),
  });
  const policyDeployment = shipPolicies(scope, bucket, shippedPolicies);
  const consoleParts =
    props.console &&
    addConsole(scope, props.console, { ...storage, fn, removalPolicy, queues, eventBus, auditKeySecret });
  acknowledgeGeneratedPermissions(scope, {
    functions,
    table,
    bucket,
    ...schedules,
    otherFunctions: consoleParts ? [consoleParts.apiFunction] : [],
  });
  return {
    ...schedules,
    console: consoleParts,
    policyDeployment,
    key,
    accessLogsBucket,
    bucket,
    table,
    tokenSecret,
    auditKeySecret,
    eventBus,
    alarms: [...alarms, ...alerts.alarms],
    webhooks: alerts.webhooks,
    alertRule: alerts.alertRule,
    ...exposedQueuesAndFunctions(queues, functions),
  };
}

/** The queues and functions, by the names the construct exposes them under. */
function exposedQueuesAndFunctions(queues: PipelineQueues, functions: PipelineFunctions) {
  return {
    workQueue: queues.work,
    workDeadLetterQueue: queues.workDeadLetter,
    finaliseQueue: queues.finalise,
    finaliseDeadLetterQueue: queues.finaliseDeadLetter,
    dispatchQueue: queues.dispatch,
    dispatchDeadLetterQueue: queues.dispatchDeadLetter,
    ingestFunction: functions.ingest,
    workerFunction: functions.worker,
    finaliseFunction: functions.finalise,
    deadLetterFunction: functions.deadLetter,
    sweeperFunction: functions.sweeper,
    policyCheckFunction: functions.policyCheck,
    dispatchFunction: functions.dispatch,
    portfolioSchedulesFunction: functions.portfolioSchedules,
  };
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
  /** Parts of batches whose queued rows are to be sent to the work queue (an approval, a held ingest). */
  readonly dispatchQueue: sqs.Queue;
  readonly dispatchDeadLetterQueue: sqs.Queue;
  readonly tokenSecret: secretsmanager.ISecret;
  /** The HMAC key that names documents in the audit log (generated; never rotated). */
  readonly auditKeySecret: secretsmanager.ISecret;
  readonly eventBus: events.IEventBus;
  readonly ingestFunction: NodejsFunction;
  readonly workerFunction: NodejsFunction;
  readonly finaliseFunction: NodejsFunction;
  readonly deadLetterFunction: NodejsFunction;
  /** Keeps each uploaded portfolio's schedule in line with its files. */
  readonly portfolioSchedulesFunction: NodejsFunction;
  /** Runs every few minutes and queues again the rows left stuck in a claim whose message is gone. */
  readonly sweeperFunction: NodejsFunction;
  /** Checks each policy uploaded under `policies/`; announces one that does not load with `PolicyRejected`. */
  readonly policyCheckFunction: NodejsFunction;
  /** Sends the work messages of a batch's queued rows, part by part, inside AWS: no approval sends them itself. */
  readonly dispatchFunction: NodejsFunction;
  /** Holds every portfolio schedule, declared or uploaded. */
  readonly scheduleGroup: scheduler.CfnScheduleGroup;
  /** What EventBridge Scheduler assumes to start a re-screen (it may only invoke the ingest function). */
  readonly schedulerRole: iam.Role;
  /** The schedules of the declared portfolios, by name. */
  readonly declaredSchedules: ReadonlyMap<string, scheduler.CfnSchedule>;
  readonly alarms: readonly cloudwatch.Alarm[];
  /** Copies the `policies` prop's files to `policies/` at deploy; undefined when none is shipped. */
  readonly policyDeployment: s3deploy.BucketDeployment | undefined;
  /** Each webhook's connection, API destination, rules and dead-letter queue, by its name. */
  readonly webhooks: ReadonlyMap<string, WebhookDelivery>;
  /** The rule that sends events to `alertTopic`; undefined without one. */
  readonly alertRule: events.Rule | undefined;
  /** The console's user pool, API and function; undefined unless the `console` prop is given. */
  readonly console: ConsoleResources | undefined;

  constructor(scope: Construct, id: string, props: CreditScreenPipelineProps) {
    super(scope, id);
    const validated = validatedProps(props);
    this.settings = validated.settings;
    const shipped = compileShippedPolicies(this, props.policies ?? []);
    warnOfPoliciesNotShipped(
      this,
      [{ by: 'defaultPolicy', policy: validated.settings.defaultPolicy }],
      shipped,
    );
    const parts = composePipeline(this, props, validated, shipped);
    this.key = parts.key;
    this.bucket = parts.bucket;
    this.accessLogsBucket = parts.accessLogsBucket;
    this.table = parts.table;
    this.workQueue = parts.workQueue;
    this.workDeadLetterQueue = parts.workDeadLetterQueue;
    this.finaliseQueue = parts.finaliseQueue;
    this.finaliseDeadLetterQueue = parts.finaliseDeadLetterQueue;
    this.dispatchQueue = parts.dispatchQueue;
    this.dispatchDeadLetterQueue = parts.dispatchDeadLetterQueue;
    this.tokenSecret = parts.tokenSecret;
    this.auditKeySecret = parts.auditKeySecret;
    this.eventBus = parts.eventBus;
    this.ingestFunction = parts.ingestFunction;
    this.workerFunction = parts.workerFunction;
    this.finaliseFunction = parts.finaliseFunction;
    this.deadLetterFunction = parts.deadLetterFunction;
    this.portfolioSchedulesFunction = parts.portfolioSchedulesFunction;
    this.sweeperFunction = parts.sweeperFunction;
    this.policyCheckFunction = parts.policyCheckFunction;
    this.dispatchFunction = parts.dispatchFunction;
    this.scheduleGroup = parts.scheduleGroup;
    this.schedulerRole = parts.schedulerRole;
    this.declaredSchedules = parts.declaredSchedules;
    this.alarms = parts.alarms;
    this.policyDeployment = parts.policyDeployment;
    this.webhooks = parts.webhooks;
    this.alertRule = parts.alertRule;
    this.console = parts.console;
  }
}
