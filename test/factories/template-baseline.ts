import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import { CreditScreenPipeline } from '../../lib/credit-screen-pipeline.ts';
import { synthesizeStack } from './synthesized-stack.ts';

type Json = unknown;

/** A code asset's content hash (S3 key `<hash>.zip`, staging folder `asset.<hash>`): it moves with every Lambda edit. */
const ASSET_HASH = /\b[0-9a-f]{64}\b/g;

/** The template with code asset hashes replaced by `<asset-hash>`; everything else (ids, properties, IAM) as is. */
function normaliseTemplate(template: Json): Json {
  if (typeof template === 'string') return template.replace(ASSET_HASH, '<asset-hash>');
  if (Array.isArray(template)) return template.map(normaliseTemplate);
  if (typeof template !== 'object' || template === null) return template;
  return Object.fromEntries(Object.entries(template).map(([key, value]) => [key, normaliseTemplate(value)]));
}

/**
 * The stack `bin/app.ts` deploys, and a construct with every optional prop that changes the template (declared
 * portfolios, an existing secret and its key, an alarm topic, another removal policy and settings), normalised.
 */
export function templatesToCompare(): Record<string, Json> {
  const withEveryProp = () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Test');
    new CreditScreenPipeline(stack, 'Pipeline', {
      bureauBaseUrl: 'https://gateway.example.invalid',
      tokenSecret: secretsmanager.Secret.fromSecretCompleteArn(
        stack,
        'Secret',
        'arn:aws:secretsmanager:sa-east-1:123456789012:secret:bureau-token-AbCdEf',
      ),
      tokenSecretKey: kms.Key.fromKeyArn(
        stack,
        'SecretKey',
        'arn:aws:kms:sa-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      ),
      alarmTopic: new sns.Topic(stack, 'Alarms'),
      removalPolicy: RemovalPolicy.DESTROY,
      bureaus: { a: { rateLimitPerSecond: 25 }, b: { rateLimitBurst: 40 } },
      workerConcurrency: 7,
      retentionDays: 30,
      excelSummary: true,
      defaultBureau: 'b',
      portfolioSchedule: null,
      reportLanguage: 'en',
      settings: { maxAttempts: 3, workerTimeoutSeconds: 90 },
      portfolios: [
        {
          name: 'carteira-pj',
          schedule: 'cron(0 6 ? * MON *)',
          timezone: 'America/Sao_Paulo',
          maxAgeHours: 12,
        },
        { name: 'carteira_pf', schedule: 'rate(1 day)', bureau: 'a' },
      ],
    });
    return Template.fromStack(stack).toJSON();
  };
  return {
    defaultStack: normaliseTemplate(synthesizeStack().template.toJSON()),
    everyProp: normaliseTemplate(withEveryProp()),
  };
}

const describeValue = (value: Json): string => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
};

/**
 * Where `actual` differs from `expected`, one line per difference, by path: `Resources.<LogicalId>.Properties.…`,
 * a resource that went missing or appeared (with its type), a value that changed (expected and got).
 */
export function templateDifferences(expected: Json, actual: Json, path = ''): string[] {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length)
      return [
        `${path}: expected ${expected.length} items ${describeValue(expected)}, got ${describeValue(actual)}`,
      ];
    return expected.flatMap((item, index) => templateDifferences(item, actual[index], `${path}[${index}]`));
  }
  const isObject = (value: Json): value is Record<string, Json> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  if (isObject(expected) && isObject(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
    return keys.flatMap((key) => {
      const at = path === '' ? key : `${path}.${key}`;
      if (!(key in actual)) return [`${at}: missing (expected ${describeValue(expected[key])})`];
      if (!(key in expected)) return [`${at}: unexpected (got ${describeValue(actual[key])})`];
      return templateDifferences(expected[key], actual[key], at);
    });
  }
  return JSON.stringify(expected) === JSON.stringify(actual)
    ? []
    : [`${path}: expected ${describeValue(expected)}, got ${describeValue(actual)}`];
}
