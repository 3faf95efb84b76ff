import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import {
  type DeadLetterDependencies,
  settleDeadLetters,
} from '../../src/application/dead-letter/settle-dead-letters.ts';

/** The dead-letter Lambda: settles rows whose work messages SQS gave up on. */
export function createDeadLetterHandler(deps: DeadLetterDependencies) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> =>
    settleDeadLetters(
      event.Records.map((record) => ({
        messageId: record.messageId,
        receiptHandle: record.receiptHandle,
        body: record.body,
      })),
      deps,
    );
}
