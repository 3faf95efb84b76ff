import { Duration, Validations } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { type PipelineQueue, type PipelineSettings, queueSpecs } from '../../src/contract/index.ts';

/** The pipeline's queues, by the contract's names. */
export type PipelineQueues = Readonly<Record<PipelineQueue, sqs.Queue>>;

/** Construct id of each queue, in creation order: a dead-letter queue before the queue that redrives to it. */
const QUEUE_IDS: readonly (readonly [PipelineQueue, string])[] = [
  ['workDeadLetter', 'WorkDeadLetterQueue'],
  ['work', 'WorkQueue'],
  ['finaliseDeadLetter', 'FinaliseDeadLetterQueue'],
  ['finalise', 'FinaliseQueue'],
  ['dispatchDeadLetter', 'DispatchDeadLetterQueue'],
  ['dispatch', 'DispatchQueue'],
];

/** The work, finalise and dispatch queues with their dead-letter queues, encrypted with the pipeline key, as the contract sets them. */
export function createQueues(scope: Construct, key: kms.IKey, settings: PipelineSettings): PipelineQueues {
  const specs = queueSpecs(settings);
  const queues = new Map<PipelineQueue, sqs.Queue>();
  for (const [name, id] of QUEUE_IDS) {
    const { visibilityTimeoutSeconds, retentionSeconds, deadLetter } = specs[name];
    const deadLetterQueue = deadLetter && queues.get(deadLetter.queue);
    if (deadLetter && !deadLetterQueue) throw new Error(`queue ${name}: its dead-letter queue comes first`);
    const created = new sqs.Queue(scope, id, {
      encryption: sqs.QueueEncryption.KMS,
      encryptionMasterKey: key,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(visibilityTimeoutSeconds),
      retentionPeriod: Duration.seconds(retentionSeconds),
      deadLetterQueue:
        deadLetter && deadLetterQueue
          ? { queue: deadLetterQueue, maxReceiveCount: deadLetter.maxReceiveCount }
          : undefined,
    });
    queues.set(name, created);
  }
  const byName = (name: PipelineQueue): sqs.Queue => {
    const queue = queues.get(name);
    if (!queue) throw new Error(`queue ${name} was not created`);
    return queue;
  };
  const created: PipelineQueues = {
    work: byName('work'),
    workDeadLetter: byName('workDeadLetter'),
    finalise: byName('finalise'),
    finaliseDeadLetter: byName('finaliseDeadLetter'),
    dispatch: byName('dispatch'),
    dispatchDeadLetter: byName('dispatchDeadLetter'),
  };
  for (const deadLetter of [created.workDeadLetter, created.finaliseDeadLetter, created.dispatchDeadLetter]) {
    Validations.of(deadLetter).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself a dead-letter queue.',
    });
  }
  return created;
}
