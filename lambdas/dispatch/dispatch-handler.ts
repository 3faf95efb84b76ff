import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type DispatchDependencies, dispatchRows } from '../../src/application/queueing/dispatch-rows.ts';
import { dispatchMessageSchema, parseMessage } from '../../src/domain/batch/index.ts';

/**
 * The dispatch Lambda: for each message of the dispatch queue, splits a whole batch into parts or sends one part's
 * work messages. A part that fails is retried alone (partial batch failure), and dead-letters after the queue's
 * receive count, with an alarm.
 */
export function createDispatchHandler(deps: DispatchDependencies) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failures: { itemIdentifier: string }[] = [];
    for (const record of event.Records) {
      const message = parseMessage(dispatchMessageSchema, record.body);
      if (message === null) {
        deps.logger.error('not a dispatch message; dropped', { messageId: record.messageId });
        continue;
      }
      try {
        const outcome = await dispatchRows(message, deps);
        if (outcome.outcome === 'not_found' || outcome.outcome === 'awaiting_approval')
          deps.logger.warn('nothing dispatched', { ...outcome });
      } catch (error) {
        deps.logger.error('dispatch failed; retried', { batchId: message.batchId, error: String(error) });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}
