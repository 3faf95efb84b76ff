import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { S3Event } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPortfolioSchedulesHandler } from '../../../lambdas/portfolio-schedules/portfolio-schedules-handler.ts';
import { EventBridgePortfolioScheduler } from '../../../src/adapters/aws/eventbridge-portfolio-scheduler.ts';
import { MemoryLogger } from '../../../src/adapters/memory/memory-logger.ts';
import { FakeScheduler } from '../../factories/fake-scheduler.ts';
import { startTestPipeline, type TestPipeline } from '../../factories/pipeline.ts';

const GROUP = 'credit-screen-portfolios';
const TARGET = 'arn:aws:lambda:us-east-1:000000000000:function:ingest';
const ROLE = 'arn:aws:iam::000000000000:role/scheduler';

let test: TestPipeline;
let scheduler: FakeScheduler;
let handler: ReturnType<typeof createPortfolioSchedulesHandler>;

/** The handler on the real S3 of the local services and the real SDK client, talking to the fake Scheduler. */
function handlerWith(
  defaults: { schedule: string | null; bureau: 'a' | 'b' },
  declaredPortfolios?: ReadonlySet<string>,
) {
  return createPortfolioSchedulesHandler({
    objects: test.pipeline.adapters.objects,
    logger: new MemoryLogger(),
    scheduler: new EventBridgePortfolioScheduler({
      client: scheduler.client(),
      groupName: GROUP,
      targetArn: TARGET,
      roleArn: ROLE,
    }),
    defaults,
    declaredPortfolios,
  });
}

beforeAll(async () => {
  [test, scheduler] = await Promise.all([startTestPipeline({ eventSources: false }), FakeScheduler.start()]);
  handler = handlerWith({ schedule: 'rate(7 days)', bureau: 'a' }, new Set(['declarada']));
}, 60_000);
afterAll(async () => {
  await Promise.all([test?.stop(), scheduler?.close()]);
});
beforeEach(() => {
  scheduler.calls.length = 0;
});

const bucket = () => test.pipeline.stack.resources.bucketName;

async function put(key: string, body: string): Promise<void> {
  await test.pipeline.stack.clients.s3.send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: body }));
}

async function remove(key: string): Promise<void> {
  await test.pipeline.stack.clients.s3.send(new DeleteObjectCommand({ Bucket: bucket(), Key: key }));
}

/** The S3 notification of these keys, as S3 sends it (keys URL-encoded). */
function s3Event(eventName: string, ...keys: string[]): S3Event {
  return {
    Records: keys.map((key) => ({
      eventName,
      s3: { bucket: { name: bucket() }, object: { key: encodeURIComponent(key).replace(/%2F/g, '/') } },
    })),
  } as unknown as S3Event;
}

const schedule = (portfolio: string) => scheduler.schedules.get(`${GROUP}/portfolio-${portfolio}`);

describe('the portfolio-schedules handler', () => {
  it('creates a schedule with the default when a list arrives without settings, invoking ingest with a run id', async () => {
    await put('portfolios/varejo.csv', 'documento\n51954022212\n');

    const outcomes = await handler(s3Event('ObjectCreated:Put', 'portfolios/varejo.csv'));

    expect(outcomes).toEqual([{ portfolio: 'varejo', action: 'scheduled', expression: 'rate(7 days)' }]);
    expect(scheduler.calls).toEqual(['PUT portfolio-varejo', 'POST portfolio-varejo']);
    expect(schedule('varejo')).toMatchObject({
      ScheduleExpression: 'rate(7 days)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: { Arn: TARGET, RoleArn: ROLE },
    });
    const target = schedule('varejo')?.Target as { Input: string };
    expect(JSON.parse(target.Input)).toEqual({
      portfolio: 'varejo',
      runId: '<aws.scheduler.scheduled-time>',
    });
  });

  it('updates the schedule when the settings file changes it', async () => {
    await put(
      'portfolios/varejo.json',
      JSON.stringify({ schedule: 'cron(0 6 ? * MON *)', timezone: 'America/Sao_Paulo' }),
    );

    await handler(s3Event('ObjectCreated:Put', 'portfolios/varejo.json'));

    expect(scheduler.calls).toEqual(['PUT portfolio-varejo']);
    expect(schedule('varejo')).toMatchObject({
      ScheduleExpression: 'cron(0 6 ? * MON *)',
      ScheduleExpressionTimezone: 'America/Sao_Paulo',
    });
  });

  it('keeps the schedule when the settings cannot be read', async () => {
    await put('portfolios/varejo.json', '{"schedule": "every monday"}');

    const [outcome] = await handler(s3Event('ObjectCreated:Put', 'portfolios/varejo.json'));

    expect(outcome).toMatchObject({ action: 'kept', reason: expect.stringContaining('schedule') });
    expect(scheduler.calls).toEqual([]);
    expect(schedule('varejo')?.ScheduleExpression).toBe('cron(0 6 ? * MON *)');
  });

  it('deletes the schedule when the list is deleted, and handles one event for both files once', async () => {
    await remove('portfolios/varejo.csv');
    await remove('portfolios/varejo.json');

    const outcomes = await handler(
      s3Event('ObjectRemoved:Delete', 'portfolios/varejo.csv', 'portfolios/varejo.json'),
    );

    expect(outcomes).toEqual([{ portfolio: 'varejo', action: 'unscheduled', existed: true }]);
    expect(schedule('varejo')).toBeUndefined();
  });

  it('removes the schedule when a portfolio has no schedule at all, and ignores other keys', async () => {
    await put('portfolios/sob-demanda.csv', 'documento\n51954022212\n');
    const onDemand = handlerWith({ schedule: null, bureau: 'a' });

    const outcomes = await onDemand(
      s3Event('ObjectCreated:Put', 'portfolios/sob-demanda.csv', 'portfolios/notes.txt'),
    );

    expect(outcomes).toEqual([{ portfolio: 'sob-demanda', action: 'unscheduled', existed: false }]);
  });

  it("leaves the stack's declared portfolios alone", async () => {
    await put('portfolios/declarada.csv', 'documento\n51954022212\n');

    const outcomes = await handler(s3Event('ObjectCreated:Put', 'portfolios/declarada.csv'));

    expect(outcomes).toEqual([
      { portfolio: 'declarada', action: 'kept', reason: 'declared in the deployment' },
    ]);
    expect(scheduler.calls).toEqual([]);
  });
});
