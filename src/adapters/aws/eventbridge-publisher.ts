import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { EVENTS } from '../../contract/index.ts';
import type {
  BatchAwaitingApprovalEvent,
  BatchCompletedEvent,
  BudgetExhaustedEvent,
  EventPublisher,
  OverrideRecordedEvent,
  PolicyRejectedEvent,
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

  policyRejected(event: PolicyRejectedEvent): Promise<void> {
    return this.#put(EVENTS.policyRejected, event);
  }

  overrideRecorded(event: OverrideRecordedEvent): Promise<void> {
    return this.#put(EVENTS.overrideRecorded, event);
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
