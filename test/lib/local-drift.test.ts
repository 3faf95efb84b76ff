import { Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeLocalPipeline, type LocalPipelineDescription } from '../../cli/local/local-services.ts';
import { type CreditScreenPipeline, propsOfSettings } from '../../lib/credit-screen-pipeline.ts';
import { EventBridgePortfolioScheduler } from '../../src/adapters/aws/eventbridge-portfolio-scheduler.ts';
import {
  DEFAULT_SETTINGS,
  type PipelineFunction,
  type PipelineQueue,
  type PipelineSettings,
} from '../../src/contract/index.ts';
import { FakeScheduler } from '../factories/fake-scheduler.ts';
import { synthesizeStack } from '../factories/synthesized-stack.ts';

/**
 * The local runner mirrors what the construct deploys. Both read src/contract/ (the shared contract); this test fails when
 * either side stops doing so (a value written into the construct or into cli/local/ alone).
 */

/** Settings away from the defaults, so a side that ignores them (and uses a constant) differs. */
const SETTINGS: PipelineSettings = {
  ...DEFAULT_SETTINGS,
  workerConcurrency: 6,
  workerBatchSize: 8,
  workerBatchingWindowSeconds: 3,
  workerTimeoutSeconds: 50,
  maxReceiveCount: 7,
};

type Resource = { Type: string; Properties: Record<string, unknown> };

/** The template's side of the description: what `cdk deploy` would create, in the local description's terms. */
function describeTemplate(template: Template, pipeline: CreditScreenPipeline): LocalPipelineDescription {
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const logicalId = (construct: IConstruct) =>
    Stack.of(construct).getLogicalId(construct.node.defaultChild as never);
  const queueIds: Record<PipelineQueue, string> = {
    work: logicalId(pipeline.workQueue),
    workDeadLetter: logicalId(pipeline.workDeadLetterQueue),
    finalise: logicalId(pipeline.finaliseQueue),
    finaliseDeadLetter: logicalId(pipeline.finaliseDeadLetterQueue),
    dispatch: logicalId(pipeline.dispatchQueue),
    dispatchDeadLetter: logicalId(pipeline.dispatchDeadLetterQueue),
  };
  const functionIds: Record<PipelineFunction, string> = {
    ingest: logicalId(pipeline.ingestFunction),
    worker: logicalId(pipeline.workerFunction),
    finalise: logicalId(pipeline.finaliseFunction),
    deadLetter: logicalId(pipeline.deadLetterFunction),
    portfolioSchedules: logicalId(pipeline.portfolioSchedulesFunction),
    sweeper: logicalId(pipeline.sweeperFunction),
    policyCheck: logicalId(pipeline.policyCheckFunction),
    dispatch: logicalId(pipeline.dispatchFunction),
  };
  const byId = <T extends string>(ids: Record<T, string>, id: string): T => {
    const found = (Object.keys(ids) as T[]).find((name) => ids[name] === id);
    if (found === undefined) throw new Error(`no pipeline resource has the logical id ${id}`);
    return found;
  };
  const getAtt = (value: unknown) => (value as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];

  const table = Object.values(resources).find((resource) => resource.Type === 'AWS::DynamoDB::Table');
  if (table === undefined) throw new Error('the template has no table');
  const keys = table.Properties.KeySchema as { AttributeName: string; KeyType: string }[];
  const queues = Object.fromEntries(
    (Object.keys(queueIds) as PipelineQueue[]).map((queue) => {
      const properties = resources[queueIds[queue]]?.Properties ?? {};
      const redrive = properties.RedrivePolicy as
        | { deadLetterTargetArn: unknown; maxReceiveCount: number }
        | undefined;
      return [
        queue,
        {
          name: '(deployed)',
          visibilityTimeoutSeconds: properties.VisibilityTimeout,
          retentionSeconds: properties.MessageRetentionPeriod,
          ...(redrive
            ? {
                deadLetter: {
                  queue: byId(queueIds, getAtt(redrive.deadLetterTargetArn)),
                  maxReceiveCount: redrive.maxReceiveCount,
                },
              }
            : {}),
        },
      ];
    }),
  ) as LocalPipelineDescription['queues'];
  const functions = Object.fromEntries(
    (Object.keys(functionIds) as PipelineFunction[]).map((name) => {
      const properties = resources[functionIds[name]]?.Properties ?? {};
      return [name, { memoryMegabytes: properties.MemorySize, timeoutSeconds: properties.Timeout }];
    }),
  ) as LocalPipelineDescription['functions'];
  const eventSources = Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::Lambda::EventSourceMapping')
    .map(({ Properties: mapping }) => ({
      function: byId(functionIds, (mapping.FunctionName as { Ref: string }).Ref),
      queue: byId(queueIds, getAtt(mapping.EventSourceArn)),
      batchSize: mapping.BatchSize as number,
      batchingWindowSeconds: (mapping.MaximumBatchingWindowInSeconds as number | undefined) ?? 0,
      maxConcurrency: (mapping.ScalingConfig as { MaximumConcurrency: number }).MaximumConcurrency,
      reportBatchItemFailures: (mapping.FunctionResponseTypes as string[]).includes(
        'ReportBatchItemFailures',
      ) as true,
    }));
  return {
    table: {
      partitionKey: keys.find((key) => key.KeyType === 'HASH')?.AttributeName,
      sortKey: keys.find((key) => key.KeyType === 'RANGE')?.AttributeName,
      timeToLiveAttribute: (table.Properties.TimeToLiveSpecification as { AttributeName: string })
        .AttributeName,
      claimedRowsIndex: claimedRowsIndexOf(table),
    } as unknown as LocalPipelineDescription['table'],
    queues,
    functions,
    eventSources,
    fairQueues: fairQueuesOf(resources[functionIds.ingest]),
  };
}

