import { Duration, SecretValue, Stack, Tags, Validations } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  ALERT_EVENT_TYPES,
  type AlertEventPattern,
  type AlertEventType,
  DOCUMENT_FORMS,
  EVENTS,
  oldestMessageAlarmSecondsFor,
  QUEUE_RETENTION_SECONDS,
  subscriptionPatterns,
  validateWebhooks,
  type WebhookSubscription,
} from '../../src/contract/index.ts';
import type { AlarmFactory } from './alarms.ts';

/** How long an event no webhook took stays in its dead-letter queue: as long as the pipeline's queues keep theirs. */
const DEAD_LETTER_RETENTION = Duration.seconds(QUEUE_RETENTION_SECONDS);
/**
 * How EventBridge authenticates to a webhook. The credential lives in a Secrets Manager secret given by reference
 * (never in the template); EventBridge copies it into the connection's own secret, encrypted with the pipeline key.
 */
export type WebhookAuth =
  /** A header carrying a key: `X-Api-Key: <secret>`. */
  | {
      readonly type: 'apiKey';
      readonly header: string;
      readonly secret: secretsmanager.ISecret;
      /** The JSON field of the secret that holds the key. @default the whole secret string */
      readonly secretField?: string;
    }
  /** HTTP basic: `Authorization: Basic base64(username:password)`. */
  | {
      readonly type: 'basic';
      readonly username: string;
      readonly secret: secretsmanager.ISecret;
      /** The JSON field of the secret that holds the password. @default the whole secret string */
      readonly secretField?: string;
    }
  /** OAuth client credentials: EventBridge fetches a token from `tokenUrl` and sends it as a Bearer token. */
  | {
      readonly type: 'oauth';
      readonly tokenUrl: string;
      readonly clientId: string;
      readonly secret: secretsmanager.ISecret;
      /** The JSON field of the secret that holds the client secret. @default the whole secret string */
      readonly secretField?: string;
      /** The scope asked for, when the authorisation server wants one. @default none */
      readonly scope?: string;
    };

/** A webhook the construct delivers events to, through an EventBridge rule and API destination of its own. */
export interface WebhookProps extends WebhookSubscription {
  readonly auth: WebhookAuth;
  /**
   * Most requests per second EventBridge sends it (the API destination's invocation rate).
   * @default 10
   */
  readonly rateLimitPerSecond?: number;
}

/** What one webhook's delivery is made of. */
export interface WebhookDelivery {
  readonly connection: events.Connection;
  readonly destination: events.ApiDestination;
  readonly rules: readonly events.Rule[];
  readonly deadLetterQueue: sqs.Queue;
}

/**
 * What the alert topic receives unless told: every event but `DocumentChanged`, one per changed document, which
 * would flood an inbox; the re-screen's `PortfolioChanged` lists its worst changes instead.
 */
export const DEFAULT_ALERT_TOPIC_EVENTS: readonly AlertEventType[] = ALERT_EVENT_TYPES.filter(
  (type) => type !== EVENTS.documentChanged,
);

/** EventBridge's longest retry policy: a day, 185 attempts, with exponential backoff and jitter. */
const MAX_EVENT_AGE = Duration.hours(24);
const RETRY_ATTEMPTS = 185;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Checks the webhooks with the contract's rules and their auth, naming the first problem in one line. */
export function validatedWebhooks(webhooks: readonly WebhookProps[]): readonly WebhookProps[] {
  try {
    validateWebhooks(webhooks, 'aws');
  } catch (error) {
    throw new Error(`CreditScreenPipeline: ${(error as Error).message}`);
  }
  for (const webhook of webhooks) {
    const problem = authProblem(webhook.auth);
    if (problem !== null) throw new Error(`CreditScreenPipeline: webhook "${webhook.name}": auth ${problem}`);
    const rate = webhook.rateLimitPerSecond;
    if (rate !== undefined && !(Number.isInteger(rate) && rate >= 1 && rate <= 300))
      throw new Error(
        `CreditScreenPipeline: webhook "${webhook.name}": rateLimitPerSecond must be a whole number from 1 to 300`,
      );
  }
  return webhooks;
}

