import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { CreditScreenPipeline, type CreditScreenPipelineProps } from '../../lib/credit-screen-pipeline.ts';
import { CreditScreenStack } from '../../lib/credit-screen-stack.ts';

function synthesize(props: Partial<CreditScreenPipelineProps> = {}) {
  // No esbuild: the template is the same without bundles (only asset hashes differ). `npm test` bundles them with
  // `cdk synth`, and test/deployment runs those bundles.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new CreditScreenStack(app, 'Test', {
    pipeline: { bureauBaseUrl: 'https://gateway.example.invalid', ...props },
  });
  return { app, stack, template: Template.fromStack(stack) };
}

let built: ReturnType<typeof synthesize>;
beforeAll(() => {
  built = synthesize({
    retentionDays: 30,
    workerConcurrency: 7,
    bureaus: { a: { rateLimitPerSecond: 25 } },
    scoreChangePoints: 80,
    portfolios: [
      {
        name: 'carteira-pj',
        schedule: 'cron(0 6 ? * MON *)',
        timezone: 'America/Sao_Paulo',
        maxAgeHours: 12,
      },
    ],
  });
}, 120_000);

describe('CreditScreenPipeline', () => {
  it('encrypts everything with one rotated customer-managed key', () => {
    const { template } = built;
    template.resourceCountIs('AWS::KMS::Key', 1);
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    const key = { 'Fn::GetAtt': [Match.stringLikeRegexp('^PipelineKey'), 'Arn'] };
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          { ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: key } },
        ],
      },
    });
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: key },
    });
    const queues = Object.values(template.findResources('AWS::SQS::Queue'));
    expect(queues).toHaveLength(6);
    for (const queue of queues)
      expect(queue.Properties.KmsMasterKeyId['Fn::GetAtt'][0]).toMatch(/^PipelineKey/);
  });

  it('blocks public access to the buckets and refuses plain HTTP', () => {
    const { template } = built;
    for (const [, bucket] of Object.entries(template.findResources('AWS::S3::Bucket'))) {
      expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
    }
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('keeps personal data only for the retention period (S3 lifecycle, DynamoDB TTL)', () => {
    const { template } = built;
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith(
          ['incoming/', 'raw/', 'results/', 'work/'].map((prefix) =>
            Match.objectLike({ Prefix: prefix, ExpirationInDays: 30, Status: 'Enabled' }),
          ),
        ),
      },
    });
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
  });

  it('runs eight Node.js 22 functions, on ARM but the worker, the finaliser and the policy check (their policy engine is x86_64), with the token secret referenced by ARN and never by value', () => {
    const { template } = built;
    const functions = template.findResources('AWS::Lambda::Function', {
      Properties: { Runtime: 'nodejs22.x' },
    });
    expect(Object.keys(functions)).toHaveLength(8);
    for (const [id, fn] of Object.entries(functions)) {
      const engine = ['PipelineWorker', 'PipelineFinalise', 'PipelinePolicyCheck'].some((prefix) =>
        id.startsWith(prefix),
      );
      expect(fn.Properties.Architectures).toEqual([engine ? 'x86_64' : 'arm64']);
      const variables = fn.Properties.Environment.Variables;
      expect(variables.BUREAU_TOKEN_SECRET_ID).toEqual({
        Ref: expect.stringMatching(/^PipelineBureauToken/),
      });
      expect(Object.keys(variables).filter((name) => /TOKEN/.test(name))).toEqual(['BUREAU_TOKEN_SECRET_ID']);
      expect(JSON.parse(variables.PIPELINE_SETTINGS)).toMatchObject({
        retentionDays: 30,
        workerConcurrency: 7,
        bureaus: { a: { rateLimitPerSecond: 25 }, b: { rateLimitPerSecond: 10 } },
        scoreChangePoints: 80,
        portfolioSchedule: 'rate(7 days)',
      });
    }
  });

  it('sizes each function and caps its V8 heap below its memory', () => {
    const functions = Object.values(
      built.template.findResources('AWS::Lambda::Function', { Properties: { Runtime: 'nodejs22.x' } }),
    );
    for (const fn of functions) {
      const memory = fn.Properties.MemorySize as number;
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBe(
        `--enable-source-maps --max-old-space-size=${Math.floor(memory * 0.6)}`,
      );
    }
    expect(functions.map((fn) => fn.Properties.MemorySize).sort((a: number, b: number) => a - b)).toEqual([
      256, 256, 256, 256, 256, 256, 1024, 1769,
    ]);
  });

  it('feeds the worker from the work queue with partial batch failures and bounded concurrency, behind a DLQ', () => {
    const { template } = built;
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 7 },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 360,
      RedrivePolicy: { maxReceiveCount: 10, deadLetterTargetArn: Match.anyValue() },
    });
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 4);
  });

  it('dispatches a batch in parts from a queue of its own, a few parts at a time, behind a DLQ that alarms', () => {
    const { template } = built;
    const dispatch = Object.keys(
      template.findResources('AWS::Lambda::Function', { Properties: { Timeout: 300 } }),
    ).filter((id) => id.startsWith('PipelineDispatch'));
    expect(dispatch).toHaveLength(1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: dispatch[0] },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 4 },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 1800,
      RedrivePolicy: { maxReceiveCount: 10, deadLetterTargetArn: Match.anyValue() },
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      AlarmDescription: Match.stringLikeRegexp('could not be dispatched'),
    });
  });

  it('shares the work queue between batches as an SQS fair queue: a standard queue, message groups set by the senders', () => {
    const { template } = built;
    // Fair queues are standard queues whose messages carry a MessageGroupId: no FIFO queue anywhere.
    for (const queue of Object.values(template.findResources('AWS::SQS::Queue')))
      expect(queue.Properties?.FifoQueue).toBeUndefined();
    // Every function that sends work messages (ingest, sweeper) is told to give them their groups.
    const functions = template.findResources('AWS::Lambda::Function');
    const fairQueuesOf = (prefix: string, resources = functions) => {
      const [found] = Object.entries(resources).filter(([id]) => id.startsWith(prefix));
      const settings = found?.[1].Properties.Environment.Variables.PIPELINE_SETTINGS as string;
      return (JSON.parse(settings) as { fairQueues: boolean }).fairQueues;
    };
    expect(fairQueuesOf('PipelineIngest')).toBe(true);
    expect(fairQueuesOf('PipelineSweeper')).toBe(true);
    expect(fairQueuesOf('PipelineDispatch')).toBe(true);
    // The setting turns the groups off (a queue service without fair queues), through the same variable.
    const off = synthesize({ settings: { fairQueues: false } }).template.findResources(
      'AWS::Lambda::Function',
    );
    expect(fairQueuesOf('PipelineIngest', off)).toBe(false);
  });

  it('starts a batch on uploads under incoming/, checks uploads under policies/, and syncs schedules on any change under portfolios/', () => {
    const [notifications] = Object.values(built.template.findResources('Custom::S3BucketNotifications'));
    const configurations = notifications?.Properties.NotificationConfiguration
      .LambdaFunctionConfigurations as {
      Events: string[];
      Filter: { Key: { FilterRules: { Value: string }[] } };
      LambdaFunctionArn: { 'Fn::GetAtt': string[] };
    }[];
    expect(
      configurations.map((configuration) => [
        configuration.LambdaFunctionArn['Fn::GetAtt'][0]?.replace(/[0-9A-F]{8}$/, ''),
        configuration.Events[0],
        configuration.Filter.Key.FilterRules[0]?.Value,
      ]),
    ).toEqual([
      ['PipelinePortfolioSchedules', 's3:ObjectCreated:*', 'portfolios/'],
      ['PipelinePortfolioSchedules', 's3:ObjectRemoved:*', 'portfolios/'],
      ['PipelineIngest', 's3:ObjectCreated:*', 'incoming/'],
      ['PipelinePolicyCheck', 's3:ObjectCreated:*', 'policies/'],
    ]);
  });

  it('alarms on dead letters, on function errors, on rows getting stuck again and again, and on spending caps', () => {
    const alarms = built.template.findResources('AWS::CloudWatch::Alarm');
    expect(
      Object.values(alarms)
        .map((alarm) => alarm.Properties.MetricName)
        .sort(),
    ).toEqual([
      'ApproximateAgeOfOldestMessage',
      'ApproximateAgeOfOldestMessage',
      'ApproximateAgeOfOldestMessage',
      'ApproximateAgeOfOldestMessage',
      'ApproximateAgeOfOldestMessage',
      'ApproximateAgeOfOldestMessage',
      'ApproximateNumberOfMessagesVisible',
      'ApproximateNumberOfMessagesVisible',
      'ApproximateNumberOfMessagesVisible',
      'BudgetAlerts100',
      'BudgetAlerts80',
      'Errors',
      'Errors',
      'Errors',
      'Errors',
      'StuckRowsRequeued',
    ]);
    built.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'StuckRowsRequeued',
      Namespace: 'credit-screen',
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      Threshold: 0,
    });
    // Every queue, dead-letter queues included, alarms a week before SQS would delete its oldest message.
    const retention = built.template.findResources('AWS::SQS::Queue');
    for (const [id, queue] of Object.entries(retention)) {
      expect(queue.Properties.MessageRetentionPeriod, id).toBe(14 * 24 * 3600);
      built.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateAgeOfOldestMessage',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [id, 'QueueName'] } }],
        Statistic: 'Maximum',
        Threshold: 7 * 24 * 3600,
        ComparisonOperator: 'GreaterThanThreshold',
      });
    }
    // The worker's alert lines, at 80 % and at 100 % of a cap.
    for (const percent of [80, 100])
      built.template.hasResourceProperties('AWS::Logs::MetricFilter', {
        FilterPattern: `{ ($.message = "spending cap alert") && ($.percent = ${percent}) }`,
        MetricTransformations: [{ MetricName: `BudgetAlerts${percent}`, MetricValue: '1' }],
      });
  });

  it('sweeps every five minutes with a function that may only read the table, release claims and queue work', () => {
    const { template } = built;
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: [
        {
          IndexName: 'claimed-rows',
          KeySchema: [
            { AttributeName: 'batchId', KeyType: 'HASH' },
            { AttributeName: 'claimExpiresAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['row', 'document', 'claimToken'] },
        },
      ],
    });
    const sweeper = { 'Fn::GetAtt': [Match.stringLikeRegexp('^PipelineSweeper[0-9A-F]{8}$'), 'Arn'] };
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [Match.objectLike({ Arn: sweeper, RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
    const [policy] = Object.values(
      template.findResources('AWS::IAM::Policy', {
        Properties: { PolicyName: Match.stringLikeRegexp('^PipelineSweeperServiceRoleDefaultPolicy') },
      }),
    );
    const statements: { Action: string | string[]; Effect: string }[] =
      policy?.Properties.PolicyDocument.Statement ?? [];
    const actions = statements
      .filter((statement) => statement.Effect === 'Allow')
      .flatMap((statement) => statement.Action);
    // Like every function, it is denied changing the audit log's entries.
    expect(
      statements.filter((statement) => statement.Effect === 'Deny').flatMap((statement) => statement.Action),
    ).toEqual([
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:PartiQLUpdate',
      'dynamodb:PartiQLDelete',
    ]);
    expect(actions.filter((action) => action.startsWith('dynamodb:')).sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    expect(actions).not.toContain('s3:PutObject');
    expect(actions).not.toContain('secretsmanager:GetSecretValue');
    const logGroups = template.findResources('AWS::Logs::LogGroup');
    const sweeperLogs = Object.entries(logGroups).find(([id]) => id.startsWith('PipelineSweeperLogs'))?.[1];
    expect(sweeperLogs?.Properties.KmsKeyId['Fn::GetAtt'][0]).toMatch(/^PipelineKey/);
    template.hasResourceProperties('AWS::Lambda::Function', {
      LoggingConfig: { LogGroup: { Ref: Match.stringLikeRegexp('^PipelineSweeperLogs') } },
    });
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      LogGroupName: { Ref: Match.stringLikeRegexp('^PipelineSweeperLogs') },
      MetricTransformations: [
        Match.objectLike({ MetricName: 'StuckRowsRequeued', MetricValue: '$.requeued' }),
      ],
    });
  });

  it("schedules each declared portfolio in the pipeline's group, invoking ingest with its settings", () => {
    const { template } = built;
    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    const schedules = Object.values(template.findResources('AWS::Scheduler::Schedule'));
    expect(schedules).toHaveLength(1);
    const properties = schedules[0]?.Properties;
    expect(properties).toMatchObject({
      Name: 'declared-carteira-pj',
      GroupName: { Ref: expect.stringMatching(/^PipelinePortfolioScheduleGroup/) },
      ScheduleExpression: 'cron(0 6 ? * MON *)',
      ScheduleExpressionTimezone: 'America/Sao_Paulo',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: { 'Fn::GetAtt': [expect.stringMatching(/^PipelineIngest/), 'Arn'] },
        RoleArn: { 'Fn::GetAtt': [expect.stringMatching(/^PipelineSchedulerRole/), 'Arn'] },
      },
    });
    expect(JSON.parse(properties.Target.Input)).toEqual({
      portfolio: 'carteira-pj',
      runId: '<aws.scheduler.scheduled-time>',
      settings: { bureau: 'a', maxAgeHours: 12 },
    });
  });

  it('lets Scheduler only invoke ingest, and the schedules function only manage portfolio-* schedules', () => {
    const { template } = built;
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          Match.objectLike({
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          }),
        ],
      },
    });
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const statementsOf = (rolePrefix: string) =>
      policies
        .filter((policy) =>
          (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref.startsWith(rolePrefix)),
        )
        .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Record<string, unknown>[]);
    expect(statementsOf('PipelineSchedulerRole').map((statement) => statement.Action)).toEqual([
      'lambda:InvokeFunction',
    ]);
    const schedules = statementsOf('PipelinePortfolioSchedulesServiceRole');
    expect(schedules).toContainEqual(
      expect.objectContaining({
        Action: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
        Resource: {
          'Fn::Join': ['', expect.arrayContaining([expect.stringMatching(/:schedule\/$/), '/portfolio-*'])],
        },
      }),
    );
    expect(schedules).toContainEqual(
      expect.objectContaining({
        Action: 'iam:PassRole',
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^PipelineSchedulerRole/), 'Arn'] },
      }),
    );
    const schedulesFunction = Object.values(
      template.findResources('AWS::Lambda::Function', { Properties: { Handler: 'index.handler' } }),
    ).find((fn) => fn.Properties.Environment.Variables.SCHEDULE_GROUP_NAME !== undefined);
    expect(schedulesFunction?.Properties.Environment.Variables.DECLARED_PORTFOLIOS).toBe('["carteira-pj"]');
  });

  it('exposes the stack outputs the CLI reads', () => {
    for (const output of [
      'BucketName',
      'TableName',
      'WorkQueueUrl',
      'FinaliseQueueUrl',
      'DispatchQueueUrl',
      'TokenSecretArn',
      'EventBusName',
    ])
      built.template.hasOutput(output, {});
  });

  it('passes the AWS Solutions checks (cdk-nag) with every acknowledgement explained', () => {
    const report = new AwsSolutionsChecks(built.app).validateScope(built.stack);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
    const acknowledgements = built.stack.node
      .findAll()
      .flatMap((construct) =>
        construct.node.metadata.filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY),
      )
      .flatMap((entry) => Object.values(entry.data as Record<string, string>));
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const reason of acknowledgements) expect(reason.length).toBeGreaterThan(20);
  });

  it('refuses props that cannot work, before anything is deployed', () => {
    // Refusals need no bundles: an empty bundling-stacks list skips esbuild (the bundled SDK takes seconds each).
    const unbundledApp = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(unbundledApp(), 'Bad');
    expect(() => new CreditScreenPipeline(stack, 'A', { bureauBaseUrl: 'http://gateway' })).toThrow(
      'must be https',
    );
    expect(
      () => new CreditScreenPipeline(stack, 'B', { bureauBaseUrl: 'https://gateway', workerConcurrency: 1 }),
    ).toThrow('workerConcurrency must be a whole number ≥ 2');
    expect(() => new CreditScreenPipeline(stack, 'C', { bureauBaseUrl: 'not a url' })).toThrow(
      'bureauBaseUrl is not a URL',
    );
    // Five years and a day: negative information may not be kept that long.
    expect(
      () => new CreditScreenPipeline(stack, 'R', { bureauBaseUrl: 'https://gateway', retentionDays: 1826 }),
    ).toThrow('retentionDays must be a whole number from 1 to 1825');
    expect(
      () =>
        new CreditScreenPipeline(new Stack(unbundledApp(), 'Ok'), 'R', {
          bureauBaseUrl: 'https://gateway',
          retentionDays: 1825,
        }),
    ).not.toThrow();
    const portfolio = (declaration: object) => () =>
      new CreditScreenPipeline(new Stack(unbundledApp(), 'P'), 'D', {
        bureauBaseUrl: 'https://gateway',
        portfolios: [{ name: 'ok', schedule: 'rate(1 day)', ...declaration }],
      });
    expect(portfolio({ name: '../x' })).toThrow('portfolio name "../x" is not allowed');
    expect(portfolio({ schedule: 'every monday' })).toThrow('portfolio ok: schedule: must be cron');
  });
});
