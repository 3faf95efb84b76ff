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
import { isReportArchive, type ReportArchive } from '../../domain/report/index.ts';
import { finaliseIfLast } from '../completion/finalise-if-last.ts';
import { type BureauRequestFacts, bureauRequestEntry } from '../worker/audit-trail.ts';

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
      const archive = await persistedAnswer(message, deps);
      const answered = archive !== null;
      const [before] = await deps.batchRows.getRows(message.batchId, [message.row]);
      if (
        await deps.batchRows.settleAbandonedRow(message.batchId, message.row, { reason: REASON, answered })
      ) {
        deps.logger.warn('row settled as failed from the dead-letter queue', {
          batchId: message.batchId,
          row: message.row,
        });
        // Its holders audit a request once they settle it: none did, so this handler records it.
        if (archive !== null && archive !== 'unreadable')
          await auditRequest(
            message,
            { at: archive.fetchedAt, charge: 'charged', httpStatus: archive.httpStatus },
            deps,
          );
        else if (before?.callPending)
          await auditRequest(message, lostCallFacts(before.callSentAt ?? null), deps);
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
 * What a holder persisted under the row's answer key: null when nothing (no call was answered), `unreadable` when
 * an object is there that is not this document's answer (it still says the bureau answered, so it was charged).
 */
async function persistedAnswer(
  message: WorkMessage,
  deps: DeadLetterDependencies,
): Promise<ReportArchive | 'unreadable' | null> {
  const text = await deps.objects.readTextIfExists(answerKey(message.bureau, message.batchId, message.row));
  if (text === null) return null;
  try {
    const archive: unknown = JSON.parse(text);
    return isReportArchive(archive) && archive.document === message.document ? archive : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/**
 * A call the row's holders wrote ahead and none of them saw answered: it left and may have been charged. Recorded
 * at the instant it was written ahead, so a holder that audited it already made the same entry, kept once.
 */
const lostCallFacts = (callSentAt: number | null) => ({
  at: new Date(callSentAt ?? Date.now()).toISOString(),
  charge: 'charge_unknown' as const,
  httpStatus: null,
});

/** Audits a request of a dead-lettered row. An entry that cannot be written is logged; the row settles anyway. */
async function auditRequest(
  message: WorkMessage,
  request: Pick<BureauRequestFacts, 'at' | 'charge' | 'httpStatus'>,
  deps: DeadLetterDependencies,
): Promise<void> {
  if (deps.audit === undefined || deps.auditBasis === undefined) return;
  try {
    const documentKey = await deps.audit.documentKeys.keyOf(message.document);
    await deps.audit.log.append([
      bureauRequestEntry({ ...request, message, basis: deps.auditBasis }, documentKey),
    ]);
  } catch (error) {
    deps.logger.error('could not write the audit entry', {
      batchId: message.batchId,
      row: message.row,
      error: String(error),
    });
  }
}