function authProblem(auth: WebhookAuth | undefined): string | null {
  if (auth === undefined) return 'is missing: apiKey, basic or oauth, with its secret';
  const secret: unknown = auth.secret;
  if (typeof secret === 'string' || secret instanceof SecretValue)
    return 'secret must be a Secrets Manager secret (secretsmanager.Secret.fromSecretNameV2 …), not a value written into the template';
  if (typeof secret !== 'object' || secret === null || !('secretArn' in secret))
    return 'secret must be a Secrets Manager secret';
  if (auth.type === 'apiKey' && !HEADER_NAME.test(auth.header ?? ''))
    return `header ${JSON.stringify(auth.header)} is not a header name`;
  if (auth.type === 'basic' && !auth.username) return 'username is missing';
  if (auth.type === 'oauth') {
    if (!auth.clientId) return 'clientId is missing';
    if (!/^https:\/\/[^/]/.test(auth.tokenUrl ?? '')) return 'tokenUrl must be https';
  }
  if (!['apiKey', 'basic', 'oauth'].includes(auth.type))
    return `type ${JSON.stringify(auth.type)} is not apiKey, basic or oauth`;
  return null;
}

function authorizationOf(auth: WebhookAuth): events.Authorization {
  // A dynamic reference: the template names the secret, CloudFormation reads it at deploy time.
  const value = SecretValue.secretsManager(
    auth.secret.secretArn,
    auth.secretField ? { jsonField: auth.secretField } : {},
  );
  switch (auth.type) {
    case 'apiKey':
      return events.Authorization.apiKey(auth.header, value);
    case 'basic':
      return events.Authorization.basic(auth.username, value);
    case 'oauth':
      return events.Authorization.oauth({
        authorizationEndpoint: auth.tokenUrl,
        clientId: auth.clientId,
        clientSecret: value,
        httpMethod: events.HttpMethod.POST,
        ...(auth.scope ? { bodyParameters: { scope: events.HttpParameter.fromString(auth.scope) } } : {}),
      });
  }
}

const ruleProps = (pattern: AlertEventPattern): events.EventPattern => ({
  source: [...pattern.source],
  detailType: [...pattern['detail-type']],
  detail: Object.fromEntries(Object.entries(pattern.detail).map(([field, values]) => [field, [...values]])),
});

/**
 * Lets EventBridge use the pipeline key for what it encrypts on the pipeline's behalf: the connections' secrets
 * (through Secrets Manager, for secrets named `events!connection/…`) and the dead-letter queues' messages.
 */
function allowEventBridgeToUseKey(key: kms.IKey, scope: Construct): void {
  // EventBridge only uses a customer managed key for connections that carries this tag.
  Tags.of(key).add('EventBridgeApiDestinations', 'true');
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'EventBridgeConnectionSecrets',
      principals: [new iam.AccountRootPrincipal()],
      actions: ['kms:DescribeKey', 'kms:GenerateDataKey', 'kms:Decrypt'],
      resources: ['*'],
      conditions: {
        StringLike: {
          'kms:ViaService': 'secretsmanager.*.amazonaws.com',
          'kms:EncryptionContext:SecretARN': 'arn:aws:secretsmanager:*:*:secret:events!connection/*',
        },
      },
    }),
  );
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'EventBridgeDeadLetters',
      principals: [new iam.ServicePrincipal('events.amazonaws.com')],
      actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
  );
}

