import { createLambdaLogger } from '../../src/adapters/aws/powertools-logger.ts';
import { readPipelineEnvironment } from '../shared/environment.ts';
import { batchStoresAndQueues } from '../shared/table-and-queues.ts';
import { createDispatchHandler } from './dispatch-handler.ts';

const environment = readPipelineEnvironment();

export const handler = createDispatchHandler({
  ...batchStoresAndQueues(environment),
  logger: createLambdaLogger(),
});
