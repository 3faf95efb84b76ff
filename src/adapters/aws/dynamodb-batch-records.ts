import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApprovalDecision, BatchLayout, BatchRecord, FileFailure } from '../../domain/batch/index.ts';
import type { BatchRecords, IngestQuote, IngestTotals, NewBatch } from '../../domain/ports/index.ts';
import { listedBatchIds, markFinished, markUnfinished } from './dynamodb-batch-listing.ts';
import { toBatch } from './dynamodb-items.ts';
import {
  batchKey,
  batchStatusIn,
  COUNTER_PREFIX,
  GET_BATCH,
  type Item,
  listingKey,
  META,
  type PipelineTable,
  shardKeys,
  withShardCounts,
} from './dynamodb-pipeline-table.ts';

/**
 * Batch records on the pipeline table: the `META` item of each batch, its listing entry, and its counts summed from
 * its counter shards. Every change of status is conditional on `BATCH_TRANSITIONS`.
 */
export class DynamoDbBatchRecords implements BatchRecords {
  readonly #db: PipelineTable;

  constructor(table: PipelineTable) {
    this.#db = table;
  }

  async createBatch(batch: NewBatch): Promise<boolean> {
    const createdAt = new Date(this.#db.now()).toISOString();
    const expiresAt = this.#db.expiresAt();
    return this.#db.transactIfClaimed([
      {
        Put: {
          TableName: this.#db.tableName,
          Item: {
            ...batchKey(batch.batchId),
            ...batch,
            portfolio: batch.portfolio ?? null,
            maxCharges: batch.maxCharges ?? null,
            freshnessHours: batch.freshnessHours ?? 0,
            policy: batch.policy ?? null,
            bureauEndpoint: batch.bureauEndpoint ?? null,
            status: 'ingesting',
            createdAt,
            tokenState: 'unverified',
            settled: 0,
            screened: 0,
            cached: 0,
            failed: 0,
            cancelled: 0,
            notQueried: 0,
            revision: 1,
            ingestCheckpoint: 0,
            expiresAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: this.#db.tableName,
          Item: { ...listingKey(batch.batchId, createdAt), batchId: batch.batchId, expiresAt },
        },
      },
    ]);
  }

  async listBatches(
    limit: number,
    options: { readonly unfinishedOnly?: boolean } = {},
  ): Promise<BatchRecord[]> {
    return this.#batchesWithCounts(await listedBatchIds(this.#db, limit, options.unfinishedOnly ?? false));
  }

