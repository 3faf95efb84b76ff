import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { TABLE } from '../../contract/index.ts';
import {
  type ClaimedRow,
  counterOf,
  type NewRow,
  type RowRange,
  type RowRecord,
  type Settlement,
  settlementAnswered,
  settlementDecision,
  settlementDetail,
  settlementReport,
} from '../../domain/batch/index.ts';
import type { BatchRows, ClaimResult, RowRelease } from '../../domain/ports/index.ts';
import { reportColumns } from '../../domain/report/index.ts';
import { isConditionFailure } from './dynamodb-conditions.ts';
import { toRow } from './dynamodb-items.ts';
import {
  GET_BATCH,
  type Item,
  latestKeyOf,
  PARALLEL_WRITES,
  type PipelineTable,
  ROW_PREFIX,
  reportKeyOf,
  rowKey,
  rowStateIn,
  type TransactItems,
  WRITE_BATCH,
} from './dynamodb-pipeline-table.ts';

/**
 * The rows of batches on the pipeline table. Exactly-once rests on conditions, not on SQS: a row is claimed with a
 * lease before the bureau is called, and settled in a transaction with its counter shard (and its report) that
 * succeeds only for the claim's holder.
 */
export class DynamoDbBatchRows implements BatchRows {
  readonly #db: PipelineTable;

  constructor(table: PipelineTable) {
    this.#db = table;
  }

