/** The pipeline's SQS queues: their visibility, retention and redrive, and how a fair queue orders its tenants. */

import type { PipelineSettings } from './settings.ts';

/** Visibility timeout of the work queue: six times the worker timeout (AWS's guidance for Lambda SQS sources). */
export function workQueueVisibilitySeconds(settings: PipelineSettings): number {
  return settings.workerTimeoutSeconds * 6;
}

/**
 * The dispatcher's timeout (its queue's visibility is six times it): a part of a batch is seconds of work, and five
 * minutes leave it room when SQS or DynamoDB throttle.
 */
export const DISPATCH_TIMEOUT_SECONDS = 300;

/** The pipeline's queues. */
export type PipelineQueue =
  | 'work'
  | 'workDeadLetter'
  | 'finalise'
  | 'finaliseDeadLetter'
  | 'dispatch'
  | 'dispatchDeadLetter';

/** A queue's settings; `deadLetter` names the queue SQS moves a message to after `maxReceiveCount` receives. */
export interface QueueSpec {
  readonly visibilityTimeoutSeconds: number;
  readonly retentionSeconds: number;
  /**
   * The age of the queue's oldest message at which its alarm fires: half the retention. SQS deletes an older message
   * without a trace, so a backlog (a long batch at a low rate, dead letters no one looked at) is reported while
   * half the retention is still left to act on it.
   */
  readonly oldestMessageAlarmSeconds: number;
  readonly deadLetter?: { readonly queue: PipelineQueue; readonly maxReceiveCount: number };
}

/** SQS's longest retention: a message waits as long as SQS allows for a worker or an operator. */
export const QUEUE_RETENTION_SECONDS = 14 * 24 * 3600;

/**
 * How old a running batch's work messages may get before the sweeper dispatches its rows still queued again: two
 * days before SQS would delete them, after the work queue's age alarm (half the retention) has had days to be
 * seen. A row then has two messages for a while (harmless: it is claimed once), and never none.
 */
export const RENEW_MESSAGES_AFTER_SECONDS = QUEUE_RETENTION_SECONDS - 2 * 24 * 3600;

/**
 * The age of a queue's oldest message at which its alarm fires, for a queue that keeps messages `retentionSeconds`:
 * half of it, so half the retention is left to act before SQS deletes the message without a trace.
 */
export const oldestMessageAlarmSecondsFor = (retentionSeconds: number): number => retentionSeconds / 2;

/**
 * Every queue with its visibility and redrive. The finalise and dispatch queues' visibility outlasts their
 * function's timeout six times over, as AWS recommends for SQS event sources; dead-letter queues are only read by
 * their consumer (or an operator, for the dispatcher's).
 */
export function queueSpecs(settings: PipelineSettings): Readonly<Record<PipelineQueue, QueueSpec>> {
  const redrive = (queue: PipelineQueue) => ({ queue, maxReceiveCount: settings.maxReceiveCount });
  const retention = {
    retentionSeconds: QUEUE_RETENTION_SECONDS,
    oldestMessageAlarmSeconds: oldestMessageAlarmSecondsFor(QUEUE_RETENTION_SECONDS),
  };
  return {
    workDeadLetter: { visibilityTimeoutSeconds: 300, ...retention },
    work: {
      visibilityTimeoutSeconds: workQueueVisibilitySeconds(settings),
      ...retention,
      deadLetter: redrive('workDeadLetter'),
    },
    finaliseDeadLetter: { visibilityTimeoutSeconds: 300, ...retention },
    finalise: {
      visibilityTimeoutSeconds: 5400,
      ...retention,
      deadLetter: redrive('finaliseDeadLetter'),
    },
    dispatchDeadLetter: { visibilityTimeoutSeconds: 300, ...retention },
    dispatch: {
      visibilityTimeoutSeconds: DISPATCH_TIMEOUT_SECONDS * 6,
      ...retention,
      deadLetter: redrive('dispatchDeadLetter'),
    },
  };
}

/**
 * Amazon SQS fair queues as AWS documents them ("How Amazon SQS fair queues work", SQS Developer Guide), the
 * behaviour the local event source reproduces (fauxqs keeps no message group on a standard queue). A tenant is a
 * `MessageGroupId`; a message without one is a tenant of its own. A tenant is noisy when it holds more than
 * `noisyInFlightShare` of the messages in flight with at least `noisyMinimumInFlight` of its own, or more than
 * `noisyProcessingShare` of the recent processing time. While any quiet tenant has a message waiting, consumers get
 * quiet tenants' messages; among noisy tenants, the one with the fewest messages in flight goes first. Noisy
 * messages are never dropped nor throttled, only served later.
 */
export const FAIR_QUEUE_BEHAVIOUR = {
  tenantAttribute: 'MessageGroupId',
  noisyInFlightShare: 0.1,
  noisyMinimumInFlight: 30,
  noisyProcessingShare: 0.1,
  /** How far back "recent processing time" looks (AWS gives no figure; a minute, several worker batches). */
  processingWindowSeconds: 60,
} as const;

/**
 * The longest a batch's queries may take, in seconds. The pipeline queues every row of a batch at once, so its work
 * queue's oldest message is as old as the batch: a batch may run until that queue's alarm would fire (half its
 * retention, the other half left for retries, a paused batch or a bureau slower than its rate), and no longer than
 * nine tenths of the rows' retention period (their items expire).
 */
export function longestBatchSeconds(settings: PipelineSettings): number {
  const alarm = queueSpecs(settings).work.oldestMessageAlarmSeconds;
  return Math.floor(Math.min(alarm, settings.retentionDays * 86_400 * 0.9));
}
