import { BatchGetCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { perBureau } from '../../domain/bureau/index.ts';
import type { ChargeBudget } from '../../domain/ports/index.ts';
import { BUREAUS, type Bureau } from '../../domain/report/index.ts';
import {
  alertsAt,
  type BudgetAlert,
  type BudgetCaps,
  type BudgetReservation,
  type BudgetScope,
} from '../../domain/spend/index.ts';
import { isConditionFailure } from './dynamodb-conditions.ts';

export interface DynamoDbChargeBudgetConfig {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Days the monthly counters are kept. */
  readonly retentionDays: number;
  /** @default Date.now */
  readonly now?: () => number;
}

// The batch's units sit on its batch item; the month's on one item per bureau and month.
const batchKey = (batchId: string) => ({ pk: `BATCH#${batchId}`, sk: 'META' });
const monthKey = (bureau: Bureau, month: string) => ({ pk: `BUDGET#${bureau}`, sk: month });

/**
 * The spending caps on the pipeline table. A reservation is one conditional `ADD` per cap (`used < cap`), which
 * DynamoDB applies atomically however many workers race for the last unit, so a cap is never exceeded. These are
 * plain writes, never in a transaction, so the month's item (written by every query) cannot cancel a settle.
 */
export class DynamoDbChargeBudget implements ChargeBudget {
  readonly #client: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #retentionSeconds: number;
  readonly #now: () => number;

  constructor(config: DynamoDbChargeBudgetConfig) {
    this.#client = config.client;
    this.#table = config.tableName;
    this.#retentionSeconds = config.retentionDays * 86_400;
    this.#now = config.now ?? Date.now;
  }

  async reserve(scope: BudgetScope, caps: BudgetCaps): Promise<BudgetReservation> {
    const batchUsed = await this.#add(batchKey(scope.batchId), 'chargesReserved', 1, caps.batch);
    if (batchUsed === null) return { reserved: false, exhausted: 'batch' };
    const monthUsed = await this.#add(monthKey(scope.bureau, scope.month), 'used', 1, caps.monthly).catch(
      async (error: unknown) => {
        await this.#add(batchKey(scope.batchId), 'chargesReserved', -1, null);
        throw error;
      },
    );
    if (monthUsed === null) {
      await this.#add(batchKey(scope.batchId), 'chargesReserved', -1, null);
      return { reserved: false, exhausted: 'month' };
    }
    const alerts = [
      ...(await this.#firstTimeOnly(batchKey(scope.batchId), alertsAt('batch', batchUsed, caps.batch))),
      ...(await this.#firstTimeOnly(
        monthKey(scope.bureau, scope.month),
        alertsAt('month', monthUsed, caps.monthly),
      )),
    ];
    return { reserved: true, alerts };
  }

  /**
   * The alerts not raised before: a count can pass a threshold again after a unit was given back, and each alert
   * is raised once, by whoever marks it on the counter's item first.
   */
  async #firstTimeOnly(key: Record<string, string>, alerts: readonly BudgetAlert[]): Promise<BudgetAlert[]> {
    const first: BudgetAlert[] = [];
    for (const alert of alerts) {
      try {
        await this.#client.send(
          new UpdateCommand({
            TableName: this.#table,
            Key: key,
            UpdateExpression: 'SET #alerted = :true',
            ConditionExpression: 'attribute_not_exists(#alerted)',
            ExpressionAttributeNames: { '#alerted': `alerted${alert.percent}` },
            ExpressionAttributeValues: { ':true': true },
          }),
        );
        first.push(alert);
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
    return first;
  }

  async giveBack(scope: BudgetScope): Promise<void> {
    await this.#add(batchKey(scope.batchId), 'chargesReserved', -1, null);
    await this.#add(monthKey(scope.bureau, scope.month), 'used', -1, null);
  }

  async spent(month: string): Promise<Record<Bureau, number>> {
    const result = await this.#client.send(
      new BatchGetCommand({
        RequestItems: {
          [this.#table]: { Keys: BUREAUS.map((bureau) => monthKey(bureau, month)), ConsistentRead: true },
        },
      }),
    );
    const spent: Record<Bureau, number> = perBureau(() => 0);
    for (const item of result.Responses?.[this.#table] ?? []) {
      const bureau = String(item.pk).replace('BUDGET#', '') as Bureau;
      spent[bureau] = Number(item.used ?? 0);
    }
    return spent;
  }

  /** Adds `by` to a counter, below `cap` when there is one; the new count, or null when the cap refused it. */
  async #add(
    key: Record<string, string>,
    counter: string,
    by: 1 | -1,
    cap: number | null,
  ): Promise<number | null> {
    if (cap !== null && cap <= 0) return null;
    // A batch's units go on its item, which must exist: a stray item would be no batch at all.
    const exists = key.sk === 'META' ? 'attribute_exists(pk)' : null;
    const capped = cap === null ? null : '(attribute_not_exists(#counter) OR #counter < :cap)';
    const condition = [exists, capped].filter((part) => part !== null).join(' AND ');
    try {
      const result = await this.#client.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: key,
          UpdateExpression: 'SET expiresAt = if_not_exists(expiresAt, :expires) ADD #counter :by',
          ...(condition === '' ? {} : { ConditionExpression: condition }),
          ExpressionAttributeNames: { '#counter': counter },
          ExpressionAttributeValues: {
            ':by': by,
            ':expires': Math.floor(this.#now() / 1000) + this.#retentionSeconds,
            ...(cap === null ? {} : { ':cap': cap }),
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(result.Attributes?.[counter] ?? 0);
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }
}