  async writeRows(batchId: string, rows: readonly NewRow[]): Promise<void> {
    const expiresAt = this.#db.expiresAt();
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
      writes.push(limit(() => this.#db.batchWrite(items)));
    }
    await Promise.all(writes);
  }

  async getRows(batchId: string, rows: readonly number[]): Promise<RowRecord[]> {
    const found: RowRecord[] = [];
    for (let start = 0; start < rows.length; start += GET_BATCH) {
      const keys = rows.slice(start, start + GET_BATCH).map((row) => rowKey(batchId, row));
      for (const item of await this.#db.batchGet(keys)) found.push(toRow(item));
    }
    return found.sort((first, second) => first.row - second.row);
  }

  async *rows(batchId: string, range?: RowRange): AsyncIterable<readonly RowRecord[]> {
    const pk = `BATCH#${batchId}`;
    const condition =
      range === undefined
        ? { expression: 'pk = :pk AND begins_with(sk, :rows)', values: { ':pk': pk, ':rows': ROW_PREFIX } }
        : {
            expression: 'pk = :pk AND sk BETWEEN :first AND :last',
            values: {
              ':pk': pk,
              ':first': rowKey(batchId, range.first).sk,
              ':last': rowKey(batchId, range.last).sk,
            },
          };
    let startKey: Item | undefined;
    do {
      const page = await this.#db.client.send(
        new QueryCommand({
          TableName: this.#db.tableName,
          KeyConditionExpression: condition.expression,
          ExpressionAttributeValues: condition.values,
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      if (page.Items && page.Items.length > 0) yield page.Items.map(toRow);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }

  async claimRow(batchId: string, row: number, leaseSeconds: number): Promise<ClaimResult> {
    const claimToken = randomUUID();
    const now = this.#db.now();
    try {
      const result = await this.#db.client.send(
        new UpdateCommand({
          TableName: this.#db.tableName,
          Key: rowKey(batchId, row),
          // callPending is left as it was: the holder writes it just before its call leaves (markCallSent), so a
          // pending call here is one an earlier holder sent and never accounted for (the old item says so).
          UpdateExpression:
            'SET #state = :claimed, claimToken = :token, claimExpiresAt = :expires ADD attempts :one',
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
          },
          ReturnValues: 'ALL_OLD',
        }),
      );
      const old = result.Attributes as Item;
      const claimedRow = toRow({
        ...old,
        state: 'claimed',
        attempts: ((old.attempts as number | undefined) ?? 0) + 1,
        callPending: old.callPending === true,
      });
      return { claimed: true, claimToken, row: claimedRow, inheritedCall: old.callPending === true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const current = await this.#db.client.send(
        new GetCommand({ TableName: this.#db.tableName, Key: rowKey(batchId, row), ConsistentRead: true }),
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
    await this.#db.conditionally(() =>
      this.#db.client.send(
        new UpdateCommand({
          TableName: this.#db.tableName,
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
    return this.#db.conditionally(() =>
      this.#db.client.send(
        new UpdateCommand({
          TableName: this.#db.tableName,
          Key: rowKey(batchId, row),
          // Still pending until the row settles: a holder killed between this and its settle passes the call on,
          // and the next one counts it again rather than buying the document (a count too high, never a charge).
          UpdateExpression: 'ADD uncertainCalls :one',
          ConditionExpression: 'claimToken = :token',
          ExpressionAttributeValues: { ':one': 1, ':token': claimToken },
        }),
      ),
    );
  }

  async markCallSent(batchId: string, row: number, claimToken: string, sentAtMs: number): Promise<boolean> {
    return this.#db.conditionally(() =>
      this.#db.client.send(
        new UpdateCommand({
          TableName: this.#db.tableName,
          Key: rowKey(batchId, row),
          UpdateExpression: 'SET callPending = :true, callSentAt = :at',
          ConditionExpression: '#state = :claimed AND claimToken = :token',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':true': true,
            ':at': sentAtMs,
            ':claimed': 'claimed',
            ':token': claimToken,
          },
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
    const decision = settlementDecision(settlement);
    // The holder knows what became of its call now: nothing is pending any more; a paid answer is recorded.
    const transactItems: TransactItems = [
      {
        Update: {
          TableName: this.#db.tableName,
          Key: rowKey(batchId, row),
          UpdateExpression: `SET #state = :state, detail = :detail, report = :report, reportKey = :reportKey, decision = :decision, callPending = :false${answered ? ', answered = :true' : ''} REMOVE claimToken, claimExpiresAt`,
          ConditionExpression: `${rowStateIn('settle').condition} AND claimToken = :token`,
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':state': settlement.outcome,
            ':detail': detail,
            ':report': report ? reportColumns(report.report) : null,
            ':reportKey': report ? report.key : null,
            ':decision': decision,
            ...rowStateIn('settle').values,
            ':token': claimToken,
            ':false': false,
            ...(answered ? { ':true': true } : {}),
          },
        },
      },
      this.#db.countOnShard(batchId, row, counterOf(settlement.outcome), 1),
    ];
    if (report !== null) {
      // A shared report (`cached`) is written too: its buyer may not have settled yet, and the same key and
      // content make the two writes one.
      const stored = {
        ...report.key,
        report: JSON.stringify(report.report),
        rawKey: report.rawKey,
        expiresAt: this.#db.expiresAt(),
      };
      // The dated item keeps the report and the history (the previous report is always known); LATEST only points
      // at it, so the newest is found without a query and the report is written once, not twice (each copy costs
      // its size twice over in a transaction: docs/costs.md).
      const latest = { fetchedAt: report.key.fetchedAt, expiresAt: stored.expiresAt };
      transactItems.push(
        { Put: { TableName: this.#db.tableName, Item: { ...reportKeyOf(report.key), ...stored } } },
        { Put: { TableName: this.#db.tableName, Item: { ...latestKeyOf(report.key), ...latest } } },
      );
    }
    return this.#db.transactIfClaimed(transactItems);
  }

  async settleAbandonedRow(
    batchId: string,
    row: number,
    abandoned: { readonly reason: string; readonly answered: boolean },
  ): Promise<boolean> {
    // A persisted answer accounts for the pending call; without one, a pending call stays uncertain.
    const answered = abandoned.answered ? ', answered = :true, callPending = :false' : '';
    return this.#db.transactIfClaimed([
      {
        Update: {
          TableName: this.#db.tableName,
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
      this.#db.countOnShard(batchId, row, 'failed', 1),
    ]);
  }

  async withholdQueuedRow(
    batchId: string,
    row: number,
    withheld: { readonly outcome: 'cancelled' | 'not_queried'; readonly reason: string },
  ): Promise<boolean> {
    return this.#db.transactIfClaimed([
      {
        Update: {
          TableName: this.#db.tableName,
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
      this.#db.countOnShard(batchId, row, counterOf(withheld.outcome), 1),
    ]);
  }

  async requeueFailedRow(
    batchId: string,
    row: number,
    read: { readonly callPending: boolean } = { callPending: false },
  ): Promise<boolean> {
    // The pending call, as the caller read it, is folded into the uncertain calls; the condition makes sure it was.
    const pending = read.callPending
      ? {
          set: ', uncertainCalls = if_not_exists(uncertainCalls, :zero) + :one',
          condition: 'callPending = :true',
        }
      : { set: '', condition: '(attribute_not_exists(callPending) OR callPending = :false)' };
    return this.#db.transactIfClaimed([
      {
        Update: {
          TableName: this.#db.tableName,
          Key: rowKey(batchId, row),
          UpdateExpression: `SET #state = :queued, attempts = :zero, transientFailures = :zero, callPending = :false${pending.set} REMOVE detail`,
          ConditionExpression: `${rowStateIn('requeue').condition} AND ${pending.condition}`,
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':queued': 'queued',
            ':zero': 0,
            ':false': false,
            ...(read.callPending ? { ':one': 1, ':true': true } : {}),
            ...rowStateIn('requeue').values,
          },
        },
      },
      this.#db.countOnShard(batchId, row, 'failed', -1),
    ]);
  }

  async expiredClaims(batchId: string, before: number): Promise<ClaimedRow[]> {
    const index = TABLE.claimedRowsIndex;
    const claims: ClaimedRow[] = [];
    let startKey: Item | undefined;
    do {
      const page = await this.#db.client.send(
        new QueryCommand({
          TableName: this.#db.tableName,
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
