import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { screenDocuments, type WorkerDependencies } from '../../src/application/worker/screen-documents.ts';

/** Time kept back from Lambda's deadline, beyond a bureau call's own timeout, to settle or give rows back. */
const SETTLE_MARGIN_MS = 1_000;
/** Whatever the timeouts, an invocation gets at least this long before it stops starting calls. */
const MIN_CALLING_MS = 1_000;

/**
 * How long an invocation may start bureau calls: no call starts later than its own timeout (and the settle after
 * it) before the function is stopped, since a call cut by Lambda's timeout could be charged with no answer kept.
 * Rows still waiting then come back as new messages.
 */
export function callingTimeMs(remainingMs: number, bureauTimeoutSeconds: number): number {
  return Math.max(MIN_CALLING_MS, remainingMs - bureauTimeoutSeconds * 1000 - SETTLE_MARGIN_MS);
}

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
        : AbortSignal.timeout(callingTimeMs(remaining, deps.settings.bureauTimeoutSeconds));
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
