/** Creates the local services' table, bucket and queues as described, and sweeps a kept table of expired items. */

import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { PipelineClients } from '../../lambdas/shared/pipeline-adapters.ts';
import { type PipelineQueue, TABLE } from '../../src/contract/index.ts';
import {
  LOCAL_NAMES,
  type LocalPipelineDescription,
  type LocalResources,
} from './local-pipeline-description.ts';

/**
 * DynamoDB Local keeps items past their TTL, so a kept database is swept here: what AWS would have deleted by now
 * (LGPD retention) is deleted before the run starts.
 */
export async function deleteExpiredItems(
  dynamo: PipelineClients['dynamo'],
  tableName: string,
): Promise<number> {
  let deleted = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#expires < :now',
        ExpressionAttributeNames: { '#expires': TABLE.timeToLiveAttribute },
        ExpressionAttributeValues: { ':now': Math.floor(Date.now() / 1000) },
        ProjectionExpression: 'pk, sk',
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      await dynamo.send(new DeleteCommand({ TableName: tableName, Key: { pk: item.pk, sk: item.sk } }));
      deleted++;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return deleted;
}

/** The table's indexes, whether they exist yet (a database kept from before an index was added lacks it). */
async function describeIndexes(dynamo: DynamoDBClient, tableName: string): Promise<string[] | null> {
  try {
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
    return (Table?.GlobalSecondaryIndexes ?? []).flatMap((index) => index.IndexName ?? []);
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return null;
    throw error;
  }
}

export async function createResources(
  clients: PipelineClients,
  dynamo: DynamoDBClient | null,
  description: LocalPipelineDescription,
  tableName: string,
): Promise<LocalResources> {
  // A kept database already has the table (and its TTL setting) from an earlier run; one kept from before the
  // claimed-rows index existed gets it added. The memory engine has no table here.
  const indexes = dynamo === null ? [] : await describeIndexes(dynamo, tableName);
  if (dynamo !== null && indexes === null) await createTable(dynamo, description.table, tableName);
  else if (dynamo !== null && indexes !== null && !indexes.includes(description.table.claimedRowsIndex.name))
    await addClaimedRowsIndex(dynamo, description.table, tableName);
  await clients.s3.send(new CreateBucketCommand({ Bucket: LOCAL_NAMES.bucket }));
  const urls = await createQueues(clients.sqs, description.queues);
  return {
    tableName,
    bucketName: LOCAL_NAMES.bucket,
    workQueueUrl: urls.work,
    workDeadLetterQueueUrl: urls.workDeadLetter,
    finaliseQueueUrl: urls.finalise,
    finaliseDeadLetterQueueUrl: urls.finaliseDeadLetter,
    dispatchQueueUrl: urls.dispatch,
    dispatchDeadLetterQueueUrl: urls.dispatchDeadLetter,
  };
}

/** The claimed-rows index as `src/contract/table-keys.ts` defines it (the construct builds the same). */
function claimedRowsIndex(table: LocalPipelineDescription['table']) {
  const index = table.claimedRowsIndex;
  return {
    attributes: [
      { AttributeName: index.partitionKey, AttributeType: 'S' },
      { AttributeName: index.sortKey, AttributeType: 'N' },
    ] as const,
    index: {
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projected] },
    } satisfies GlobalSecondaryIndex,
  };
}

async function createTable(
  dynamo: DynamoDBClient,
  table: LocalPipelineDescription['table'],
  tableName: string,
): Promise<void> {
  const claimedRows = claimedRowsIndex(table);
  await dynamo.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: table.partitionKey, AttributeType: 'S' },
        { AttributeName: table.sortKey, AttributeType: 'S' },
        ...claimedRows.attributes,
      ],
      KeySchema: [
        { AttributeName: table.partitionKey, KeyType: 'HASH' },
        { AttributeName: table.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [claimedRows.index],
    }),
  );
  await dynamo.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: table.timeToLiveAttribute, Enabled: true },
    }),
  );
}

async function addClaimedRowsIndex(
  dynamo: DynamoDBClient,
  table: LocalPipelineDescription['table'],
  tableName: string,
): Promise<void> {
  const claimedRows = claimedRowsIndex(table);
  await dynamo.send(
    new UpdateTableCommand({
      TableName: tableName,
      AttributeDefinitions: [...claimedRows.attributes],
      GlobalSecondaryIndexUpdates: [{ Create: claimedRows.index }],
    }),
  );
}

/** Creates the queues, dead-letter queues first so each redrive policy can name its target's ARN. */
async function createQueues(
  sqs: SQSClient,
  queues: LocalPipelineDescription['queues'],
): Promise<Record<PipelineQueue, string>> {
  const urls = {} as Record<PipelineQueue, string>;
  const arns = {} as Record<PipelineQueue, string>;
  const ordered = (Object.keys(queues) as PipelineQueue[]).sort(
    (a, b) => Number(queues[a].deadLetter !== undefined) - Number(queues[b].deadLetter !== undefined),
  );
  for (const queue of ordered) {
    const { name, visibilityTimeoutSeconds, retentionSeconds, deadLetter } = queues[queue];
    const created = await sqs.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: {
          VisibilityTimeout: String(visibilityTimeoutSeconds),
          MessageRetentionPeriod: String(retentionSeconds),
          ...(deadLetter
            ? {
                RedrivePolicy: JSON.stringify({
                  deadLetterTargetArn: arns[deadLetter.queue],
                  maxReceiveCount: deadLetter.maxReceiveCount,
                }),
              }
            : {}),
        },
      }),
    );
    const url = created.QueueUrl as string;
    const attributes = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
    );
    urls[queue] = url;
    arns[queue] = attributes.Attributes?.QueueArn as string;
  }
  return urls;
}
