import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { EVENTS } from '../../../lib/pipeline-definition.ts';
import type { BatchCompletedEvent, EventPublisher } from '../../core/ports/index.ts';

export interface EventBridgePublisherConfig {
  readonly client: EventBridgeClient;
  readonly eventBusName: string;
}

export class EventBridgePublisher implements EventPublisher {
  readonly #client: EventBridgeClient;
  readonly #bus: string;

  constructor(config: EventBridgePublisherConfig) {
    this.#client = config.client;
    this.#bus = config.eventBusName;
  }

  async batchCompleted(event: BatchCompletedEvent): Promise<void> {
    const result = await this.#client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: this.#bus,
            Source: EVENTS.source,
            DetailType: EVENTS.batchCompleted,
            Detail: JSON.stringify(event),
          },
        ],
      }),
    );
    if ((result.FailedEntryCount ?? 0) > 0) {
      throw new Error(
        `EventBridge refused the ${EVENTS.batchCompleted} event: ${result.Entries?.[0]?.ErrorMessage ?? 'no reason'}`,
      );
    }
  }
}

/** Keeps published events in memory (local runs and tests), where there is no EventBridge to send them to. */
export class RecordingEventPublisher implements EventPublisher {
  readonly events: { detailType: string; detail: BatchCompletedEvent }[] = [];

  async batchCompleted(event: BatchCompletedEvent): Promise<void> {
    this.events.push({ detailType: EVENTS.batchCompleted, detail: event });
  }
}
