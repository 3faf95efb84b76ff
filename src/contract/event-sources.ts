/** Which queue feeds which function, and how. */

import type { PipelineFunction } from './functions.ts';
import type { PipelineQueue } from './queues.ts';
import type { PipelineSettings } from './settings.ts';

/** Dispatch parts at work at once. */
const DISPATCH_CONCURRENCY = 4;

/**
 * Finalise messages at work at once: the parts of a big batch's finalisation run side by side (a million rows is
 * 20 parts of about 20 s each at most, bench:scale), so its results follow its last row within a couple of
 * minutes; small batches take one invocation each, as before.
 */
const FINALISE_CONCURRENCY = 8;

/** An SQS event source mapping: which queue feeds which function, and how (always with partial batch failures). */
export interface EventSourceSpec {
  readonly function: PipelineFunction;
  readonly queue: PipelineQueue;
  readonly batchSize: number;
  readonly batchingWindowSeconds: number;
  readonly maxConcurrency: number;
  readonly reportBatchItemFailures: true;
}

/**
 * The SQS event sources. Dead letters are rare and short, so two invocations at once suffice (two is the smallest
 * MaximumConcurrency Lambda accepts); finalising runs a big batch's parts side by side. A dispatch's parts run a few at a time: each sends its rows'
 * messages in seconds, so the first bureau calls of a large batch start at once and its rows are all queued in
 * minutes, without crowding the account's concurrency.
 */
export function eventSourceSpecs(settings: PipelineSettings): readonly EventSourceSpec[] {
  return [
    {
      function: 'worker',
      queue: 'work',
      batchSize: settings.workerBatchSize,
      batchingWindowSeconds: settings.workerBatchingWindowSeconds,
      maxConcurrency: settings.workerConcurrency,
      reportBatchItemFailures: true,
    },
    {
      function: 'deadLetter',
      queue: 'workDeadLetter',
      batchSize: 10,
      batchingWindowSeconds: 0,
      maxConcurrency: 2,
      reportBatchItemFailures: true,
    },
    {
      function: 'finalise',
      queue: 'finalise',
      batchSize: 1,
      batchingWindowSeconds: 0,
      maxConcurrency: FINALISE_CONCURRENCY,
      reportBatchItemFailures: true,
    },
    {
      function: 'dispatch',
      queue: 'dispatch',
      batchSize: 1,
      batchingWindowSeconds: 0,
      maxConcurrency: DISPATCH_CONCURRENCY,
      reportBatchItemFailures: true,
    },
  ];
}
