import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type { Construct } from 'constructs';
import {
  type Bureau,
  type PipelineSettings,
  PORTFOLIO_RUN_SCHEDULE,
  portfolioRunInput,
  portfolioScheduleName,
  S3_LAYOUT,
  scheduleEnvironmentVariables,
} from '../../src/contract/index.ts';
import type { FunctionFactory } from './functions.ts';

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
  readonly bureau?: Bureau;
  /**
   * Reports younger than this many hours are reused instead of bought again.
   * @default every document is asked again on every run
   */
  readonly maxAgeHours?: number;
}

/** Portfolio monitoring as deployed: the schedule group, the role Scheduler assumes, the schedules, their keeper. */
export interface PortfolioSchedules {
  readonly scheduleGroup: scheduler.CfnScheduleGroup;
  readonly schedulerRole: iam.Role;
  readonly declaredSchedules: ReadonlyMap<string, scheduler.CfnSchedule>;
  readonly portfolioSchedulesFunction: NodejsFunction;
}

/**
 * One schedule group holding every portfolio schedule; Scheduler may only invoke ingest, with a portfolio run. The
 * declared portfolios get their schedules here; the portfolio-schedules function keeps uploaded ones in line with
 * their files (it may change only schedules named `portfolio-*` in the group).
 */
export function createPortfolioSchedules(
  scope: Construct,
  options: {
    readonly declared: readonly PortfolioDeclaration[];
    readonly settings: PipelineSettings;
    readonly ingest: lambda.Function;
    readonly bucket: s3.Bucket;
    readonly fn: FunctionFactory;
  },
): PortfolioSchedules {
  const { declared, ingest, bucket } = options;
  const scheduleGroup = new scheduler.CfnScheduleGroup(scope, 'PortfolioScheduleGroup', {});
  const schedulerRole = new iam.Role(scope, 'SchedulerRole', {
    assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
    description: 'EventBridge Scheduler starts portfolio re-screens by invoking the ingest function',
  });
  ingest.grantInvoke(schedulerRole);
  const declaredSchedules = createDeclaredSchedules(scope, { ...options, scheduleGroup, schedulerRole });
  const portfolioSchedulesFunction = options.fn('PortfolioSchedules', 'portfolio-schedules/handler.ts', {
    spec: 'portfolioSchedules',
    environment: scheduleEnvironmentVariables({
      groupName: scheduleGroup.ref,
      targetArn: ingest.functionArn,
      roleArn: schedulerRole.roleArn,
      declaredPortfolios: declared.map((portfolio) => portfolio.name),
    }),
  });
  bucket.grantRead(portfolioSchedulesFunction, `${S3_LAYOUT.portfolios}*`);
  schedulerRole.grantPassRole(portfolioSchedulesFunction.grantPrincipal);
  portfolioSchedulesFunction.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
      resources: [
        Stack.of(scope).formatArn({
          service: 'scheduler',
          resource: 'schedule',
          resourceName: `${scheduleGroup.ref}/${portfolioScheduleName('*')}`,
        }),
      ],
    }),
  );
  for (const event of [s3.EventType.OBJECT_CREATED, s3.EventType.OBJECT_REMOVED]) {
    bucket.addEventNotification(event, new s3n.LambdaDestination(portfolioSchedulesFunction), {
      prefix: S3_LAYOUT.portfolios,
    });
  }
  return { scheduleGroup, schedulerRole, declaredSchedules, portfolioSchedulesFunction };
}

/** A schedule per declared portfolio, named `declared-<name>` so it never clashes with an uploaded one. */
function createDeclaredSchedules(
  scope: Construct,
  options: {
    readonly declared: readonly PortfolioDeclaration[];
    readonly settings: PipelineSettings;
    readonly ingest: lambda.Function;
    readonly scheduleGroup: scheduler.CfnScheduleGroup;
    readonly schedulerRole: iam.Role;
  },
): ReadonlyMap<string, scheduler.CfnSchedule> {
  const { ingest, scheduleGroup, schedulerRole, settings } = options;
  const scheduleTarget = (portfolio: string, runSettings?: object): scheduler.CfnSchedule.TargetProperty => ({
    arn: ingest.functionArn,
    roleArn: schedulerRole.roleArn,
    input: portfolioRunInput(portfolio, { settings: runSettings }),
    retryPolicy: { ...PORTFOLIO_RUN_SCHEDULE.retryPolicy },
  });
  return new Map(
    options.declared.map(({ name, schedule, timezone, bureau, maxAgeHours }) => [
      name,
      new scheduler.CfnSchedule(scope, `Portfolio${name}`, {
        name: `declared-${name}`,
        groupName: scheduleGroup.ref,
        description: `credit-screen: re-screen declared portfolio ${name}`,
        scheduleExpression: schedule,
        scheduleExpressionTimezone: timezone,
        flexibleTimeWindow: { mode: 'OFF' },
        target: scheduleTarget(name, { bureau: bureau ?? settings.defaultBureau, maxAgeHours }),
      }),
    ]),
  );
}
