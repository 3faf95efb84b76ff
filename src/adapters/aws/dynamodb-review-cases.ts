import { paginateQuery, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import type { ReviewCases } from '../../domain/ports/index.ts';
import {
  type CaseComment,
  type CasePerson,
  MAX_CASE_COMMENTS,
  type ReviewCase,
} from '../../domain/review/index.ts';
import { isConditionFailure } from './dynamodb-conditions.ts';
import { parseItem } from './dynamodb-items.ts';
import type { PipelineTableConfig } from './dynamodb-pipeline-table.ts';

const CASE_PREFIX = 'CASE#';

type RowKey = { readonly batchId: string; readonly row: number };

/** Beside the batch's rows, one item per case: one query reads a batch's cases in row order. */
export const caseKey = (key: RowKey) => ({
  pk: `BATCH#${key.batchId}`,
  sk: `${CASE_PREFIX}${String(key.row).padStart(9, '0')}`,
});

const person = z.object({ subject: z.string(), name: z.string() });
const caseItemSchema = z.object({
  batchId: z.string(),
  row: z.number().int().positive(),
  assignee: person.nullable().default(null),
  assignedAt: z.string().nullable().default(null),
  comments: z.array(z.object({ by: person, at: z.string(), text: z.string() })).default([]),
}) satisfies z.ZodType<ReviewCase>;

/**
 * Review cases as items of the pipeline table, beside their batch's rows and expiring with them. Taking a row is a
 * conditional update on the assignee the person saw; a comment is appended while the list has room.
 */
export class DynamoDbReviewCases implements ReviewCases {
  constructor(private readonly config: PipelineTableConfig) {}

  async casesOf(batchId: string): Promise<ReviewCase[]> {
    const found: ReviewCase[] = [];
    const pages = paginateQuery(
      { client: this.config.client },
      {
        TableName: this.config.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `BATCH#${batchId}`, ':prefix': CASE_PREFIX },
        ConsistentRead: true,
      },
    );
    for await (const page of pages)
      for (const item of page.Items ?? []) found.push(parseItem(caseItemSchema, item, 'review case'));
    return found;
  }

  async assign(key: RowKey, to: CasePerson | null, expected: string | null, at: string): Promise<boolean> {
    return this.#update(key, {
      set: 'assignee = :to, assignedAt = :at',
      condition:
        expected === null
          ? '(attribute_not_exists(assignee) OR assignee = :nobody)'
          : 'assignee.subject = :expected',
      values: {
        ':to': to === null ? null : { subject: to.subject, name: to.name },
        ':at': at,
        ...(expected === null ? { ':nobody': null } : { ':expected': expected }),
      },
    });
  }

  async addComment(key: RowKey, comment: CaseComment): Promise<boolean> {
    return this.#update(key, {
      set: 'comments = list_append(if_not_exists(comments, :none), :comment)',
      condition: '(attribute_not_exists(comments) OR size(comments) < :most)',
      values: { ':none': [], ':comment': [structuredClone(comment)], ':most': MAX_CASE_COMMENTS },
    });
  }

  /** One conditional update of a case, creating it when absent; false when the condition failed. */
  async #update(
    key: RowKey,
    change: { readonly set: string; readonly condition: string; readonly values: Record<string, unknown> },
  ): Promise<boolean> {
    const now = (this.config.now ?? Date.now)();
    try {
      await this.config.client.send(
        new UpdateCommand({
          TableName: this.config.tableName,
          Key: caseKey(key),
          UpdateExpression: `SET batchId = :batchId, #row = :row, expiresAt = if_not_exists(expiresAt, :expires), ${change.set}`,
          ConditionExpression: change.condition,
          ExpressionAttributeNames: { '#row': 'row' },
          ExpressionAttributeValues: {
            ':batchId': key.batchId,
            ':row': key.row,
            ':expires': Math.floor(now / 1000) + this.config.retentionDays * 86_400,
            ...change.values,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
