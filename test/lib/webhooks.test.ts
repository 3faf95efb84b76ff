import { SecretValue } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import type { WebhookProps } from '../../lib/credit-screen-pipeline.ts';
import { synthesizeStack } from '../factories/synthesized-stack.ts';
import { WEBHOOK_SECRET as secret, ALERT_TOPIC as topic, WEBHOOKS } from '../factories/webhooks.ts';

const withWebhooks = (extra: Record<string, unknown> = {}) =>
  synthesizeStack({ webhooks: WEBHOOKS, alertTopic: topic, ...extra });

/** Targets of the rules that deliver to an API destination. */
function deliveryRules(template: ReturnType<typeof withWebhooks>['template']) {
  return Object.values(template.findResources('AWS::Events::Rule')).filter((rule) =>
    JSON.stringify(rule.Properties.Targets).includes('ApiDestination'),
  );
}

describe('webhooks delivered by EventBridge (the construct’s webhooks prop)', () => {
  it('creates per webhook a connection under the pipeline key, with its secret by reference', () => {
    const { template } = withWebhooks();

    const connections = Object.values(template.findResources('AWS::Events::Connection'));
    expect(connections.map((c) => c.Properties.AuthorizationType).sort()).toEqual([
      'API_KEY',
      'BASIC',
      'OAUTH_CLIENT_CREDENTIALS',
    ]);
    for (const connection of connections) {
      expect(connection.Properties.KmsKeyIdentifier).toEqual({
        'Fn::GetAtt': [expect.stringMatching(/Key/), 'Arn'],
      });
      expect(JSON.stringify(connection.Properties.AuthParameters)).toContain(
        '{{resolve:secretsmanager:arn:aws:secretsmanager:sa-east-1:123456789012:secret:credit-screen/erp-webhook-AbCdEf:SecretString:',
      );
    }
    template.hasResourceProperties('AWS::KMS::Key', {
      Tags: Match.arrayWith([{ Key: 'EventBridgeApiDestinations', Value: 'true' }]),
    });
  });

  it('creates its API destination and rules: the subscription’s patterns, a day of retries, a dead-letter queue with an alarm', () => {
    const { template } = withWebhooks();

    template.hasResourceProperties('AWS::Events::ApiDestination', {
      InvocationEndpoint: 'https://erp.example.com/hooks/credit',
      HttpMethod: 'POST',
      InvocationRateLimitPerSecond: 10,
    });
    template.hasResourceProperties('AWS::Events::ApiDestination', { InvocationRateLimitPerSecond: 2 });
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['credit-screen'],
        'detail-type': ['DocumentChanged'],
        detail: { documentForm: ['none', 'full'], kinds: ['new_protest', 'score_drop'] },
      },
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['credit-screen'],
        'detail-type': ['BatchCompleted', 'BatchAwaitingApproval', 'BudgetExhausted'],
        detail: { documentForm: ['none', 'masked'] },
      },
    });
    const rules = deliveryRules(template);
    expect(rules).toHaveLength(4); // erp, crm (its events, then DocumentChanged by kind), chat
    for (const rule of rules)
      expect(rule.Properties.Targets).toEqual([
        expect.objectContaining({
          RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
          DeadLetterConfig: { Arn: expect.anything() },
          RoleArn: expect.anything(),
        }),
      ]);
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: 'sqs:SendMessage', Principal: { Service: 'events.amazonaws.com' } }),
        ]),
      },
    });
    for (const name of ['erp', 'crm', 'chat'])
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmDescription: Match.stringLikeRegexp(`webhook ${name} could not be delivered`),
      });
  });

  it('sends the alert topic every event but DocumentChanged, documents masked', () => {
    const { template } = withWebhooks();

    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['credit-screen'],
        'detail-type': Match.not(Match.arrayWith(['DocumentChanged'])),
        detail: { documentForm: ['none', 'masked'] },
      },
      Targets: [Match.objectLike({ Arn: 'arn:aws:sns:sa-east-1:123456789012:credit-alerts' })],
    });
  });

  it('publishes the change kinds and the document form the webhooks ask for', () => {
    const { stack } = withWebhooks();

    expect(stack.pipeline.settings.alertChangeKinds).toEqual(['new_protest', 'score_drop']);
    expect(stack.pipeline.settings.alertFullDocuments).toBe(true);
  });

  it('is cdk-nag clean', () => {
    const { app, stack } = withWebhooks();

    const report = new AwsSolutionsChecks(app).validateScope(stack);

    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });

  it.each([
    ['an http URL', { ...WEBHOOKS[0], url: 'http://erp.example.com/hooks' }, /url must be https/],
    ['an unknown event', { ...WEBHOOKS[0], events: ['BatchDone'] }, /unknown event "BatchDone"/],
    [
      'an unknown change kind',
      { ...WEBHOOKS[1], changeKinds: ['registration'] },
      /unknown change kind "registration"/,
    ],
    [
      'a secret written inline',
      { ...WEBHOOKS[0], auth: { type: 'apiKey', header: 'X-Api-Key', secret: 's3cr3t' } },
      /not a value written into the template/,
    ],
    [
      'a SecretValue in clear',
      {
        ...WEBHOOKS[0],
        auth: { type: 'apiKey', header: 'X-Api-Key', secret: SecretValue.unsafePlainText('s3cr3t') },
      },
      /not a value written into the template/,
    ],
    [
      'a header name with a space',
      { ...WEBHOOKS[0], auth: { type: 'apiKey', header: 'Api Key', secret } },
      /is not a header name/,
    ],
    [
      'an OAuth token URL in http',
      {
        ...WEBHOOKS[2],
        auth: { type: 'oauth', tokenUrl: 'http://login.example.com', clientId: 'x', secret },
      },
      /tokenUrl must be https/,
    ],
  ])('refuses %s at synth, in one line', (_what, webhook, message) => {
    expect(() => synthesizeStack({ webhooks: [webhook as WebhookProps] })).toThrow(message);
    expect(() => synthesizeStack({ webhooks: [webhook as WebhookProps] })).toThrow(
      /^CreditScreenPipeline: [^\n]+$/,
    );
  });

  it('refuses alert settings given both by the webhooks and in settings, and topic events without a topic', () => {
    expect(() =>
      synthesizeStack({ webhooks: WEBHOOKS, settings: { alertChangeKinds: ['new_protest'] } }),
    ).toThrow(/^CreditScreenPipeline: alertChangeKinds follow from webhooks/);
    expect(() => synthesizeStack({ alertTopicEvents: ['BatchCompleted'] })).toThrow(/give alertTopic/);
  });
});
