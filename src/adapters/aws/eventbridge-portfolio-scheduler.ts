import {
  ConflictException,
  CreateScheduleCommand,
  type CreateScheduleCommandInput,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  type SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { PORTFOLIO_RUN_SCHEDULE, portfolioRunInput, portfolioScheduleName } from '../../contract/index.ts';
import type { PortfolioSchedule, PortfolioScheduler } from '../../domain/ports/index.ts';

export interface EventBridgePortfolioSchedulerConfig {
  readonly client: SchedulerClient;
  /** The schedule group holding the pipeline's portfolio schedules. */
  readonly groupName: string;
  /** What each schedule invokes: the ingest function. */
  readonly targetArn: string;
  /** The role EventBridge Scheduler assumes to invoke it. */
  readonly roleArn: string;
}

/**
 * Portfolio schedules in EventBridge Scheduler. Each invokes the ingest function with `{ portfolio, runId }`, where
 * `runId` is the run's scheduled time (a context attribute Scheduler fills in, see PORTFOLIO_RUN_SCHEDULE), so a retried
 * invocation of one run is recognised by ingest and does not start a second batch.
 */
export class EventBridgePortfolioScheduler implements PortfolioScheduler {
  readonly #config: EventBridgePortfolioSchedulerConfig;

  constructor(config: EventBridgePortfolioSchedulerConfig) {
    for (const [name, value] of Object.entries({
      groupName: config.groupName,
      targetArn: config.targetArn,
      roleArn: config.roleArn,
    })) {
      if (value === '') throw new Error(`EventBridgePortfolioScheduler needs ${name}`);
    }
    this.#config = config;
  }

  #input(schedule: PortfolioSchedule): CreateScheduleCommandInput {
    const { groupName, targetArn, roleArn } = this.#config;
    return {
      Name: portfolioScheduleName(schedule.portfolio),
      GroupName: groupName,
      ScheduleExpression: schedule.expression,
      ScheduleExpressionTimezone: schedule.timezone ?? undefined,
      FlexibleTimeWindow: { Mode: 'OFF' },
      Description: `credit-screen: re-screen portfolio ${schedule.portfolio}`,
      Target: {
        Arn: targetArn,
        RoleArn: roleArn,
        Input: portfolioRunInput(schedule.portfolio),
        // The same retry policy as the stack's declared schedules.
        RetryPolicy: {
          MaximumRetryAttempts: PORTFOLIO_RUN_SCHEDULE.retryPolicy.maximumRetryAttempts,
          MaximumEventAgeInSeconds: PORTFOLIO_RUN_SCHEDULE.retryPolicy.maximumEventAgeInSeconds,
        },
      },
    };
  }

  async put(schedule: PortfolioSchedule): Promise<void> {
    const input = this.#input(schedule);
    try {
      await this.#config.client.send(new UpdateScheduleCommand(input));
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
      try {
        await this.#config.client.send(new CreateScheduleCommand(input));
      } catch (createError) {
        // Created meanwhile by a concurrent event for the same portfolio: make it this one.
        if (!(createError instanceof ConflictException)) throw createError;
        await this.#config.client.send(new UpdateScheduleCommand(input));
      }
    }
  }

  async remove(portfolio: string): Promise<boolean> {
    try {
      await this.#config.client.send(
        new DeleteScheduleCommand({
          Name: portfolioScheduleName(portfolio),
          GroupName: this.#config.groupName,
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return false;
      throw error;
    }
  }
}
