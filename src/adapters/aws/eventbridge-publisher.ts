import {
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import pLimit from 'p-limit';
import { type AlertEventType, type AlertSources, alertDetailsOf, EVENTS } from '../../contract/index.ts';
import type {
  BatchAwaitingApprovalEvent,
  BatchCompletedEvent,
  BudgetExhaustedEvent,
  DocumentChangedEvent,
  EventPublisher,
  OverrideRecordedEvent,
  PolicyRejectedEvent,
  PortfolioChangedEvent,
} from '../../domain/ports/index.ts';

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

/** Publishes the alert catalogue's events (src/contract/alert-events.ts) on the pipeline's bus. */
export class EventBridgePublisher implements EventPublisher {
  readonly #client: EventBridgeClient;
  readonly #bus: string;
  readonly #fullDocuments: boolean;

  constructor(config: EventBridgePublisherConfig) {
    this.#client = config.client;
    this.#bus = config.eventBusName;
    this.#fullDocuments = config.fullDocuments;
  }

  batchCompleted(event: BatchCompletedEvent): Promise<void> {
    return this.#put(this.#entries(EVENTS.batchCompleted, event));
  }

  portfolioChanged(event: PortfolioChangedEvent): Promise<void> {
    return this.#put(this.#entries(EVENTS.portfolioChanged, event));
  }

  async documentsChanged(events: readonly DocumentChangedEvent[]): Promise<void> {
    const entries = events.flatMap((event) => this.#entries(EVENTS.documentChanged, event));
    const limit = pLimit(CALLS_IN_FLIGHT);
    const calls: Promise<void>[] = [];
    for (let start = 0; start < entries.length; start += ENTRIES_PER_CALL)
      calls.push(limit(() => this.#put(entries.slice(start, start + ENTRIES_PER_CALL))));
    await Promise.all(calls);
  }

  budgetExhausted(event: BudgetExhaustedEvent): Promise<void> {
    return this.#put(this.#entries(EVENTS.budgetExhausted, event));
  }

  batchAwaitingApproval(event: BatchAwaitingApprovalEvent): Promise<void> {
    return this.#put(this.#entries(EVENTS.batchAwaitingApproval, event));
  }

  policyRejected(event: PolicyRejectedEvent): Promise<void> {
    return this.#put(this.#entries(EVENTS.policyRejected, event));
  }

  overrideRecorded(event: OverrideRecordedEvent): Promise<void> {
    return this.#put(this.#entries(EVENTS.overrideRecorded, event));
  }

  #entries<Type extends AlertEventType>(type: Type, event: AlertSources[Type]): PutEventsRequestEntry[] {
    return alertDetailsOf(type, event, { fullDocuments: this.#fullDocuments }).map((detail) => ({
      EventBusName: this.#bus,
      Source: EVENTS.source,
      DetailType: type,
      Detail: JSON.stringify(detail),
    }));
  }

  async #put(entries: PutEventsRequestEntry[]): Promise<void> {
    const result = await this.#client.send(new PutEventsCommand({ Entries: entries }));
    if ((result.FailedEntryCount ?? 0) > 0) {
      const failed = result.Entries?.find((entry) => entry.ErrorCode !== undefined);
      throw new Error(
        `EventBridge refused ${result.FailedEntryCount} of ${entries.length} ${entries[0]?.DetailType} events: ${failed?.ErrorMessage ?? 'no reason'}`,
      );
    }
  }
}
