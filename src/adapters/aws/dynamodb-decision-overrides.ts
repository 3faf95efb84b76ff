import { PutCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { DECISION_VALUES, type DecisionOverride, OVERRIDE_VALUES } from '../../domain/decision/index.ts';
import type { DecisionOverrides } from '../../domain/ports/index.ts';
import { isConditionFailure } from './dynamodb-conditions.ts';
import { parseItem } from './dynamodb-items.ts';
import type { PipelineTableConfig } from './dynamodb-pipeline-table.ts';

export const OVERRIDE_PREFIX = 'OVERRIDE#';

/** Beside the batch's rows, in row order then time order: one query reads a batch's overrides. */
const overrideKey = (override: Pick<DecisionOverride, 'batchId' | 'row' | 'at'>) => ({
  pk: `BATCH#${override.batchId}`,
  sk: `${OVERRIDE_PREFIX}${String(override.row).padStart(9, '0')}#${override.at}`,
});

const overrideItemSchema = z.object({
  batchId: z.string(),
  row: z.number().int().positive(),
  decision: z.enum(OVERRIDE_VALUES),
  credit_limit: z.number().nonnegative().nullable(),
  reason: z.string(),
  by: z.string(),
  at: z.string(),
  previous: z.enum(DECISION_VALUES),
}) satisfies z.ZodType<DecisionOverride>;

/**
 * Overrides as items of the pipeline table, beside their batch's rows and expiring with them. Append-only: each is
 * put once under its row and time (`attribute_not_exists`), never updated; a later override of the same row is a
 * new item.
 */
export class DynamoDbDecisionOverrides implements DecisionOverrides {
  constructor(private readonly config: PipelineTableConfig) {}

  async recordOverride(override: DecisionOverride): Promise<void> {
    const now = (this.config.now ?? Date.now)();
    try {
      await this.config.client.send(
        new PutCommand({
          TableName: this.config.tableName,
          Item: {
            ...overrideKey(override),
            ...override,
            expiresAt: Math.floor(now / 1000) + this.config.retentionDays * 86_400,
          },
          ConditionExpression: 'attribute_not_exists(sk)',
        }),
      );
    } catch (error) {
      if (isConditionFailure(error))
        throw new Error(`an override of row ${override.row} at ${override.at} is recorded already`);
      throw error;
    }
  }

  async overridesOf(batchId: string): Promise<DecisionOverride[]> {
    const found: DecisionOverride[] = [];
    const pages = paginateQuery(
      { client: this.config.client },
      {
        TableName: this.config.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `BATCH#${batchId}`, ':prefix': OVERRIDE_PREFIX },
      },
    );
    for await (const page of pages)
      for (const item of page.Items ?? []) found.push(parseItem(overrideItemSchema, item, 'override'));
    return found;
  }
}
