import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import {
  type FinaliseDependencies,
  handleFinaliseMessage,
} from '../../src/application/finalise/finalise-batch.ts';
import { finaliseMessageSchema, parseMessage } from '../../src/domain/batch/index.ts';

/**
 * The finaliser Lambda: writes the results of each batch named by a message of the finalise queue, or the part of
 * them a message names, or joins a big batch's parts.
 */
export function createFinaliseHandler(deps: FinaliseDependencies) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failures: { itemIdentifier: string }[] = [];
    for (const record of event.Records) {
      const message = parseMessage(finaliseMessageSchema, record.body);
      if (message === null) {
        deps.logger.error('not a finalise message; dropped', { messageId: record.messageId });
        continue;
      }
      try {
        await handleFinaliseMessage(message, deps);
      } catch (error) {
        deps.logger.error('finalisation failed; retried', { batchId: message.batchId, error: String(error) });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}