  async decideApproval(
    batchId: string,
    decision: ApprovalDecision,
    by: string | null = null,
  ): Promise<boolean> {
    return this.#db.conditionally(() =>
      this.#db.client.send(
        new UpdateCommand({
          TableName: this.#db.tableName,
          Key: batchKey(batchId),
          UpdateExpression:
            'SET #status = :running, approval = :decision, approvalBy = :by, messagesSentAt = :now',
          ConditionExpression: batchStatusIn('decideApproval').condition,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':running': 'running',
            ':decision': decision,
            ':by': by,
            ':now': new Date(this.#db.now()).toISOString(),
            ...batchStatusIn('decideApproval').values,
          },
        }),
      ),
    );
  }

  async markCancelRequested(batchId: string): Promise<void> {
    await this.#setOnBatch(batchId, { cancelRequested: true });
  }

  async reopenForRedrive(batchId: string): Promise<boolean> {
    const batch = await this.getBatch(batchId);
    // Unmarked first: a crash before the batch reopens leaves a finished batch listed as unfinished (read, harmless),
    // never a running one listed as finished (never swept).
    if (batch !== null) await markUnfinished(this.#db, batch);
    return this.#db.conditionally(() =>
      this.#db.client.send(
        new UpdateCommand({
          TableName: this.#db.tableName,
          Key: batchKey(batchId),
          // A refused token may have been fixed since: the next call probes it again before the fleet goes.
          UpdateExpression:
            'SET #status = :running, tokenState = :unverified, requeuing = :true, revision = if_not_exists(revision, :one) + :one, messagesSentAt = :now REMOVE completedAt',
          ConditionExpression: batchStatusIn('reopenForRedrive').condition,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':running': 'running',
            ...batchStatusIn('reopenForRedrive').values,
            ':unverified': 'unverified',
            ':true': true,
            ':one': 1,
            ':now': new Date(this.#db.now()).toISOString(),
          },
        }),
      ),
    );
  }

  async renewMessages(batchId: string, previous: string | null): Promise<boolean> {
    return this.#db.conditionally(() =>
      this.#db.client.send(
        new UpdateCommand({
          TableName: this.#db.tableName,
          Key: batchKey(batchId),
          UpdateExpression: 'SET messagesSentAt = :now',
          ConditionExpression: `#status = :running AND ${previous === null ? 'attribute_not_exists(messagesSentAt)' : 'messagesSentAt = :previous'}`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':running': 'running',
            ':now': new Date(this.#db.now()).toISOString(),
            ...(previous === null ? {} : { ':previous': previous }),
          },
        }),
      ),
    );
  }

  async finishRequeue(batchId: string): Promise<void> {
    await this.#setOnBatch(batchId, { requeuing: false });
  }

  async getBatch(batchId: string): Promise<BatchRecord | null> {
    const [batch] = await this.#batchesWithCounts([batchId]);
    return batch ?? null;
  }

  /** Batch records with their shards' counts, in the order asked; missing batches are left out. */
  async #batchesWithCounts(batchIds: readonly string[]): Promise<BatchRecord[]> {
    const keys = batchIds.flatMap((batchId) => [batchKey(batchId), ...shardKeys(batchId)]);
    const items: Item[] = [];
    for (let start = 0; start < keys.length; start += GET_BATCH)
      items.push(...(await this.#db.batchGet(keys.slice(start, start + GET_BATCH))));
    const byBatch = new Map<string, Item[]>();
    for (const item of items)
      byBatch.set(item.pk as string, [...(byBatch.get(item.pk as string) ?? []), item]);
    return batchIds.flatMap((batchId) => {
      const found = byBatch.get(batchKey(batchId).pk) ?? [];
      const meta = found.find((item) => item.sk === META);
      if (meta === undefined) return [];
      const shards = found.filter((item) => String(item.sk).startsWith(COUNTER_PREFIX));
      return [withShardCounts(toBatch(meta), shards)];
    });
  }

  /** Sets fields of the batch record (no condition: only ingest writes these, one invocation at a time). */
  async #setOnBatch(batchId: string, fields: Record<string, unknown>): Promise<void> {
    const names = Object.keys(fields);
    await this.#db.client.send(
      new UpdateCommand({
        TableName: this.#db.tableName,
        Key: batchKey(batchId),
        UpdateExpression: `SET ${names.map((_, index) => `#f${index} = :f${index}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(names.map((name, index) => [`#f${index}`, name])),
        ExpressionAttributeValues: Object.fromEntries(
          names.map((name, index) => [`:f${index}`, fields[name]]),
        ),
      }),
    );
  }

  async recordSourceCheck(batchId: string, sha256: string, layout: BatchLayout | null): Promise<void> {
    await this.#setOnBatch(batchId, { sourceSha256: sha256, layout });
  }

  async failFile(batchId: string, failure: FileFailure): Promise<void> {
    await this.#db.client.send(
      new UpdateCommand({
        TableName: this.#db.tableName,
        Key: batchKey(batchId),
        UpdateExpression: 'SET #status = :finalising, failure = :failure, toScreen = :zero',
        ConditionExpression: batchStatusIn('failFile').condition,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':finalising': 'finalising',
          ...batchStatusIn('failFile').values,
          ':failure': failure,
          ':zero': 0,
        },
      }),
    );
  }

  async saveIngestCheckpoint(batchId: string, row: number, cachedSoFar: number): Promise<void> {
    await this.#setOnBatch(batchId, { ingestCheckpoint: row, ingestCached: cachedSoFar });
  }

  async finishIngest(batchId: string, totals: IngestTotals, quoted?: IngestQuote): Promise<void> {
    // Rows settled as cached at ingest are counted on the batch item: one write, by the one ingest.
    await this.#db.client.send(
      new UpdateCommand({
        TableName: this.#db.tableName,
        Key: batchKey(batchId),
        UpdateExpression:
          'SET #status = :next, quote = :quote, #rows = :rows, invalid = :invalid, duplicates = :duplicates, toScreen = :toScreen, ingestCheckpoint = :rows, ingestCached = :cached ADD settled :cached, cached :cached',
        ConditionExpression: batchStatusIn('finishIngest').condition,
        ExpressionAttributeNames: { '#status': 'status', '#rows': 'rows' },
        ExpressionAttributeValues: {
          ':next': quoted?.awaitingApproval ? 'awaiting_approval' : 'running',
          ':quote': quoted?.quote ?? null,
          ...batchStatusIn('finishIngest').values,
          ':rows': totals.rows,
          ':invalid': totals.invalid,
          ':duplicates': totals.duplicates,
          ':toScreen': totals.toScreen,
          ':cached': totals.cached,
        },
      }),
    );
  }

  async claimFinalisation(batchId: string): Promise<boolean> {
    return this.#db.conditionally(() =>
      this.#db.client.send(
        new UpdateCommand({
          TableName: this.#db.tableName,
          Key: batchKey(batchId),
          UpdateExpression: 'SET #status = :finalising',
          // Not while a redrive requeues: its counts can still fall, so "every row settled" may be momentary.
          ConditionExpression: `${batchStatusIn('claimFinalisation').condition} AND (attribute_not_exists(requeuing) OR requeuing = :false)`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':finalising': 'finalising',
            ':false': false,
            ...batchStatusIn('claimFinalisation').values,
          },
        }),
      ),
    );
  }

  async completeBatch(batchId: string, manifestKey: string): Promise<boolean> {
    const batch = await this.getBatch(batchId);
    // Completed by another run of the same finalisation (a repeated or concurrent delivery).
    const completed = await this.#db.conditionally(() =>
      this.#db.client.send(
        new UpdateCommand({
          TableName: this.#db.tableName,
          Key: batchKey(batchId),
          UpdateExpression: 'SET #status = :final, completedAt = :now, manifestKey = :manifest',
          ConditionExpression: batchStatusIn('complete').condition,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':final': batch?.failure ? 'failed' : 'completed',
            ':now': new Date(this.#db.now()).toISOString(),
            ':manifest': manifestKey,
            ...batchStatusIn('complete').values,
          },
        }),
      ),
    );
    // Marked after, even by a repeat that finds it completed: a crash in between leaves it listed as unfinished,
    // read (not swept) until a repeated finalisation marks it.
    if (batch !== null) await markFinished(this.#db, batch);
    return completed;
  }
}
