import {
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import pLimit from 'p-limit';
import {
  type AlertEventType,
  type AlertSources,
  alertDetailsOf,
  EVENTS,
  eventPublisherOf,
} from '../../contract/index.ts';
import type { EventPublisher } from '../../domain/ports/index.ts';

export interface EventBridgePublisherConfig {
  readonly client: EventBridgeClient;
  readonly eventBusName: string;
  /** Publish events that name documents in full as well as masked: a subscription asks for documents. */
  readonly fullDocuments: boolean;
}

/** PutEvents takes at most ten entries a call. */
const ENTRIES_PER_CALL = 10;
/** Calls in flight when a re-screen announces thousands of changed documents. */
const CALLS_IN_FLIGHT = 4;

/**
 * Publishes the alert catalogue's events (src/contract/alert-events.ts) on the pipeline's bus, ten to a
 * `PutEvents` call; a call with a refused entry fails with EventBridge's reason.
 */
export function eventBridgePublisher(config: EventBridgePublisherConfig): EventPublisher {
  const entriesOf = <Type extends AlertEventType>(
    type: Type,
    event: AlertSources[Type],
  ): PutEventsRequestEntry[] =>
    alertDetailsOf(type, event, { fullDocuments: config.fullDocuments }).map((detail) => ({
      EventBusName: config.eventBusName,
      Source: EVENTS.source,
      DetailType: type,
      Detail: JSON.stringify(detail),
    }));
  const put = async (entries: PutEventsRequestEntry[]): Promise<void> => {
    const result = await config.client.send(new PutEventsCommand({ Entries: entries }));
    if ((result.FailedEntryCount ?? 0) > 0) {
      const failed = result.Entries?.find((entry) => entry.ErrorCode !== undefined);
      throw new Error(
        `EventBridge refused ${result.FailedEntryCount} of ${entries.length} ${entries[0]?.DetailType} events: ${failed?.ErrorMessage ?? 'no reason'}`,
      );
    }
  };
  return eventPublisherOf(async (type, events) => {
    const entries = events.flatMap((event) => entriesOf(type, event));
    const limit = pLimit(CALLS_IN_FLIGHT);
    const calls: Promise<void>[] = [];
    for (let start = 0; start < entries.length; start += ENTRIES_PER_CALL)
      calls.push(limit(() => put(entries.slice(start, start + ENTRIES_PER_CALL))));
    await Promise.all(calls);
  });
}
