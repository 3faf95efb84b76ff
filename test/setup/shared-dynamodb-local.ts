import type { TestProject } from 'vitest/node';
import { startSharedDynamoDbLocal } from '../../tools/local/local-stack.ts';

/**
 * One DynamoDB Local for the whole run, which every stack without a state directory shares, each in a table of
 * its own (see `test/factories/shared-dynamodb.ts`). A Java start per stack cost about two seconds of wall time and
 * more of CPU, and the shared server's compiled code stays warm from one file to the next.
 */
export default async function startForTheRun(project: TestProject): Promise<() => Promise<void>> {
  const dynamoDb = await startSharedDynamoDbLocal();
  project.provide('sharedDynamoDbEndpoint', dynamoDb.endpoint);
  return () => dynamoDb.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The endpoint of the run's shared DynamoDB Local. */
    sharedDynamoDbEndpoint: string;
  }
}
