import type { TestProject } from 'vitest/node';
import { LocalServicesError, startSharedDynamoDbLocal } from '../../cli/local/local-services.ts';

/**
 * One DynamoDB Local for the whole run, which every stack without a state directory shares, each in a table of
 * its own (see `test/factories/shared-dynamodb.ts`). A Java start per stack cost about two seconds of wall time and
 * more of CPU, and the shared server's compiled code stays warm from one file to the next. Without Java the unit
 * tests still run: the reason goes to the tests that need the server, which fail with it.
 */
export default async function startForTheRun(
  project: TestProject,
): Promise<(() => Promise<void>) | undefined> {
  try {
    const dynamoDb = await startSharedDynamoDbLocal();
    project.provide('sharedDynamoDb', { endpoint: dynamoDb.endpoint });
    return () => dynamoDb.stop();
  } catch (error) {
    if (!(error instanceof LocalServicesError)) throw error;
    project.provide('sharedDynamoDb', { unavailable: error.message });
    return undefined;
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's shared DynamoDB Local: its endpoint, or why it could not start. */
    sharedDynamoDb: { readonly endpoint: string } | { readonly unavailable: string };
  }
}
