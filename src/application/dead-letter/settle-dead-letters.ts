import { answerKey } from '../../contract/index.ts';
import type { WorkMessage } from '../../domain/batch/index.ts';
import { parseMessage, workMessageSchema } from '../../domain/batch/index.ts';
import type {
  AuditLog,
  BatchRecords,
  BatchRows,
  DocumentKeys,
  Logger,
  ObjectStore,
  QueueRecord,
  WorkQueue,
} from '../../domain/ports/index.ts';
import { finaliseIfLast } from '../completion/finalise-if-last.ts';
import { bureauRequestEntry } from '../worker/audit-trail.ts';

export interface DeadLetterDependencies {
  readonly batchRecords: BatchRecords;
  readonly batchRows: BatchRows;
  readonly objects: ObjectStore;
  readonly queue: WorkQueue;
  readonly logger: Logger;
  /** Where a call the row's holders left unanswered is audited; without it, nothing is. */
  readonly audit?: { readonly log: AuditLog; readonly documentKeys: DocumentKeys };
  /** Why queries are made and on what legal ground, as the deployment configures them (the audit entry's). */
  readonly auditBasis?: { readonly purpose: string; readonly legalBasis: string };
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
      const [before] = await deps.batchRows.getRows(message.batchId, [message.row]);
      if (
        await deps.batchRows.settleAbandonedRow(message.batchId, message.row, { reason: REASON, answered })
      ) {
        deps.logger.warn('row settled as failed from the dead-letter queue', {
          batchId: message.batchId,
          row: message.row,
        });
        if (before?.callPending && !answered) await auditLostCall(message, before.callSentAt ?? null, deps);
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

/**
 * A row's holders wrote a call ahead and none of them learnt its answer: that request left and may have been
 * charged, so the audit counts it (at the instant it was written ahead: a holder that audited it already made the
 * same entry, kept once). An entry that cannot be written is logged, and never keeps the row from settling.
 */
async function auditLostCall(
  message: WorkMessage,
  callSentAt: number | null,
  deps: DeadLetterDependencies,
): Promise<void> {
  if (deps.audit === undefined || deps.auditBasis === undefined) return;
  const at = new Date(callSentAt ?? Date.now()).toISOString();
  const facts = { message, at, charge: 'charge_unknown' as const, httpStatus: null, basis: deps.auditBasis };
  try {
    const documentKey = await deps.audit.documentKeys.keyOf(message.document);
    await deps.audit.log.append([bureauRequestEntry(facts, documentKey)]);
  } catch (error) {
    deps.logger.error('could not write the audit entry', {
      batchId: message.batchId,
      row: message.row,
      error: String(error),
    });
  }
}
