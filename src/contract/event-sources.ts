/** Which queue feeds which function, and how. */

import type { PipelineFunction } from './functions.ts';
import type { PipelineQueue } from './queues.ts';
import type { PipelineSettings } from './settings.ts';

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
 * The SQS event sources. Dead letters and finalising are rare and short, so two invocations at once suffice (two
 * is the smallest MaximumConcurrency Lambda accepts).
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
      maxConcurrency: 2,
      reportBatchItemFailures: true,
    },
  ];
}
