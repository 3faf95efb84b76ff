import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { BatchRecord } from '../../domain/batch/index.ts';
import { BATCH_LISTING, batchKey, listingKey, type PipelineTable } from './dynamodb-pipeline-table.ts';

/**
 * The ids of the newest batches, newest first, from the listing (one small item per batch). With `unfinishedOnly`,
 * the newest `limit` of those whose listing item is not marked finished: DynamoDB applies `Limit` before the
 * filter, so the listing is read page by page until that many are found, however many finished batches are newer.
 */
export async function listedBatchIds(
  db: PipelineTable,
  limit: number,
  unfinishedOnly: boolean,
): Promise<string[]> {
  const ids: string[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.client.send(
      new QueryCommand({
        TableName: db.tableName,
        KeyConditionExpression: 'pk = :listing',
        ExpressionAttributeValues: { ':listing': BATCH_LISTING },
        ...(unfinishedOnly ? { FilterExpression: 'attribute_not_exists(finished)' } : { Limit: limit }),
        ScanIndexForward: false,
        ExclusiveStartKey: startKey,
      }),
    );
    ids.push(...(page.Items ?? []).map((item) => item.batchId as string));
    startKey = page.LastEvaluatedKey;
  } while (unfinishedOnly && startKey !== undefined && ids.length < limit);
  return ids.slice(0, limit);
}

/**
 * Marks a batch's listing item finished, in one transaction with a check that the batch is still completed or
 * failed: a redrive that reopened it meanwhile (and unmarked it first) is never hidden from the sweeps by a late
 * mark. Nothing when the check or the listing item (expired) is missing.
 */
export async function markFinished(db: PipelineTable, batch: BatchRecord): Promise<void> {
  try {
    await db.transactIfClaimed([
      {
        ConditionCheck: {
          TableName: db.tableName,
          Key: batchKey(batch.batchId),
          ConditionExpression: '#status IN (:completed, :failed)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':completed': 'completed', ':failed': 'failed' },
        },
      },
      {
        Update: {
          TableName: db.tableName,
          Key: listingKey(batch.batchId, batch.createdAt),
          UpdateExpression: 'SET finished = :true',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':true': true },
        },
      },
    ]);
  } catch (error) {
    const refused =
      error instanceof TransactionCanceledException &&
      (error.CancellationReasons ?? []).some((reason) => reason.Code === 'ConditionalCheckFailed');
    if (!refused) throw error;
  }
}

/** Lists a batch as unfinished again (before a redrive reopens it). Never creates a listing item. */
export async function markUnfinished(db: PipelineTable, batch: BatchRecord): Promise<void> {
  await db.conditionally(() =>
    db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: listingKey(batch.batchId, batch.createdAt),
        UpdateExpression: 'REMOVE finished',
        ConditionExpression: 'attribute_exists(pk)',
      }),
    ),
  );
}
