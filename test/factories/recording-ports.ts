import type { DispatchMessage, FinaliseMessage, WorkMessage } from '../../src/domain/batch/index.ts';
import type { MessageVisibility, QueueRecord, WorkQueue } from '../../src/domain/ports/index.ts';

/** A work queue that keeps what is sent, so a test decides when (and how often) each message is delivered. */
export class RecordingWorkQueue implements WorkQueue {
  readonly work: WorkMessage[] = [];
  readonly finalise: FinaliseMessage[] = [];
  /** Fails the n-th `sendWork` call (1-based), as an ingest interrupted mid-file would. */
  failOnSend: number | null = null;
  #sends = 0;

  async sendWork(messages: readonly WorkMessage[]): Promise<void> {
    this.#sends++;
    if (this.#sends === this.failOnSend) throw new Error('SQS unreachable (simulated)');
    this.work.push(...messages);
  }

  /** Messages sent again with a delay (a row waiting for another batch's purchase), in order. */
  readonly deferred: { message: WorkMessage; delaySeconds: number }[] = [];

  async deferWork(message: WorkMessage, delaySeconds: number): Promise<void> {
    this.deferred.push({ message, delaySeconds });
    this.work.push(message);
  }

  async sendFinalise(message: FinaliseMessage): Promise<void> {
    this.finalise.push(message);
  }

  /** Dispatches asked for, in order (a test runs the dispatcher on them when it wants the rows sent). */
  readonly dispatch: DispatchMessage[] = [];

  async sendDispatch(messages: readonly DispatchMessage[]): Promise<void> {
    this.dispatch.push(...messages);
  }
}

export class RecordingVisibility implements MessageVisibility {
  readonly delays: { receiptHandle: string; seconds: number }[] = [];
  async delay(receiptHandle: string, seconds: number): Promise<void> {
    this.delays.push({ receiptHandle, seconds });
  }
}

let sequence = 0;
/** A queue record carrying a message, as SQS would deliver it (each delivery has its own id). */
export function deliveryOf(message: WorkMessage): QueueRecord {
  sequence++;
  return {
    messageId: `delivery-${sequence}`,
    receiptHandle: `receipt-${sequence}`,
    body: JSON.stringify(message),
  };
}
