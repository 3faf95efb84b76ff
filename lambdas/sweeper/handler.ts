import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoDbBatchStores } from '../../src/adapters/aws/dynamodb-batch-store.ts';
import { createLambdaLogger } from '../../src/adapters/aws/powertools-logger.ts';
import { SqsWorkQueue } from '../../src/adapters/aws/sqs-work-queue.ts';
import { stuckClaimSeconds } from '../../src/contract/index.ts';
import { readPipelineEnvironment } from '../shared/environment.ts';
import { createSweeperHandler } from './sweeper-handler.ts';

// This function reads the table and sends messages, nothing else: only those two clients are built.
const environment = readPipelineEnvironment();

export const handler = createSweeperHandler({
  ...dynamoDbBatchStores({
    client: DynamoDBDocumentClient.from(new DynamoDBClient({}), {
      marshallOptions: { removeUndefinedValues: true },
    }),
    tableName: environment.tableName,
    retentionDays: environment.settings.retentionDays,
  }),
  queue: new SqsWorkQueue({
    client: new SQSClient({}),
    workQueueUrl: environment.workQueueUrl,
    finaliseQueueUrl: environment.finaliseQueueUrl,
    dispatchQueueUrl: environment.dispatchQueueUrl,
    fairQueues: environment.settings.fairQueues,
  }),
  logger: createLambdaLogger(),
  settings: { stuckClaimSeconds: stuckClaimSeconds(environment.settings) },
});
