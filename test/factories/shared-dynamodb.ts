import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { LocalStackError, type SharedDynamoDb } from '../../tools/local/local-stack.ts';

/** A table of its own on the run's shared DynamoDB Local (`test/setup/shared-dynamodb-local.ts`), for one stack. */
export function sharedDynamoDb(): SharedDynamoDb {
  const shared = inject('sharedDynamoDb');
  if ('unavailable' in shared) throw new LocalStackError(shared.unavailable);
  return { endpoint: shared.endpoint, tableName: `credit-screen-${randomUUID()}` };
}
