import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { LocalServicesError, type SharedDynamoDb } from '../../cli/local/local-services.ts';

/** A table of its own on the run's shared DynamoDB Local (`test/setup/shared-dynamodb-local.ts`), for one stack. */
export function sharedDynamoDb(): SharedDynamoDb {
  const shared = inject('sharedDynamoDb');
  if ('unavailable' in shared) throw new LocalServicesError(shared.unavailable);
  return { endpoint: shared.endpoint, tableName: `credit-screen-${randomUUID()}` };
}
