import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_MEMORY } from '../../src/contract/index.ts';
import { allowsAction, iamLike, resolveValue, synthesizeStack } from '../factories/synthesized-stack.ts';

/**
 * What only a deployment would show, checked on the synthesized template: the permissions AWS services need on the
 * pipeline's key (CloudWatch Logs, Secrets Manager, services sending to encrypted queues) and that no secret value
 * ends up in a function's environment.
 */

interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Principal?: { readonly Service?: unknown; readonly AWS?: unknown };
  readonly Resource?: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

const resourcesOf = (template: Template): Resources => template.toJSON().Resources as Resources;

function keyPolicyOf(template: Template, keyLogicalId: string): Statement[] {
  const key = resourcesOf(template)[keyLogicalId];
  return ((key?.Properties.KeyPolicy as { Statement?: Statement[] })?.Statement ?? []) as Statement[];
}

/** The logical id of the key a `Fn::GetAtt [key, Arn]` names, or undefined for anything else. */
function keyIdOf(reference: unknown): string | undefined {
  const attribute = (reference as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt'];
  return attribute?.[1] === 'Arn' ? attribute[0] : undefined;
}

/** Whether the key policy lets `service` perform every action, for the resource whose encryption context is given. */
function keyAllowsService(
  statements: readonly Statement[],
  service: string,
  actions: readonly string[],
  encryptionContext: Record<string, string> = {},
): boolean {
  return actions.every((action) =>
    statements.some((statement) => {
      if (statement.Effect !== 'Allow' || !allowsAction(statement.Action, action)) return false;
      const principals = [resolveValue(statement.Principal?.Service)].flat();
      if (!principals.includes(service)) return false;
      return Object.entries(statement.Condition ?? {}).every(([operator, conditions]) =>
        Object.entries(conditions).every(([name, expected]) => {
          const actual = encryptionContext[name];
          if (actual === undefined) return false;
          const patterns = [resolveValue(expected)].flat().map(String);
          return operator.endsWith('Like')
            ? patterns.some((pattern) => iamLike(pattern, actual))
            : patterns.includes(actual);
        }),
      );
    }),
  );
}

/** Log groups encrypted with a key in the stack that CloudWatch Logs may not use for them. */
function logGroupsLogsCannotEncrypt(template: Template): string[] {
  const refused: string[] = [];
  for (const [id, group] of Object.entries(template.findResources('AWS::Logs::LogGroup'))) {
    const keyId = keyIdOf(group.Properties.KmsKeyId);
    if (keyId === undefined) continue;
    const name = resolveValue(group.Properties.LogGroupName);
    // A group CloudFormation names itself cannot be named in the key policy before it exists.
    const arn = typeof name === 'string' ? `arn:aws:logs:sa-east-1:123456789012:log-group:${name}` : '';
    const logsActions = [
      'kms:Encrypt',
      'kms:Decrypt',
      'kms:ReEncrypt*',
      'kms:GenerateDataKey*',
      'kms:DescribeKey',
    ];
    if (
      !keyAllowsService(keyPolicyOf(template, keyId), 'logs.sa-east-1.amazonaws.com', logsActions, {
        'kms:EncryptionContext:aws:logs:arn': arn,
      })
    )
      refused.push(id);
  }
  return refused;
}

interface ServiceSend {
  readonly queue: string;
  readonly service: string;
  /** The role the service sends with (EventBridge Scheduler); without one the service's principal needs the key. */
  readonly role?: string;
}

/**
 * Every queue an AWS service sends to: S3 notifications and EventBridge rules (as their service principals), and
 * Scheduler schedules (with the schedule's role).
 */
function serviceSendsToQueues(template: Template): ServiceSend[] {
  const sends: ServiceSend[] = [];
  const queueIdOf = (arn: unknown) => keyIdOf(arn);
  for (const notifications of Object.values(template.findResources('Custom::S3BucketNotifications'))) {
    const configuration = notifications.Properties.NotificationConfiguration as {
      QueueConfigurations?: { QueueArn: unknown }[];
    };
    for (const { QueueArn } of configuration.QueueConfigurations ?? []) {
      const queue = queueIdOf(QueueArn);
      if (queue) sends.push({ queue, service: 's3.amazonaws.com' });
    }
  }
  for (const rule of Object.values(template.findResources('AWS::Events::Rule'))) {
    for (const target of (rule.Properties.Targets ?? []) as { Arn: unknown }[]) {
      const queue = queueIdOf(target.Arn);
      if (queue && resourcesOf(template)[queue]?.Type === 'AWS::SQS::Queue')
        sends.push({ queue, service: 'events.amazonaws.com' });
    }
  }
  for (const schedule of Object.values(template.findResources('AWS::Scheduler::Schedule'))) {
    const target = schedule.Properties.Target as { Arn: unknown; RoleArn: unknown };
    const queue = queueIdOf(target.Arn);
    if (queue && resourcesOf(template)[queue]?.Type === 'AWS::SQS::Queue')
      sends.push({ queue, service: 'scheduler.amazonaws.com', role: keyIdOf(target.RoleArn) });
  }
  return sends;
}

/** The sends whose queue key does not let the sender encrypt (GenerateDataKey) and decrypt. */
function sendsTheKeyRefuses(template: Template): ServiceSend[] {
  const actions = ['kms:GenerateDataKey', 'kms:Decrypt'];
  return serviceSendsToQueues(template).filter(({ queue, service, role }) => {
    const keyId = keyIdOf(resourcesOf(template)[queue]?.Properties.KmsMasterKeyId);
    if (keyId === undefined) return false;
    if (role === undefined) return !keyAllowsService(keyPolicyOf(template, keyId), service, actions);
    const statements = roleStatements(template, role);
    return !actions.every((action) =>
      statements.some(
        (statement) =>
          statement.Effect === 'Allow' &&
          allowsAction(statement.Action, action) &&
          [resolveValue(statement.Resource)].flat().includes(`<${keyId}.Arn>`),
      ),
    );
  });
}

/** Identity-policy statements of the role whose logical id starts with `rolePrefix`. */
function roleStatements(template: Template, rolePrefix: string): Statement[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) =>
      (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref.startsWith(rolePrefix)),
    )
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

