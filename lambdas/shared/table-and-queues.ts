import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoDbBatchStores } from '../../src/adapters/aws/dynamodb-batch-store.ts';
import { SqsWorkQueue } from '../../src/adapters/aws/sqs-work-queue.ts';
import type { PipelineEnvironment } from './environment.ts';

/**
 * The batch stores and the queues, for a function that reads and updates the table and sends messages, nothing
 * else (the sweeper, the dispatcher): only those two clients are built, once, at cold start.
 */
export function batchStoresAndQueues(environment: PipelineEnvironment) {
  return {
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
  };
}
