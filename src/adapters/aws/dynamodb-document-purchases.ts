import { setTimeout as sleep } from 'node:timers/promises';
import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type {
  DocumentPurchases,
  PurchaseClaim,
  PurchasedAnswer,
  PurchaseHolder,
} from '../../domain/ports/index.ts';
import type { Bureau } from '../../domain/report/index.ts';
import { isConditionFailure } from './dynamodb-conditions.ts';

export interface DynamoDbDocumentPurchasesConfig {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** A purchase's item expires (DynamoDB TTL) this many days after it was last written, like the reports. */
  readonly retentionDays: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/** One item per bureau and document on the pipeline table; its answer stays until a newer purchase replaces it. */
export const purchaseKey = (bureau: Bureau, document: string) => ({
  pk: `PURCHASE#${bureau}#${document}`,
  sk: 'PURCHASE',
});

/**
 * Who may take the purchase: nobody holds it; or it is unanswered and its lease ran out, or the taker is its holder
 * (a retry of the same row); or its answer is older than the taker accepts.
 */
const CLAIMABLE =
  'attribute_not_exists(pk)' +
  ' OR (attribute_not_exists(fetchedAt) AND (leaseUntil < :now OR (holderBatchId = :batch AND holderRow = :row)))' +
  ' OR (attribute_exists(fetchedAt) AND fetchedAt < :since)';
/** The holder's own unanswered purchase. */
const HELD_BY = 'holderBatchId = :batch AND holderRow = :row AND attribute_not_exists(fetchedAt)';

/** A refused claim re-reads the item; it may have changed in between (released, expired), so claim again. */
const CLAIM_ATTEMPTS = 4;
/** Single writes that meet a transaction on the same item are refused (`TransactionConflict`); they are retried. */
const CONFLICT_ATTEMPTS = 6;

/**
 * Document purchases on the pipeline table: every change is one conditional `UpdateItem` on the document's item
 * (never in a transaction, so it cannot cancel a settle), which DynamoDB applies atomically however many workers
 * race: one of them holds the purchase, every other one is told who does, or what it answered.
 */
export class DynamoDbDocumentPurchases implements DocumentPurchases {
  readonly #client: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #retentionSeconds: number;
  readonly #now: () => number;

  constructor(config: DynamoDbDocumentPurchasesConfig) {
    if (config.tableName === '') throw new Error('DynamoDbDocumentPurchases needs a table name');
    this.#client = config.client;
    this.#table = config.tableName;
    this.#retentionSeconds = config.retentionDays * 86_400;
    this.#now = config.now ?? Date.now;
  }

  async claim(
    bureau: Bureau,
    document: string,
    holder: PurchaseHolder,
    options: {
      readonly leaseSeconds: number;
      readonly answerKey: string;
      readonly acceptAnswersSince: string;
    },
  ): Promise<PurchaseClaim> {
    for (let attempt = 1; ; attempt++) {
      const now = this.#now();
      const taken = await this.#write(
        new UpdateCommand({
          TableName: this.#table,
          Key: purchaseKey(bureau, document),
          UpdateExpression:
            'SET holderBatchId = :batch, holderRow = :row, leaseUntil = :until, pendingAnswerKey = :key, expiresAt = :expires REMOVE fetchedAt, answerKey',
          ConditionExpression: CLAIMABLE,
          ExpressionAttributeValues: {
            ':batch': holder.batchId,
            ':row': holder.row,
            ':until': now + options.leaseSeconds * 1000,
            ':key': options.answerKey,
            ':expires': this.#expiresAt(now),
            ':now': now,
            ':since': options.acceptAnswersSince,
          },
          ReturnValues: 'ALL_OLD',
        }),
      );
      if (taken !== null) return { kind: 'held', abandonedAnswerKey: abandonedKey(taken, holder) };
      const current = await this.#read(bureau, document);
      if (current !== null) {
        if (typeof current.fetchedAt === 'string' && current.fetchedAt >= options.acceptAnswersSince)
          return { kind: 'answered', answerKey: String(current.answerKey), fetchedAt: current.fetchedAt };
        if (
          typeof current.fetchedAt !== 'string' &&
          Number(current.leaseUntil) >= now &&
          !isHolder(current, holder)
        )
          return {
            kind: 'busy',
            holder: { batchId: String(current.holderBatchId), row: Number(current.holderRow) },
            leaseUntil: Number(current.leaseUntil),
          };
      }
      // The item changed between the refusal and the read (released, answered then replaced, its lease ran out).
      if (attempt >= CLAIM_ATTEMPTS)
        throw new Error(`the purchase of a document kept changing under ${attempt} claims`);
    }
  }

