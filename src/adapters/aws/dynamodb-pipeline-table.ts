import { setTimeout as sleep } from 'node:timers/promises';
import { TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  BATCH_TRANSITIONS,
  type BatchRecord,
  type BatchTransition,
  type ReportKey,
  ROW_TRANSITIONS,
  type RowTransition,
} from '../../domain/batch/index.ts';
import type { Bureau } from '../../domain/report/index.ts';
import { isConditionFailure } from './dynamodb-conditions.ts';

/** The pipeline table a store works on, and how long its items live. */
export interface PipelineTableConfig {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Items expire (DynamoDB TTL) this many days after they are written. */
  readonly retentionDays: number;
  /** @default Date.now */
  readonly now?: () => number;
}

export type Item = Record<string, unknown>;
export type TransactItems = NonNullable<
  ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']
>;

export const META = 'META';
export const ROW_PREFIX = 'ROW#';
export const WRITE_BATCH = 25;
export const GET_BATCH = 100;
export const PARALLEL_WRITES = 8;

export const batchKey = (batchId: string) => ({ pk: `BATCH#${batchId}`, sk: META });
// Every batch also has an entry in one listing partition, newest last by creation time: batches are few (one per
// upload or scheduled run), so one partition serves `batches` without scanning rows.
export const BATCH_LISTING = 'BATCHES';
export const listingKey = (batchId: string, createdAt: string) => ({
  pk: BATCH_LISTING,
  sk: `${createdAt}#${batchId}`,
});
export const rowKey = (batchId: string, row: number) => ({
  pk: `BATCH#${batchId}`,
  sk: `${ROW_PREFIX}${String(row).padStart(9, '0')}`,
});
/**
 * A batch's per-row counts live in counter shards (`COUNTS#00`…), the row's number modulo their count picking
 * one, never on the batch item. In DynamoDB, concurrent transactions that write one item cancel each other
 * (`TransactionConflict`): if every settle wrote the batch item, a batch's settles would collide all the time and,
 * worse, a paid answer's settle would fail. Sixteen shards keep concurrent settles on different items in all but a
 * few cases (those few are retried); a reader sums them with the batch item in one BatchGetItem.
 */
const COUNTER_SHARDS = 16;
export const COUNTER_PREFIX = 'COUNTS#';
const COUNTERS = ['settled', 'screened', 'cached', 'failed', 'cancelled', 'notQueried'] as const;
const shardKey = (batchId: string, shard: number) => ({
  pk: `BATCH#${batchId}`,
  sk: `${COUNTER_PREFIX}${String(shard).padStart(2, '0')}`,
});
export const shardKeys = (batchId: string) =>
  Array.from({ length: COUNTER_SHARDS }, (_, shard) => shardKey(batchId, shard));
const shardOfRow = (batchId: string, row: number) => shardKey(batchId, row % COUNTER_SHARDS);

/** A batch record with the counts of its shards added to the batch item's own (those ingest settled). */
export function withShardCounts(batch: BatchRecord, shards: readonly Item[]): BatchRecord {
  const counts: Record<(typeof COUNTERS)[number], number> = { ...batch };
  for (const shard of shards)
    for (const counter of COUNTERS) counts[counter] += (shard[counter] as number | undefined) ?? 0;
  return { ...batch, ...counts };
}

// Transactions cancelled by a conflict with another transaction, and throttled requests, are retried here with
// jittered backoff (AWS's advice for TransactionConflict); the SDK retries throttling itself, not conflicts.
const TRANSACTION_ATTEMPTS = 8;
/** Half fixed, half random ("equal jitter"): a retry never comes right back into the write it collided with. */
const conflictBackoffMs = (attempt: number): number => {
  const ceiling = Math.min(1000, 25 * 2 ** attempt);
  return ceiling / 2 + (Math.random() * ceiling) / 2;
};
const isRetryableCancellation = (error: unknown): boolean =>
  error instanceof TransactionCanceledException &&
  (error.CancellationReasons ?? []).some(
    (reason) =>
      reason.Code === 'TransactionConflict' ||
      reason.Code === 'ThrottlingError' ||
      reason.Code === 'ProvisionedThroughputExceeded',
  ) &&
  !(error.CancellationReasons ?? []).some((reason) => reason.Code === 'ConditionalCheckFailed');

export const reportKeyOf = (key: ReportKey) => ({
  pk: `REPORT#${key.bureau}#${key.document}`,
  sk: key.fetchedAt,
});
export const latestKeyOf = (key: { bureau: Bureau; document: string }) => ({
  pk: `REPORT#${key.bureau}#${key.document}`,
  sk: 'LATEST',
});

