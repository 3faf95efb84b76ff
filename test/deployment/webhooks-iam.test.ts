import { describe, expect, it } from 'vitest';
import type { Template } from '../../cli/local/cloud-assembly.ts';
import { synthesizeStack } from '../factories/synthesized-stack.ts';
import { WEBHOOKS } from '../factories/webhooks.ts';
import { describeDenials, type IamRequest, TemplateIam } from './iam-evaluation.ts';
import { ACCOUNT, TemplateResolver } from './template-resolver.ts';

// What runs only in AWS, checked on the template: EventBridge delivering to each webhook with the rule's role,
// and putting what it could not deliver in the webhook's dead-letter queue, encrypted with the pipeline key.
const { template: synthesized } = synthesizeStack({ webhooks: WEBHOOKS });
const template = synthesized.toJSON() as Template;
const resolver = new TemplateResolver(template, {
  byLogicalId: new Map(),
  queueUrl: (name) => `https://sqs.us-east-1.amazonaws.com/${ACCOUNT}/${name}`,
});
const iam = new TemplateIam(template, resolver);
const arnOf = (logicalId: string) => resolver.resolveString({ 'Fn::GetAtt': [logicalId, 'Arn'] });

interface Delivery {
  readonly rule: string;
  readonly role: string;
  readonly destination: string;
  readonly deadLetterQueue: string;
}

/** Each delivery rule: its ARN, the role its target assumes, its API destination and dead-letter queue. */
const deliveries: Delivery[] = Object.entries(template.Resources)
  .filter(([, resource]) => resource.Type === 'AWS::Events::Rule')
  .flatMap(([logicalId, resource]) => {
    const [target] = (resource.Properties?.Targets ?? []) as {
      Arn: unknown;
      RoleArn?: { 'Fn::GetAtt': [string, string] };
      DeadLetterConfig?: { Arn: unknown };
    }[];
    if (!target?.RoleArn || !target.DeadLetterConfig) return [];
    return [
      {
        rule: arnOf(logicalId),
        role: target.RoleArn['Fn::GetAtt'][0],
        destination: resolver.resolveString(target.Arn),
        deadLetterQueue: resolver.resolveString(target.DeadLetterConfig.Arn),
      },
    ];
  });
const keyArn = arnOf(
  Object.entries(template.Resources).find(
    ([, resource]) =>
      resource.Type === 'AWS::KMS::Key' &&
      JSON.stringify(resource.Properties).includes('EventBridgeApiDestinations'),
  )?.[0] ?? 'missing',
);

const secure = { 'aws:SecureTransport': 'true' };
const invoke = (caller: string, destination: string): IamRequest => ({
  caller,
  action: 'events:InvokeApiDestination',
  resource: destination,
  context: {},
  because: `EventBridge delivers to ${destination}`,
});
const deadLetter = (delivery: Delivery, sourceArn: string): IamRequest[] => [
  {
    caller: 'events.amazonaws.com',
    action: 'sqs:SendMessage',
    resource: delivery.deadLetterQueue,
    context: { ...secure, 'aws:SourceArn': sourceArn, 'aws:SourceAccount': ACCOUNT },
    because: `EventBridge keeps an undelivered event of ${delivery.rule}`,
  },
  ...['kms:GenerateDataKey', 'kms:Decrypt'].map((action) => ({
    caller: 'events.amazonaws.com',
    action,
    resource: keyArn,
    context: { 'aws:SourceArn': sourceArn, 'aws:SourceAccount': ACCOUNT },
    because: `EventBridge encrypts an undelivered event of ${delivery.rule}`,
  })),
];

describe('webhook delivery in AWS, evaluated on the template’s policies', () => {
  it('lets each rule’s role invoke its own API destination, and no other', async () => {
    const own = deliveries.map((delivery) => invoke(delivery.role, delivery.destination));
    const others = deliveries.flatMap((delivery) =>
      deliveries
        .filter((other) => other.destination !== delivery.destination)
        .map((other) => invoke(delivery.role, other.destination)),
    );

    expect(deliveries).toHaveLength(4);
    expect(describeDenials(await iam.evaluate(own))).toBe('');
    expect(await iam.evaluate(others)).toHaveLength(others.length);
  });

  it('lets EventBridge put an undelivered event in the webhook’s dead-letter queue for its rules only', async () => {
    const allowed = deliveries.flatMap((delivery) => deadLetter(delivery, delivery.rule));
    const foreignRule = `arn:aws:events:us-east-1:${ACCOUNT}:rule/someone-elses`;
    const foreign = deliveries.map((delivery) => deadLetter(delivery, foreignRule)[0] as IamRequest);

    expect(describeDenials(await iam.evaluate(allowed))).toBe('');
    expect(await iam.evaluate(foreign)).toHaveLength(foreign.length);
  });

  it('does not let EventBridge use the pipeline key on another account’s behalf', async () => {
    const foreign = ['kms:GenerateDataKey', 'kms:Decrypt', 'kms:DescribeKey'].map((action) => ({
      caller: 'events.amazonaws.com',
      action,
      resource: keyArn,
      context: { 'aws:SourceAccount': 'not-this-account' },
      because: 'a service of another account',
    }));

    expect(keyArn).toMatch(/^arn:aws:kms:/);
    expect(await iam.evaluate(foreign)).toHaveLength(foreign.length);
  });
});