/** One webhook: its connection, API destination, rules and dead-letter queue. */
function createWebhook(
  scope: Construct,
  webhook: WebhookProps,
  resources: { readonly key: kms.IKey; readonly eventBus: events.IEventBus },
): WebhookDelivery {
  const id = `Webhook${webhook.name.replace(/[^A-Za-z0-9]/g, '')}`;
  const holder = new Construct(scope, id);
  const connection = new events.Connection(holder, 'Connection', {
    authorization: authorizationOf(webhook.auth),
    description: `credit-screen webhook ${webhook.name}`,
  });
  // The L2 construct takes no key; its resource (id `Connection`, not `Resource`) does.
  (connection.node.findChild('Connection') as events.CfnConnection).kmsKeyIdentifier = resources.key.keyArn;
  const destination = new events.ApiDestination(holder, 'Destination', {
    connection,
    endpoint: webhook.url,
    httpMethod: events.HttpMethod.POST,
    rateLimitPerSecond: webhook.rateLimitPerSecond ?? 10,
    description: `credit-screen webhook ${webhook.name}`,
  });
  const deadLetterQueue = new sqs.Queue(holder, 'DeadLetterQueue', {
    encryption: sqs.QueueEncryption.KMS,
    encryptionMasterKey: resources.key,
    enforceSSL: true,
    retentionPeriod: DEAD_LETTER_RETENTION,
  });
  Validations.of(deadLetterQueue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason:
      'This queue is itself a dead-letter queue: of the events EventBridge could not deliver to the webhook.',
  });
  const rules = subscriptionPatterns(webhook).map(
    (pattern, index) =>
      new events.Rule(holder, index === 0 ? 'Rule' : `Rule${index + 1}`, {
        eventBus: resources.eventBus,
        description: `credit-screen events to webhook ${webhook.name}`,
        eventPattern: ruleProps(pattern),
        targets: [
          new targets.ApiDestination(destination, {
            deadLetterQueue,
            maxEventAge: MAX_EVENT_AGE,
            retryAttempts: RETRY_ATTEMPTS,
          }),
        ],
      }),
  );
  return { connection, destination, rules, deadLetterQueue };
}

/**
 * Every webhook's delivery, and the alert topic's rule: EventBridge delivers, retries for up to a day and keeps
 * what it could not deliver in a dead-letter queue per webhook, whose alarm fires on the first message.
 */
export function createWebhooks(
  scope: Construct,
  resources: {
    readonly key: kms.IKey;
    readonly eventBus: events.IEventBus;
    readonly webhooks: readonly WebhookProps[];
    readonly alertTopic?: sns.ITopic;
    readonly alertTopicEvents: readonly AlertEventType[];
    readonly alarm: AlarmFactory;
  },
): {
  readonly webhooks: ReadonlyMap<string, WebhookDelivery>;
  readonly alertRule: events.Rule | undefined;
  readonly alarms: readonly cloudwatch.Alarm[];
} {
  if (resources.webhooks.length > 0) allowEventBridgeToUseKey(resources.key, scope);
  const webhooks = new Map<string, WebhookDelivery>();
  const alarms: cloudwatch.Alarm[] = [];
  for (const webhook of resources.webhooks) {
    const delivery = createWebhook(scope, webhook, resources);
    alarms.push(
      resources.alarm(
        `Webhook${webhook.name.replace(/[^A-Za-z0-9]/g, '')}DeadLettersAlarm`,
        delivery.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        `Events for webhook ${webhook.name} could not be delivered within a day, or were refused: they wait in its dead-letter queue.`,
      ),
      resources.alarm(
        `Webhook${webhook.name.replace(/[^A-Za-z0-9]/g, '')}DeadLettersExpiringAlarm`,
        delivery.deadLetterQueue.metricApproximateAgeOfOldestMessage({
          period: Duration.minutes(15),
          statistic: 'Maximum',
        }),
        `Undelivered events for webhook ${webhook.name} have waited half the dead-letter queue's retention: SQS deletes them at its end.`,
        { threshold: oldestMessageAlarmSecondsFor(DEAD_LETTER_RETENTION.toSeconds()) },
      ),
    );
    webhooks.set(webhook.name, delivery);
  }
  const alertRule =
    resources.alertTopic &&
    new events.Rule(scope, 'AlertTopicRule', {
      eventBus: resources.eventBus,
      description: 'credit-screen events, documents masked, to the alert topic',
      eventPattern: {
        source: [EVENTS.source],
        detailType: [...resources.alertTopicEvents],
        detail: { documentForm: DOCUMENT_FORMS.filter((form) => form !== 'full') },
      },
      targets: [new targets.SnsTopic(resources.alertTopic)],
    });
  return { webhooks, alertRule, alarms };
}
