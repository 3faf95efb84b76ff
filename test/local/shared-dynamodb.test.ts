import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/contract/index.ts';
import { LocalStack, LocalStackError } from '../../tools/local/local-stack.ts';
import { sharedDynamoDb } from '../factories/shared-dynamodb.ts';

describe('LocalStack on a shared DynamoDB Local', () => {
  it('keeps each stack in its own table, and drops only that table when it stops', async () => {
    const first = await LocalStack.start(DEFAULT_SETTINGS, { sharedDynamoDb: sharedDynamoDb() });
    const second = await LocalStack.start(DEFAULT_SETTINGS, { sharedDynamoDb: sharedDynamoDb() });
    try {
      const key = { pk: 'BATCH#same', sk: 'META' };
      await first.clients.dynamo.send(
        new PutCommand({ TableName: first.resources.tableName, Item: { ...key, owner: 'first' } }),
      );

      const seenBySecond = await second.clients.dynamo.send(
        new GetCommand({ TableName: second.resources.tableName, Key: key }),
      );
      await first.stop();
      const tables = await second.clients.dynamo.send(new ListTablesCommand({}));

      expect(first.resources.tableName).not.toBe(second.resources.tableName);
      expect(seenBySecond.Item).toBeUndefined();
      expect(tables.TableNames).toContain(second.resources.tableName);
      expect(tables.TableNames).not.toContain(first.resources.tableName);
    } finally {
      await second.stop();
    }
  });

  it('refuses a state directory, whose database needs a DynamoDB Local of its own', async () => {
    const stateDirectory = await mkdtemp(join(tmpdir(), 'credit-screen-shared-'));

    const starting = LocalStack.start(DEFAULT_SETTINGS, { stateDirectory, sharedDynamoDb: sharedDynamoDb() });

    await expect(starting).rejects.toThrow(LocalStackError);
    await expect(starting).rejects.toThrow('a state directory needs a DynamoDB Local of its own');
  });
});
