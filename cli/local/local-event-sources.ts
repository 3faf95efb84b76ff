import { FAIR_QUEUE_BEHAVIOUR, type PipelineFunction, type PipelineQueue } from '../../src/contract/index.ts';
import { messageGroupFor, parseMessage, workMessageSchema } from '../../src/domain/batch/index.ts';
import type { LocalServices } from './local-services.ts';
import { type FairQueueEmulation, SqsEventSource, type SqsEventSourceOptions } from './sqs-event-source.ts';

/** A function's handler as an SQS event source invokes it. */
type QueueHandler = SqsEventSourceOptions['handler'];

/**
 * The event sources the construct declares, each feeding its function's handler, with the functions' timeouts and
 * the queue's settings from the shared definition, as Lambda would poll them.
 */
export function localEventSources(
  stack: LocalServices,
  handlers: Readonly<Record<string, QueueHandler>>,
  onInvocationError: (error: unknown) => void,
): Map<PipelineFunction, SqsEventSource> {
  const { description, resources } = stack;
  const queueUrls: Readonly<Record<PipelineQueue, string>> = {
    work: resources.workQueueUrl,
    workDeadLetter: resources.workDeadLetterQueueUrl,
    finalise: resources.finaliseQueueUrl,
    finaliseDeadLetter: resources.finaliseDeadLetterQueueUrl,
    dispatch: resources.dispatchQueueUrl,
    dispatchDeadLetter: resources.dispatchDeadLetterQueueUrl,
  };
  // The event sources the construct declares, with their functions' timeouts, from the shared definition.
  return new Map(
    description.eventSources.map((source) => {
      const handler = handlers[source.function as keyof typeof handlers];
      if (handler === undefined) throw new Error(`no local handler for ${source.function}`);
      return [
        source.function,
        new SqsEventSource({
          sqs: stack.clients.sqs,
          queueUrl: queueUrls[source.queue],
          batchSize: source.batchSize,
          batchingWindowSeconds: source.batchingWindowSeconds,
          maxConcurrency: source.maxConcurrency,
          functionTimeoutSeconds: description.functions[source.function].timeoutSeconds,
          handler,
          onInvocationError,
          ...(source.queue === 'work' && description.fairQueues
            ? { fairQueue: workQueueFairness(description.queues.work.visibilityTimeoutSeconds) }
            : {}),
        }),
      ];
    }),
  );
}

/**
 * The work queue is an SQS fair queue in AWS; fauxqs keeps no message group on a standard queue, so the local event
 * source orders deliveries as AWS documents (FAIR_QUEUE_BEHAVIOUR), reading each message's group from its body with
 * the function the sender uses.
 */
function workQueueFairness(visibilityTimeoutSeconds: number): FairQueueEmulation {
  return {
    behaviour: FAIR_QUEUE_BEHAVIOUR,
    visibilityTimeoutSeconds,
    tenantOf: (body) => {
      const message = parseMessage(workMessageSchema, body);
      return message === null ? undefined : messageGroupFor(message);
    },
  };
}
