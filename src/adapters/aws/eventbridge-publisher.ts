import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { EVENTS } from '../../contract/index.ts';
import type {
  BatchAwaitingApprovalEvent,
  BatchCompletedEvent,
  BudgetExhaustedEvent,
  EventPublisher,
  PortfolioChangedEvent,
} from '../../domain/ports/index.ts';

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

  batchCompleted(event: BatchCompletedEvent): Promise<void> {
    return this.#put(EVENTS.batchCompleted, event);
  }

  portfolioChanged(event: PortfolioChangedEvent): Promise<void> {
    return this.#put(EVENTS.portfolioChanged, event);
  }

  budgetExhausted(event: BudgetExhaustedEvent): Promise<void> {
    return this.#put(EVENTS.budgetExhausted, event);
  }

  batchAwaitingApproval(event: BatchAwaitingApprovalEvent): Promise<void> {
    return this.#put(EVENTS.batchAwaitingApproval, event);
  }

  async #put(detailType: string, detail: object): Promise<void> {
    const result = await this.#client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: this.#bus,
            Source: EVENTS.source,
            DetailType: detailType,
            Detail: JSON.stringify(detail),
          },
        ],
      }),
    );
    if ((result.FailedEntryCount ?? 0) > 0) {
      throw new Error(
        `EventBridge refused the ${detailType} event: ${result.Entries?.[0]?.ErrorMessage ?? 'no reason'}`,
      );
    }
  }
}

export type PublishedEvent =
  | { readonly detailType: typeof EVENTS.batchCompleted; readonly detail: BatchCompletedEvent }
  | { readonly detailType: typeof EVENTS.portfolioChanged; readonly detail: PortfolioChangedEvent }
  | { readonly detailType: typeof EVENTS.budgetExhausted; readonly detail: BudgetExhaustedEvent }
  | { readonly detailType: typeof EVENTS.batchAwaitingApproval; readonly detail: BatchAwaitingApprovalEvent };

/** Keeps published events in memory (local runs and tests), where there is no EventBridge to send them to. */
export class RecordingEventPublisher implements EventPublisher {
  readonly events: PublishedEvent[] = [];

  async batchCompleted(event: BatchCompletedEvent): Promise<void> {
    this.events.push({ detailType: EVENTS.batchCompleted, detail: event });
  }

  async portfolioChanged(event: PortfolioChangedEvent): Promise<void> {
    this.events.push({ detailType: EVENTS.portfolioChanged, detail: event });
  }

  async budgetExhausted(event: BudgetExhaustedEvent): Promise<void> {
    this.events.push({ detailType: EVENTS.budgetExhausted, detail: event });
  }

  async batchAwaitingApproval(event: BatchAwaitingApprovalEvent): Promise<void> {
    this.events.push({ detailType: EVENTS.batchAwaitingApproval, detail: event });
  }
}
