/** What the local runner builds, as plain data, and the names it gives what it creates. */

import type { PipelineResources } from '../../lambdas/shared/pipeline-adapters.ts';
import {
  type EventSourceSpec,
  eventSourceSpecs,
  type FunctionSpec,
  functionSpecs,
  type PipelineFunction,
  type PipelineQueue,
  type PipelineSettings,
  type QueueSpec,
  queueSpecs,
  TABLE,
} from '../../src/contract/index.ts';

/** Names of the local resources (in AWS, CloudFormation names them). */
export const LOCAL_NAMES = {
  table: 'credit-screen',
  bucket: 'credit-screen-local',
  workQueue: 'credit-screen-work',
  workDeadLetterQueue: 'credit-screen-work-dlq',
  finaliseQueue: 'credit-screen-finalise',
  finaliseDeadLetterQueue: 'credit-screen-finalise-dlq',
  dispatchQueue: 'credit-screen-dispatch',
  dispatchDeadLetterQueue: 'credit-screen-dispatch-dlq',
} as const;

/** A queue as the local runner creates it: the SQS settings of its {@link QueueSpec}, and its name. */
type LocalQueue = Omit<QueueSpec, 'oldestMessageAlarmSeconds'> & { readonly name: string };

/**
 * What the local runner builds, as plain data: the table's keys, the queues with their visibility, retention and
 * redrive, the functions' memory and timeouts, and the SQS event sources that feed them. {@link LocalServices} creates
 * exactly this and the local pipeline polls with it; the drift test compares it with the synthesized template.
 */
export interface LocalPipelineDescription {
  readonly table: typeof TABLE;
  readonly queues: Readonly<Record<PipelineQueue, LocalQueue>>;
  readonly functions: Readonly<Record<PipelineFunction, FunctionSpec>>;
  readonly eventSources: readonly EventSourceSpec[];
  /** Whether work messages carry fair-queue message groups (the local event source then orders them fairly). */
  readonly fairQueues: boolean;
}

const QUEUE_NAMES: Readonly<Record<PipelineQueue, string>> = {
  work: LOCAL_NAMES.workQueue,
  workDeadLetter: LOCAL_NAMES.workDeadLetterQueue,
  finalise: LOCAL_NAMES.finaliseQueue,
  finaliseDeadLetter: LOCAL_NAMES.finaliseDeadLetterQueue,
  dispatch: LOCAL_NAMES.dispatchQueue,
  dispatchDeadLetter: LOCAL_NAMES.dispatchDeadLetterQueue,
};

/** The local runner's resources for `settings`, from the definition the CDK construct reads too. */
export function describeLocalPipeline(settings: PipelineSettings): LocalPipelineDescription {
  const specs = queueSpecs(settings);
  const queues = Object.fromEntries(
    (Object.keys(specs) as PipelineQueue[]).map((queue) => {
      // No alarm runs on this machine: its threshold is the construct's alone.
      const { oldestMessageAlarmSeconds: _alarm, ...queueSettings } = specs[queue];
      return [queue, { ...queueSettings, name: QUEUE_NAMES[queue] }];
    }),
  ) as LocalPipelineDescription['queues'];
  return {
    table: TABLE,
    queues,
    functions: functionSpecs(settings),
    eventSources: eventSourceSpecs(settings),
    fairQueues: settings.fairQueues,
  };
}

export interface LocalResources extends PipelineResources {
  readonly workDeadLetterQueueUrl: string;
  readonly finaliseDeadLetterQueueUrl: string;
  readonly dispatchDeadLetterQueueUrl: string;
}