/** A condition that the row's state is one `transition` may start from (the domain's `ROW_TRANSITIONS`). */
export function rowStateIn(transition: RowTransition) {
  const from = ROW_TRANSITIONS[transition].from;
  return {
    condition: `#state IN (${from.map((_, index) => `:from${index}`).join(', ')})`,
    values: Object.fromEntries(from.map((state, index) => [`:from${index}`, state])),
  };
}

/** A condition that the batch's status is one `transition` may start from (the domain's `BATCH_TRANSITIONS`). */
export function batchStatusIn(transition: BatchTransition) {
  const from = BATCH_TRANSITIONS[transition].from;
  return {
    condition: `#status IN (${from.map((_, index) => `:from${index}`).join(', ')})`,
    values: Object.fromEntries(from.map((status, index) => [`:from${index}`, status])),
  };
}

/**
 * The pipeline table (see `src/contract/table-keys.ts`) as the batch stores share it: one `META` item per batch with
 * its counter shards, one item per input row, `REPORT#<bureau>#<document>` items per report date, every item with a
 * TTL; and the writes they all make the same way (conditional writes, transactions retried on conflict, batched
 * reads and writes). One instance is shared by the stores of one table, so its retry count covers them all.
 */
export class PipelineTable {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly now: () => number;
  readonly #retentionSeconds: number;

  constructor(config: PipelineTableConfig) {
    if (config.tableName === '') throw new Error('the pipeline table needs a name');
    this.client = config.client;
    this.tableName = config.tableName;
    this.#retentionSeconds = config.retentionDays * 86_400;
    this.now = config.now ?? Date.now;
  }

  /**
   * Runs a transaction whose first item holds the condition that matters (the row is still ours, or still open);
   * false when that condition failed, so nothing was written.
   */
  async transactIfClaimed(items: TransactItems): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.send(new TransactWriteCommand({ TransactItems: items }));
        return true;
      } catch (error) {
        if (
          error instanceof TransactionCanceledException &&
          error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed'
        ) {
          return false;
        }
        if (!isRetryableCancellation(error) || attempt >= TRANSACTION_ATTEMPTS) throw error;
        this.#conflictsRetried++;
        await sleep(conflictBackoffMs(attempt));
      }
    }
  }

  #conflictsRetried = 0;

  /** Transactions this store retried after a conflict or throttling (what strict-mode runs report). */
  get conflictsRetried(): number {
    return this.#conflictsRetried;
  }

  /** The update of a row's counter shard: one more settled row, under `counter`. */
  countOnShard(batchId: string, row: number, counter: string, by: 1 | -1): TransactItems[number] {
    return {
      Update: {
        TableName: this.tableName,
        Key: shardOfRow(batchId, row),
        UpdateExpression: 'SET expiresAt = if_not_exists(expiresAt, :expires) ADD settled :by, #counter :by',
        ExpressionAttributeNames: { '#counter': counter },
        ExpressionAttributeValues: { ':by': by, ':expires': this.expiresAt() },
      },
    };
  }

  /** Runs a conditional write; false when its condition failed (someone else got there first), true otherwise. */
  async conditionally(write: () => Promise<unknown>): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await write();
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        // A single write to an item a transaction is writing is refused; it goes through once that one is done.
        if (!(error instanceof TransactionConflictException) || attempt >= TRANSACTION_ATTEMPTS) throw error;
        this.#conflictsRetried++;
        await sleep(conflictBackoffMs(attempt));
      }
    }
  }

  expiresAt(): number {
    return Math.floor(this.now() / 1000) + this.#retentionSeconds;
  }

  async batchWrite(requests: Item[]): Promise<void> {
    let pending = requests;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
      if (attempt > 10)
        throw new Error(`DynamoDB left ${pending.length} writes unprocessed after ${attempt} attempts`);
      const result = await this.client.send(
        new BatchWriteCommand({ RequestItems: { [this.tableName]: pending } }),
      );
      pending = (result.UnprocessedItems?.[this.tableName] as Item[] | undefined) ?? [];
    }
  }

  async batchGet(keys: Item[]): Promise<Item[]> {
    const items: Item[] = [];
    let pending = keys;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
      if (attempt > 10)
        throw new Error(`DynamoDB left ${pending.length} reads unprocessed after ${attempt} attempts`);
      const result = await this.client.send(
        new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } } }),
      );
      items.push(...((result.Responses?.[this.tableName] as Item[] | undefined) ?? []));
      pending = (result.UnprocessedKeys?.[this.tableName]?.Keys as Item[] | undefined) ?? [];
    }
    return items;
  }
}
