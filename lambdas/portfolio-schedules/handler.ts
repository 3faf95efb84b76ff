import { S3Client } from '@aws-sdk/client-s3';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { EventBridgePortfolioScheduler } from '../../src/adapters/aws/eventbridge-portfolio-scheduler.ts';
import { createLambdaLogger } from '../../src/adapters/aws/powertools-logger.ts';
import { S3ObjectStore } from '../../src/adapters/aws/s3-object-store.ts';
import { readPipelineEnvironment, readScheduleEnvironment } from '../shared/environment.ts';
import { createPortfolioSchedulesHandler } from './portfolio-schedules-handler.ts';

// This function reads portfolio files and writes schedules, nothing else: only those two clients are built.
const { bucketName, settings } = readPipelineEnvironment();
const schedules = readScheduleEnvironment();

export const handler = createPortfolioSchedulesHandler({
  objects: new S3ObjectStore({ client: new S3Client({}), bucket: bucketName }),
  logger: createLambdaLogger(),
  scheduler: new EventBridgePortfolioScheduler({ client: new SchedulerClient({}), ...schedules }),
  defaults: { schedule: settings.portfolioSchedule, bureau: settings.defaultBureau },
  declaredPortfolios: schedules.declaredPortfolios,
});
