import { createLambdaLogger } from '../../src/adapters/aws/powertools-logger.ts';
import { stuckClaimSeconds } from '../../src/contract/index.ts';
import { readPipelineEnvironment } from '../shared/environment.ts';
import { batchStoresAndQueues } from '../shared/table-and-queues.ts';
import { createSweeperHandler } from './sweeper-handler.ts';

const environment = readPipelineEnvironment();

export const handler = createSweeperHandler({
  ...batchStoresAndQueues(environment),
  logger: createLambdaLogger(),
  settings: { stuckClaimSeconds: stuckClaimSeconds(environment.settings) },
});
