import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { screenDocuments, type WorkerDependencies } from '../../application/worker/screen-documents.ts';

/** Time kept back from Lambda's deadline to give claimed rows back before the function is stopped. */
const DEADLINE_MARGIN_MS = 5_000;

/** The worker Lambda: an SQS event source with ReportBatchItemFailures. */
export function createWorkerHandler(deps: WorkerDependencies) {
  return async (
    event: SQSEvent,
    context?: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<SQSBatchResponse> => {
    const remaining = context?.getRemainingTimeInMillis();
    const signal =
      remaining === undefined
        ? undefined
        : AbortSignal.timeout(Math.max(1_000, remaining - DEADLINE_MARGIN_MS));
    return screenDocuments(
      event.Records.map((record) => ({
        messageId: record.messageId,
        receiptHandle: record.receiptHandle,
        body: record.body,
      })),
      deps,
      signal,
    );
  };
}
