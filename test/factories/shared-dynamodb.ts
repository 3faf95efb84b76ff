import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import type { SharedDynamoDb } from '../../tools/local/local-stack.ts';

/** A table of its own on the run's shared DynamoDB Local (`test/setup/shared-dynamodb-local.ts`), for one stack. */
export function sharedDynamoDb(): SharedDynamoDb {
  return { endpoint: inject('sharedDynamoDbEndpoint'), tableName: `credit-screen-${randomUUID()}` };
}
