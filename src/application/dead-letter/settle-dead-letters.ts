import { answerKey } from '../../contract/index.ts';
import { parseMessage, workMessageSchema } from '../../domain/batch/index.ts';
import type {
  BatchRecords,
  BatchRows,
  Logger,
  ObjectStore,
  QueueRecord,
  WorkQueue,
} from '../../domain/ports/index.ts';
import { finaliseIfLast } from '../completion/finalise-if-last.ts';

export interface DeadLetterDependencies {
  readonly batchRecords: BatchRecords;
  readonly batchRows: BatchRows;
  readonly objects: ObjectStore;
  readonly queue: WorkQueue;
  readonly logger: Logger;
}

const REASON = 'failed: the work message reached the dead-letter queue after repeated failures';

/**
 * Settles as failed every row whose message SQS gave up on, so its batch still completes (nothing is lost), and
 * finalises the batch when that was its last row. Messages that are not work messages are logged and dropped.
 * A row whose answer was persisted (a worker kept failing after the bureau answered) is recorded as charged.
 */
export async function settleDeadLetters(
  records: readonly QueueRecord[],
  deps: DeadLetterDependencies,
): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const failures: { itemIdentifier: string }[] = [];
  for (const record of records) {
    const message = parseMessage(workMessageSchema, record.body);
    if (message === null) {
      deps.logger.error('dead letter is not a work message; dropped', { messageId: record.messageId });
      continue;
    }
    try {
      const answered = await deps.objects.exists(answerKey(message.bureau, message.batchId, message.row));
      if (
        await deps.batchRows.settleAbandonedRow(message.batchId, message.row, { reason: REASON, answered })
      ) {
        deps.logger.warn('row settled as failed from the dead-letter queue', {
          batchId: message.batchId,
          row: message.row,
        });
        await finaliseIfLast(message.batchId, deps);
      }
    } catch (error) {
      deps.logger.error('could not settle a dead letter; retried', {
        messageId: record.messageId,
        error: String(error),
      });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
