import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { readScheduleEnvironment } from '../adapters/aws/environment.ts';
import { EventBridgePortfolioScheduler } from '../adapters/aws/eventbridge-portfolio-scheduler.ts';
import { lambdaRuntime } from '../adapters/aws/lambda-runtime.ts';
import { createPortfolioSchedulesHandler } from './portfolio-schedules-handler.ts';

const runtime = lambdaRuntime();
const schedules = readScheduleEnvironment();

export const handler = createPortfolioSchedulesHandler({
  objects: runtime.objects,
  logger: runtime.logger,
  scheduler: new EventBridgePortfolioScheduler({ client: new SchedulerClient({}), ...schedules }),
  defaults: {
    schedule: runtime.environment.settings.portfolioSchedule,
    bureau: runtime.environment.settings.defaultBureau,
  },
  declaredPortfolios: schedules.declaredPortfolios,
});