/** The worker's statements that allow kms:Decrypt on `keyArn` (resolved), with their conditions. */
function workerDecryptGrants(template: Template, keyArn: string): Statement[] {
  return roleStatements(template, 'PipelineWorkerServiceRole').filter(
    (statement) =>
      statement.Effect === 'Allow' &&
      allowsAction(statement.Action, 'kms:Decrypt') &&
      [resolveValue(statement.Resource)].flat().includes(keyArn),
  );
}

const SECRET_ARN = 'arn:aws:secretsmanager:sa-east-1:123456789012:secret:bureau-token-AbCdEf';
/** Every function has its own encrypted log group. */
const FUNCTION_COUNT = Object.keys(FUNCTION_MEMORY).length;
const SECRET_KEY_ARN = 'arn:aws:kms:sa-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

let built: ReturnType<typeof synthesizeStack>;
beforeAll(() => {
  built = synthesizeStack();
}, 60_000);

describe('deploy-time checks on the template', () => {
  it('lets CloudWatch Logs use the key of every encrypted log group, for those log groups only', () => {
    const groups = built.template.findResources('AWS::Logs::LogGroup');
    expect(Object.keys(groups)).toHaveLength(FUNCTION_COUNT);

    expect(logGroupsLogsCannotEncrypt(built.template)).toEqual([]);

    const [keyId] = Object.keys(built.template.findResources('AWS::KMS::Key'));
    const statements = keyPolicyOf(built.template, keyId ?? '');
    const elsewhere = 'arn:aws:logs:sa-east-1:123456789012:log-group:/aws/lambda/someone-else';
    expect(
      keyAllowsService(statements, 'logs.sa-east-1.amazonaws.com', ['kms:GenerateDataKey'], {
        'kms:EncryptionContext:aws:logs:arn': elsewhere,
      }),
    ).toBe(false);
  });

  it('names a log group whose key lacks the logs statement (negative control)', () => {
    const template = built.template.toJSON();
    const [keyId] = Object.keys(built.template.findResources('AWS::KMS::Key'));
    const key = template.Resources[keyId ?? ''];
    key.Properties.KeyPolicy.Statement = key.Properties.KeyPolicy.Statement.filter(
      (statement: Statement) => !JSON.stringify(statement.Principal ?? {}).includes('logs.'),
    );
    const edited = Template.fromJSON(template);
    expect(logGroupsLogsCannotEncrypt(edited)).toHaveLength(FUNCTION_COUNT);
  });

  it('has no AWS service sending to an encrypted queue without the key letting it (S3, EventBridge, Scheduler)', () => {
    // In this stack S3 notifies Lambda functions, EventBridge only receives events and Scheduler invokes ingest:
    // no service sends to SQS.
    expect(serviceSendsToQueues(built.template)).toEqual([]);
    expect(sendsTheKeyRefuses(built.template)).toEqual([]);
  });

  it('finds an S3 notification to a queue whose key does not let S3 in (negative control)', () => {
    const template = built.template.toJSON();
    const [notificationsId] = Object.keys(built.template.findResources('Custom::S3BucketNotifications'));
    const [workQueueId] = Object.keys(
      built.template.findResources('AWS::SQS::Queue', {
        Properties: { RedrivePolicy: Match.objectLike({ maxReceiveCount: Match.anyValue() }) },
      }),
    );
    template.Resources[notificationsId ?? ''].Properties.NotificationConfiguration.QueueConfigurations = [
      { Events: ['s3:ObjectCreated:*'], QueueArn: { 'Fn::GetAtt': [workQueueId, 'Arn'] } },
    ];
    const edited = Template.fromJSON(template);
    expect(sendsTheKeyRefuses(edited)).toEqual([{ queue: workQueueId, service: 's3.amazonaws.com' }]);
  });

  it('finds a schedule sending to a queue whose key its role may not use (negative control)', () => {
    const { template: declared } = synthesizeStack({ portfolios: [{ name: 'p', schedule: 'rate(1 day)' }] });
    const template = declared.toJSON();
    const [scheduleId] = Object.keys(declared.findResources('AWS::Scheduler::Schedule'));
    const [queueId] = Object.keys(declared.findResources('AWS::SQS::Queue'));
    template.Resources[scheduleId ?? ''].Properties.Target.Arn = { 'Fn::GetAtt': [queueId, 'Arn'] };
    const edited = Template.fromJSON(template);
    expect(sendsTheKeyRefuses(edited)).toEqual([
      {
        queue: queueId,
        service: 'scheduler.amazonaws.com',
        role: expect.stringMatching(/^PipelineSchedulerRole/),
      },
    ]);
  });

  it("lets the worker decrypt the token secret created with the pipeline's key", () => {
    const [keyId] = Object.keys(built.template.findResources('AWS::KMS::Key'));
    expect(workerDecryptGrants(built.template, `<${keyId}.Arn>`).length).toBeGreaterThan(0);
    // The key policy delegates to IAM (the account root may use the key), so the role's grant takes effect.
    expect(
      keyPolicyOf(built.template, keyId ?? '').some(
        (statement) =>
          statement.Action === 'kms:*' &&
          resolveValue(statement.Principal?.AWS) === 'arn:aws:iam::123456789012:root',
      ),
    ).toBe(true);
  });

  it("lets the worker decrypt an existing token secret with the secret's own key, through Secrets Manager only", () => {
    const { template } = synthesizeStack(
      {},
      { stack: { tokenSecretArn: SECRET_ARN, tokenSecretKeyArn: SECRET_KEY_ARN } },
    );

    const grants = workerDecryptGrants(template, SECRET_KEY_ARN);

    expect(grants).toHaveLength(1);
    expect(resolveValue(grants[0]?.Condition)).toEqual({
      StringEquals: { 'kms:ViaService': 'secretsmanager.sa-east-1.amazonaws.com' },
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'] }),
        ]),
      },
    });
  });

  it('stays clean under the AWS Solutions checks (cdk-nag) with an existing secret and its key', () => {
    const { app, stack } = synthesizeStack(
      {},
      { stack: { tokenSecretArn: SECRET_ARN, tokenSecretKeyArn: SECRET_KEY_ARN } },
    );
    const report = new AwsSolutionsChecks(app).validateScope(stack);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });

  it('warns at synth when an existing token secret comes without its key, and refuses a key without a secret', () => {
    const { stack } = synthesizeStack({}, { stack: { tokenSecretArn: SECRET_ARN } });
    const warnings = Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('tokenSecretKey'));
    expect(warnings).toHaveLength(1);

    const withKey = synthesizeStack(
      {},
      { stack: { tokenSecretArn: SECRET_ARN, tokenSecretKeyArn: SECRET_KEY_ARN } },
    );
    expect(
      Annotations.fromStack(withKey.stack).findWarning('*', Match.stringLikeRegexp('tokenSecretKey')),
    ).toEqual([]);
    expect(() => synthesizeStack({}, { stack: { tokenSecretKeyArn: SECRET_KEY_ARN } })).toThrow(
      'tokenSecretKey is the key of a given tokenSecret',
    );
  });

  it('puts no secret value in any function environment', () => {
    const { template } = synthesizeStack({}, { stack: { tokenSecretArn: SECRET_ARN } });
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThanOrEqual(5);
    for (const fn of functions) {
      const variables = (fn.Properties.Environment?.Variables ?? {}) as Record<string, unknown>;
      for (const [name, value] of Object.entries(variables)) {
        if (!/TOKEN|SECRET|PASSWORD|CREDENTIAL|API_?KEY/i.test(name)) continue;
        // Only a reference to a secret may be there: its ARN, never what it holds.
        const resolved = String(resolveValue(value));
        expect(resolved, name).toMatch(/^(arn:aws:secretsmanager:|<)/);
      }
      expect(JSON.stringify(variables)).not.toContain('credit-screen-dev-token');
    }
  });
});
