import { randomUUID } from 'node:crypto';
import { TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { TABLE } from '../../contract/index.ts';
import {
  type ApprovalDecision,
  BATCH_TRANSITIONS,
  type BatchLayout,
  type BatchRecord,
  type BatchTransition,
  type ClaimedRow,
  counterOf,
  type FileFailure,
  type NewRow,
  type ReportKey,
  ROW_TRANSITIONS,
  type RowRecord,
  type RowTransition,
  reportKeyId,
  type Settlement,
  type StoredReport,
  settlementAnswered,
  settlementDetail,
  settlementReport,
} from '../../domain/batch/index.ts';
import type {
  BatchStore,
  ClaimResult,
  IngestQuote,
  IngestTotals,
  NewBatch,
  RowRelease,
} from '../../domain/ports/index.ts';
import type { Bureau } from '../../domain/report/index.ts';
import { reportColumns } from '../../domain/report/index.ts';
import { isConditionFailure } from './dynamodb-conditions.ts';
import { toBatch, toRow, toStoredReport } from './dynamodb-items.ts';

export interface DynamoDbBatchStoreConfig {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Items expire (DynamoDB TTL) this many days after they are written. */
  readonly retentionDays: number;
  /** @default Date.now */
  readonly now?: () => number;
}

type Item = Record<string, unknown>;
type TransactItems = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;

const META = 'META';
const ROW_PREFIX = 'ROW#';
const WRITE_BATCH = 25;
const GET_BATCH = 100;
const PARALLEL_WRITES = 8;

const batchKey = (batchId: string) => ({ pk: `BATCH#${batchId}`, sk: META });
// Every batch also has an entry in one listing partition, newest last by creation time: batches are few (one per
// upload or scheduled run), so one partition serves `batches` without scanning rows.
const BATCH_LISTING = 'BATCHES';
const listingKey = (batchId: string, createdAt: string) => ({
  pk: BATCH_LISTING,
  sk: `${createdAt}#${batchId}`,
});
const rowKey = (batchId: string, row: number) => ({
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
const COUNTER_PREFIX = 'COUNTS#';
const COUNTERS = ['settled', 'screened', 'cached', 'failed', 'cancelled', 'notQueried'] as const;
const shardKey = (batchId: string, shard: number) => ({
  pk: `BATCH#${batchId}`,
  sk: `${COUNTER_PREFIX}${String(shard).padStart(2, '0')}`,
});
const shardKeys = (batchId: string) =>
  Array.from({ length: COUNTER_SHARDS }, (_, shard) => shardKey(batchId, shard));
const shardOfRow = (batchId: string, row: number) => shardKey(batchId, row % COUNTER_SHARDS);

/** A batch record with the counts of its shards added to the batch item's own (those ingest settled). */
function withShardCounts(batch: BatchRecord, shards: readonly Item[]): BatchRecord {
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

const reportKeyOf = (key: ReportKey) => ({ pk: `REPORT#${key.bureau}#${key.document}`, sk: key.fetchedAt });
const latestKeyOf = (key: { bureau: Bureau; document: string }) => ({
  pk: `REPORT#${key.bureau}#${key.document}`,
  sk: 'LATEST',
});

/** A condition that the row's state is one `transition` may start from (the domain's `ROW_TRANSITIONS`). */
function rowStateIn(transition: RowTransition) {
  const from = ROW_TRANSITIONS[transition].from;
  return {
    condition: `#state IN (${from.map((_, index) => `:from${index}`).join(', ')})`,
    values: Object.fromEntries(from.map((state, index) => [`:from${index}`, state])),
  };
}

/** A condition that the batch's status is one `transition` may start from (the domain's `BATCH_TRANSITIONS`). */
function batchStatusIn(transition: BatchTransition) {
  const from = BATCH_TRANSITIONS[transition].from;
  return {
    condition: `#status IN (${from.map((_, index) => `:from${index}`).join(', ')})`,
    values: Object.fromEntries(from.map((status, index) => [`:from${index}`, status])),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The batch store on one DynamoDB table (see `src/contract/table-keys.ts`): a `META` item per batch with its
 * counters, one item per input row, `REPORT#<bureau>#<document>` items per report date. Every item carries a TTL.
 *
 * Exactly-once rests on conditions, not on SQS: a row is claimed with a lease before the bureau is called, and
 * settled in a transaction with the batch counters that succeeds only for the claim's holder.
 */
export class DynamoDbBatchStore implements BatchStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #retentionSeconds: number;
  readonly #now: () => number;

  constructor(config: DynamoDbBatchStoreConfig) {
    if (config.tableName === '') throw new Error('DynamoDbBatchStore needs a table name');
    this.#client = config.client;
    this.#table = config.tableName;
    this.#retentionSeconds = config.retentionDays * 86_400;
    this.#now = config.now ?? Date.now;
  }

  /**
   * Runs a transaction whose first item holds the condition that matters (the row is still ours, or still open);
   * false when that condition failed, so nothing was written.
   */
  async #transactIfClaimed(items: TransactItems): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#client.send(new TransactWriteCommand({ TransactItems: items }));
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
  #countOnShard(batchId: string, row: number, counter: string, by: 1 | -1): TransactItems[number] {
    return {
      Update: {
        TableName: this.#table,
        Key: shardOfRow(batchId, row),
        UpdateExpression: 'SET expiresAt = if_not_exists(expiresAt, :expires) ADD settled :by, #counter :by',
        ExpressionAttributeNames: { '#counter': counter },
        ExpressionAttributeValues: { ':by': by, ':expires': this.#expiresAt() },
      },
    };
  }

  /** Runs a conditional write; false when its condition failed (someone else got there first), true otherwise. */
  async #conditionally(write: () => Promise<unknown>): Promise<boolean> {
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

  #expiresAt(): number {
    return Math.floor(this.#now() / 1000) + this.#retentionSeconds;
  }

  async createBatch(batch: NewBatch): Promise<boolean> {
    const createdAt = new Date(this.#now()).toISOString();
    const expiresAt = this.#expiresAt();
    return this.#transactIfClaimed([
      {
        Put: {
          TableName: this.#table,
          Item: {
            ...batchKey(batch.batchId),
            ...batch,
            portfolio: batch.portfolio ?? null,
            maxCharges: batch.maxCharges ?? null,
            freshnessHours: batch.freshnessHours ?? 0,
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
          TableName: this.#table,
          Item: { ...listingKey(batch.batchId, createdAt), batchId: batch.batchId, expiresAt },
        },
      },
    ]);
  }

  async listBatches(limit: number): Promise<BatchRecord[]> {
    const listing = await this.#client.send(
      new QueryCommand({
        TableName: this.#table,
        KeyConditionExpression: 'pk = :listing',
        ExpressionAttributeValues: { ':listing': BATCH_LISTING },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return this.#batchesWithCounts((listing.Items ?? []).map((item) => item.batchId as string));
  }

  async withholdQueuedRow(
    batchId: string,
    row: number,
    withheld: { readonly outcome: 'cancelled' | 'not_queried'; readonly reason: string },
  ): Promise<boolean> {
    return this.#transactIfClaimed([
      {
        Update: {
          TableName: this.#table,
          Key: rowKey(batchId, row),
          UpdateExpression: 'SET #state = :outcome, detail = :detail',
          ConditionExpression: rowStateIn('withhold').condition,
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':outcome': withheld.outcome,
            ':detail': withheld.reason,
            ...rowStateIn('withhold').values,
          },
        },
      },
      this.#countOnShard(batchId, row, counterOf(withheld.outcome), 1),
    ]);
  }

  async decideApproval(batchId: string, decision: ApprovalDecision): Promise<boolean> {
    return this.#conditionally(() =>
      this.#client.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: batchKey(batchId),
          UpdateExpression: 'SET #status = :running, approval = :decision',
          ConditionExpression: batchStatusIn('decideApproval').condition,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':running': 'running',
            ':decision': decision,
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
    return this.#conditionally(() =>
      this.#client.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: batchKey(batchId),
          // A refused token may have been fixed since: the next call probes it again before the fleet goes.
          UpdateExpression:
            'SET #status = :running, tokenState = :unverified, requeuing = :true, revision = if_not_exists(revision, :one) + :one REMOVE completedAt',
          ConditionExpression: batchStatusIn('reopenForRedrive').condition,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':running': 'running',
            ...batchStatusIn('reopenForRedrive').values,
            ':unverified': 'unverified',
            ':true': true,
            ':one': 1,
          },
        }),
      ),
    );
  }

  async finishRequeue(batchId: string): Promise<void> {
    await this.#setOnBatch(batchId, { requeuing: false });
  }

  async requeueFailedRow(batchId: string, row: number): Promise<boolean> {
    return this.#transactIfClaimed([
      {
        Update: {
          TableName: this.#table,
          Key: rowKey(batchId, row),
          UpdateExpression: 'SET #state = :queued, attempts = :zero, transientFailures = :zero REMOVE detail',
          ConditionExpression: rowStateIn('requeue').condition,
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':queued': 'queued', ':zero': 0, ...rowStateIn('requeue').values },
        },
      },
      this.#countOnShard(batchId, row, 'failed', -1),
    ]);
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
      items.push(...(await this.#batchGet(keys.slice(start, start + GET_BATCH))));
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
    await this.#client.send(
      new UpdateCommand({
        TableName: this.#table,
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
    await this.#client.send(
      new UpdateCommand({
        TableName: this.#table,
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

  async writeRows(batchId: string, rows: readonly NewRow[]): Promise<void> {
    const expiresAt = this.#expiresAt();
    const limit = pLimit(PARALLEL_WRITES);
    const writes: Promise<void>[] = [];
    for (let start = 0; start < rows.length; start += WRITE_BATCH) {
      const items = rows.slice(start, start + WRITE_BATCH).map((row) => ({
        PutRequest: {
          Item: {
            ...rowKey(batchId, row.row),
            batchId,
            ...row,
            // Long garbage cells are cut: the row keeps enough to be recognised, not a megabyte of it.
            input: row.input.slice(0, 200),
            attempts: 0,
            transientFailures: 0,
            expiresAt,
          },
        },
      }));
      writes.push(limit(() => this.#batchWrite(items)));
    }
    await Promise.all(writes);
  }

  async #batchWrite(requests: Item[]): Promise<void> {
    let pending = requests;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)));
      if (attempt > 10)
        throw new Error(`DynamoDB left ${pending.length} writes unprocessed after ${attempt} attempts`);
      const result = await this.#client.send(
        new BatchWriteCommand({ RequestItems: { [this.#table]: pending } }),
      );
      pending = (result.UnprocessedItems?.[this.#table] as Item[] | undefined) ?? [];
    }
  }

  async getRows(batchId: string, rows: readonly number[]): Promise<RowRecord[]> {
    const found: RowRecord[] = [];
    for (let start = 0; start < rows.length; start += GET_BATCH) {
      const keys = rows.slice(start, start + GET_BATCH).map((row) => rowKey(batchId, row));
      for (const item of await this.#batchGet(keys)) found.push(toRow(item));
    }
    return found.sort((first, second) => first.row - second.row);
  }

  async #batchGet(keys: Item[]): Promise<Item[]> {
    const items: Item[] = [];
    let pending = keys;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)));
      if (attempt > 10)
        throw new Error(`DynamoDB left ${pending.length} reads unprocessed after ${attempt} attempts`);
      const result = await this.#client.send(
        new BatchGetCommand({ RequestItems: { [this.#table]: { Keys: pending, ConsistentRead: true } } }),
      );
      items.push(...((result.Responses?.[this.#table] as Item[] | undefined) ?? []));
      pending = (result.UnprocessedKeys?.[this.#table]?.Keys as Item[] | undefined) ?? [];
    }
    return items;
  }

  async saveIngestCheckpoint(batchId: string, row: number, cachedSoFar: number): Promise<void> {
    await this.#setOnBatch(batchId, { ingestCheckpoint: row, ingestCached: cachedSoFar });
  }

  async finishIngest(batchId: string, totals: IngestTotals, quoted?: IngestQuote): Promise<void> {
    // Rows settled as cached at ingest are counted on the batch item: one write, by the one ingest.
    await this.#client.send(
      new UpdateCommand({
        TableName: this.#table,
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

  async claimRow(batchId: string, row: number, leaseSeconds: number): Promise<ClaimResult> {
    const claimToken = randomUUID();
    const now = this.#now();
    try {
      const result = await this.#client.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: rowKey(batchId, row),
          // Every claim marks a call as pending before any can go out: if this holder dies, the next one knows to
          // look for a persisted answer instead of paying again (the old item says whether one was pending).
          UpdateExpression:
            'SET #state = :claimed, claimToken = :token, claimExpiresAt = :expires, callPending = :true ADD attempts :one',
          // ROW_TRANSITIONS.claim, with its lease: a claimed row only once its holder's lease has run out.
          ConditionExpression: '#state = :queued OR (#state = :claimed AND claimExpiresAt < :now)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':claimed': 'claimed',
            ':queued': 'queued',
            ':token': claimToken,
            ':expires': now + leaseSeconds * 1000,
            ':now': now,
            ':one': 1,
            ':true': true,
          },
          ReturnValues: 'ALL_OLD',
        }),
      );
      const old = result.Attributes as Item;
      const claimedRow = toRow({
        ...old,
        state: 'claimed',
        attempts: ((old.attempts as number | undefined) ?? 0) + 1,
        callPending: true,
      });
      return { claimed: true, claimToken, row: claimedRow, inheritedCall: old.callPending === true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const current = await this.#client.send(
        new GetCommand({ TableName: this.#table, Key: rowKey(batchId, row), ConsistentRead: true }),
      );
      return { claimed: false, row: current.Item ? toRow(current.Item) : null };
    }
  }

  async releaseRow(batchId: string, row: number, claimToken: string, release: RowRelease): Promise<void> {
    const sets = ['#state = :queued', ...(release.call === 'unknown' ? [] : ['callPending = :false'])];
    const adds = [
      ...(release.transientFailure ? ['transientFailures :one'] : []),
      ...(release.call === 'unanswered' ? ['uncertainCalls :one'] : []),
    ];
    const adding = adds.length > 0;
    // The lease ran out and another worker holds the row now: nothing of ours to give back.
    await this.#conditionally(() =>
      this.#client.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: rowKey(batchId, row),
          UpdateExpression: `SET ${sets.join(', ')} REMOVE claimToken, claimExpiresAt${adding ? ` ADD ${adds.join(', ')}` : ''}`,
          ConditionExpression: 'claimToken = :token',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':queued': 'queued',
            ':token': claimToken,
            ...(release.call === 'unknown' ? {} : { ':false': false }),
            ...(adding ? { ':one': 1 } : {}),
          },
        }),
      ),
    );
  }

  async recordUncertainCall(batchId: string, row: number, claimToken: string): Promise<boolean> {
    return this.#conditionally(() =>
      this.#client.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: rowKey(batchId, row),
          UpdateExpression: 'ADD uncertainCalls :one',
          ConditionExpression: 'claimToken = :token',
          ExpressionAttributeValues: { ':one': 1, ':token': claimToken },
        }),
      ),
    );
  }

  async settleRow(
    batchId: string,
    row: number,
    claimToken: string,
    settlement: Settlement,
  ): Promise<boolean> {
    const report = settlementReport(settlement);
    const detail = settlementDetail(settlement);
    const answered = settlementAnswered(settlement);
    // The holder knows what became of its call now: nothing is pending any more; a paid answer is recorded.
    const transactItems: TransactItems = [
      {
        Update: {
          TableName: this.#table,
          Key: rowKey(batchId, row),
          UpdateExpression: `SET #state = :state, detail = :detail, report = :report, reportKey = :reportKey, callPending = :false${answered ? ', answered = :true' : ''} REMOVE claimToken, claimExpiresAt`,
          ConditionExpression: `${rowStateIn('settle').condition} AND claimToken = :token`,
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':state': settlement.outcome,
            ':detail': detail,
            ':report': report ? reportColumns(report.report) : null,
            ':reportKey': report ? report.key : null,
            ...rowStateIn('settle').values,
            ':token': claimToken,
            ':false': false,
            ...(answered ? { ':true': true } : {}),
          },
        },
      },
      this.#countOnShard(batchId, row, counterOf(settlement.outcome), 1),
    ];
    if (report !== null) {
      // A shared report (`cached`) is written too: its buyer may not have settled yet, and the same key and
      // content make the two writes one.
      const stored = {
        ...report.key,
        report: JSON.stringify(report.report),
        rawKey: report.rawKey,
        expiresAt: this.#expiresAt(),
      };
      // The dated item keeps the history (the previous report is always known); LATEST is found without a query.
      transactItems.push(
        { Put: { TableName: this.#table, Item: { ...reportKeyOf(report.key), ...stored } } },
        { Put: { TableName: this.#table, Item: { ...latestKeyOf(report.key), ...stored } } },
      );
    }
    return this.#transactIfClaimed(transactItems);
  }

  async settleAbandonedRow(
    batchId: string,
    row: number,
    abandoned: { readonly reason: string; readonly answered: boolean },
  ): Promise<boolean> {
    // A persisted answer accounts for the pending call; without one, a pending call stays uncertain.
    const answered = abandoned.answered ? ', answered = :true, callPending = :false' : '';
    return this.#transactIfClaimed([
      {
        Update: {
          TableName: this.#table,
          Key: rowKey(batchId, row),
          UpdateExpression: `SET #state = :failed, detail = :detail${answered} REMOVE claimToken, claimExpiresAt`,
          ConditionExpression: rowStateIn('abandon').condition,
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':failed': 'failed',
            ':detail': abandoned.reason,
            ...rowStateIn('abandon').values,
            ...(abandoned.answered ? { ':true': true, ':false': false } : {}),
          },
        },
      },
      this.#countOnShard(batchId, row, 'failed', 1),
    ]);
  }

  async acquireTokenProbe(batchId: string, leaseSeconds: number): Promise<boolean> {
    const now = this.#now();
    return this.#conditionally(() =>
      this.#client.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: batchKey(batchId),
          UpdateExpression: 'SET probeLeaseUntil = :until',
          ConditionExpression:
            'tokenState = :unverified AND (attribute_not_exists(probeLeaseUntil) OR probeLeaseUntil < :now)',
          ExpressionAttributeValues: {
            ':until': now + leaseSeconds * 1000,
            ':unverified': 'unverified',
            ':now': now,
          },
        }),
      ),
    );
  }

  async markToken(batchId: string, state: 'verified' | 'rejected'): Promise<void> {
    await this.#conditionally(() =>
      this.#client.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: batchKey(batchId),
          UpdateExpression: 'SET tokenState = :state REMOVE probeLeaseUntil',
          // A rejection is final: a late success of another request must not undo it.
          ConditionExpression: state === 'verified' ? 'tokenState <> :rejected' : 'attribute_exists(pk)',
          ExpressionAttributeValues: {
            ':state': state,
            ...(state === 'verified' ? { ':rejected': 'rejected' } : {}),
          },
        }),
      ),
    );
  }

  async releaseTokenProbe(batchId: string): Promise<void> {
    await this.#client.send(
      new UpdateCommand({
        TableName: this.#table,
        Key: batchKey(batchId),
        UpdateExpression: 'REMOVE probeLeaseUntil',
      }),
    );
  }

  async claimFinalisation(batchId: string): Promise<boolean> {
    return this.#conditionally(() =>
      this.#client.send(
        new UpdateCommand({
          TableName: this.#table,
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
    return this.#conditionally(() =>
      this.#client.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: batchKey(batchId),
          UpdateExpression: 'SET #status = :final, completedAt = :now, manifestKey = :manifest',
          ConditionExpression: batchStatusIn('complete').condition,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':final': batch?.failure ? 'failed' : 'completed',
            ':now': new Date(this.#now()).toISOString(),
            ':manifest': manifestKey,
            ...batchStatusIn('complete').values,
          },
        }),
      ),
    );
  }

  async *rows(batchId: string): AsyncIterable<readonly RowRecord[]> {
    let startKey: Item | undefined;
    do {
      const page = await this.#client.send(
        new QueryCommand({
          TableName: this.#table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :rows)',
          ExpressionAttributeValues: { ':pk': `BATCH#${batchId}`, ':rows': ROW_PREFIX },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      if (page.Items && page.Items.length > 0) yield page.Items.map(toRow);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }

  async latestReports(bureau: Bureau, documents: readonly string[]): Promise<Map<string, StoredReport>> {
    const found = new Map<string, StoredReport>();
    const keys = [...new Set(documents)].map((document) => latestKeyOf({ bureau, document }));
    for (let start = 0; start < keys.length; start += GET_BATCH) {
      for (const item of await this.#batchGet(keys.slice(start, start + GET_BATCH))) {
        const stored = toStoredReport(item);
        found.set(stored.key.document, stored);
      }
    }
    return found;
  }

  async getReports(keys: readonly ReportKey[]): Promise<Map<string, StoredReport>> {
    const unique = new Map(keys.map((key) => [reportKeyId(key), reportKeyOf(key)]));
    const found = new Map<string, StoredReport>();
    const ids = [...unique.values()];
    for (let start = 0; start < ids.length; start += GET_BATCH) {
      for (const item of await this.#batchGet(ids.slice(start, start + GET_BATCH))) {
        const stored = toStoredReport(item);
        found.set(reportKeyId(stored.key), stored);
      }
    }
    return found;
  }

  async previousReport(key: ReportKey): Promise<StoredReport | null> {
    const { pk } = reportKeyOf(key);
    // Dated items sort by their ISO date; `LATEST` sorts after every date, so `< fetchedAt` never returns it.
    const result = await this.#client.send(
      new QueryCommand({
        TableName: this.#table,
        KeyConditionExpression: 'pk = :pk AND sk < :fetchedAt',
        ExpressionAttributeValues: { ':pk': pk, ':fetchedAt': key.fetchedAt },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const item = result.Items?.[0];
    return item ? toStoredReport(item) : null;
  }

  async expiredClaims(batchId: string, before: number): Promise<ClaimedRow[]> {
    const index = TABLE.claimedRowsIndex;
    const claims: ClaimedRow[] = [];
    let startKey: Item | undefined;
    do {
      const page = await this.#client.send(
        new QueryCommand({
          TableName: this.#table,
          IndexName: index.name,
          KeyConditionExpression: '#batch = :batchId AND #expires < :before',
          ExpressionAttributeNames: { '#batch': index.partitionKey, '#expires': index.sortKey },
          ExpressionAttributeValues: { ':batchId': batchId, ':before': before },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        claims.push({
          row: item.row as number,
          document: (item.document as string | undefined) ?? null,
          claimToken: item.claimToken as string,
        });
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return claims;
  }
}