/** Whether the ingest function (the sender of work messages) gives them fair-queue groups, from its settings. */
function fairQueuesOf(ingest: Resource | undefined): boolean {
  const environment = ingest?.Properties.Environment as { Variables: Record<string, string> } | undefined;
  const settings = environment?.Variables.PIPELINE_SETTINGS;
  if (settings === undefined) throw new Error('the ingest function has no PIPELINE_SETTINGS');
  return (JSON.parse(settings) as PipelineSettings).fairQueues;
}

/** The template's claimed-rows index, in the shared definition's terms (the only global secondary index). */
function claimedRowsIndexOf(table: Resource) {
  type Index = {
    IndexName: string;
    KeySchema: { AttributeName: string; KeyType: string }[];
    Projection: { NonKeyAttributes?: string[] };
  };
  const [index, ...others] = (table.Properties.GlobalSecondaryIndexes ?? []) as Index[];
  if (index === undefined || others.length > 0) throw new Error('the table should have exactly one index');
  return {
    name: index.IndexName,
    partitionKey: index.KeySchema.find((key) => key.KeyType === 'HASH')?.AttributeName,
    sortKey: index.KeySchema.find((key) => key.KeyType === 'RANGE')?.AttributeName,
    projected: index.Projection.NonKeyAttributes,
  };
}

/** The local description without what only exists locally (queue names: CloudFormation names them in AWS). */
function comparable(description: LocalPipelineDescription) {
  const byFunction = (a: { function: string }, b: { function: string }) =>
    a.function.localeCompare(b.function);
  return {
    ...description,
    queues: Object.fromEntries(
      Object.entries(description.queues).map(([queue, { name: _name, ...spec }]) => [queue, spec]),
    ),
    eventSources: [...description.eventSources].sort(byFunction),
  };
}

let built: ReturnType<typeof synthesizeStack>;
let scheduler: FakeScheduler;
beforeAll(async () => {
  built = synthesizeStack({
    ...propsOfSettings(SETTINGS),
    portfolios: [{ name: 'declared', schedule: 'rate(1 day)' }],
  });
  scheduler = await FakeScheduler.start();
}, 60_000);
afterAll(async () => {
  await scheduler.close();
});

describe('the local runner and the construct', () => {
  it('build the same table, queues, functions and event sources', () => {
    const deployed = describeTemplate(built.template, built.stack.pipeline);
    const local = describeLocalPipeline(SETTINGS);

    expect(comparable(local)).toEqual(comparable(deployed));
    // The settings really shaped both sides (not a coincidence of defaults).
    expect(local.queues.work.visibilityTimeoutSeconds).toBe(300);
    expect(local.eventSources.find((source) => source.function === 'worker')?.maxConcurrency).toBe(6);
  });

  it('agree on fair queues when they are turned off', () => {
    const off = { ...SETTINGS, fairQueues: false };
    const offStack = synthesizeStack(propsOfSettings(off));

    const deployed = describeTemplate(offStack.template, offStack.stack.pipeline);

    expect(deployed.fairQueues).toBe(false);
    expect(comparable(describeLocalPipeline(off))).toEqual(comparable(deployed));
  });

  it('let the schedules the function creates invoke ingest as the declared ones do, with the same retry policy', async () => {
    const adapter = new EventBridgePortfolioScheduler({
      client: scheduler.client(),
      groupName: 'group',
      targetArn: 'arn:aws:lambda:sa-east-1:123456789012:function:ingest',
      roleArn: 'arn:aws:iam::123456789012:role/scheduler',
    });
    await adapter.put({ portfolio: 'declared', expression: 'rate(1 day)', timezone: null });
    const created = scheduler.schedules.get('group/portfolio-declared') as {
      Target: { Input: string; RetryPolicy: unknown };
    };
    const [declared] = Object.values(built.template.findResources('AWS::Scheduler::Schedule'));
    const target = declared?.Properties.Target as {
      Input: string;
      RetryPolicy: { MaximumRetryAttempts: number; MaximumEventAgeInSeconds: number };
    };

    expect(created.Target.RetryPolicy).toEqual(target.RetryPolicy);
    const { settings: _declaredSettings, ...declaredInput } = JSON.parse(target.Input);
    expect(JSON.parse(created.Target.Input)).toEqual(declaredInput);
  });
});