  async recordAnswer(
    bureau: Bureau,
    document: string,
    holder: PurchaseHolder,
    answer: PurchasedAnswer,
  ): Promise<boolean> {
    const now = this.#now();
    const written = await this.#write(
      new UpdateCommand({
        TableName: this.#table,
        Key: purchaseKey(bureau, document),
        UpdateExpression:
          'SET answerKey = :answerKey, fetchedAt = :fetchedAt, expiresAt = :expires REMOVE leaseUntil',
        ConditionExpression: HELD_BY,
        ExpressionAttributeValues: {
          ':batch': holder.batchId,
          ':row': holder.row,
          ':answerKey': answer.answerKey,
          ':fetchedAt': answer.fetchedAt,
          ':expires': this.#expiresAt(now),
        },
      }),
    );
    return written !== null;
  }

  async extend(bureau: Bureau, document: string, holder: PurchaseHolder, untilMs: number): Promise<boolean> {
    const written = await this.#write(
      new UpdateCommand({
        TableName: this.#table,
        Key: purchaseKey(bureau, document),
        UpdateExpression: 'SET leaseUntil = :until',
        ConditionExpression: HELD_BY,
        ExpressionAttributeValues: { ':batch': holder.batchId, ':row': holder.row, ':until': untilMs },
      }),
    );
    return written !== null;
  }

  async release(bureau: Bureau, document: string, holder: PurchaseHolder): Promise<void> {
    // The lease is cut short rather than the item deleted: the item keeps no personal data beyond its key, and a
    // delete would need another permission for the same effect.
    await this.#write(
      new UpdateCommand({
        TableName: this.#table,
        Key: purchaseKey(bureau, document),
        UpdateExpression: 'SET leaseUntil = :expired',
        ConditionExpression: HELD_BY,
        ExpressionAttributeValues: { ':batch': holder.batchId, ':row': holder.row, ':expired': 0 },
      }),
    );
  }

  /** The item before a conditional write that went through (`{}` when it created the item); null if refused. */
  async #write(command: UpdateCommand): Promise<Record<string, unknown> | null> {
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await this.#client.send(command);
        return result.Attributes ?? {};
      } catch (error) {
        if (isConditionFailure(error)) return null;
        if (!(error instanceof TransactionConflictException) || attempt >= CONFLICT_ATTEMPTS) throw error;
        await sleep(20 * 2 ** attempt * Math.random());
      }
    }
  }

  async #read(bureau: Bureau, document: string): Promise<Record<string, unknown> | null> {
    const result = await this.#client.send(
      new GetCommand({ TableName: this.#table, Key: purchaseKey(bureau, document), ConsistentRead: true }),
    );
    return result.Item ?? null;
  }

  #expiresAt(now: number): number {
    return Math.floor(now / 1000) + this.#retentionSeconds;
  }
}

const isHolder = (item: Record<string, unknown>, holder: PurchaseHolder) =>
  item.holderBatchId === holder.batchId && Number(item.holderRow) === holder.row;

/** The answer key of another holder whose unanswered purchase was taken over (it may have persisted an answer). */
function abandonedKey(previous: Record<string, unknown>, holder: PurchaseHolder): string | null {
  if (previous.pk === undefined || typeof previous.fetchedAt === 'string' || isHolder(previous, holder))
    return null;
  // A released purchase (lease 0) was given up knowingly: its holder bought nothing.
  if (Number(previous.leaseUntil) === 0) return null;
  return typeof previous.pendingAnswerKey === 'string' ? previous.pendingAnswerKey : null;
}
