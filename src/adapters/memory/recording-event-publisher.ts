import { type AlertEventType, type AlertSources, eventPublisherOf } from '../../contract/index.ts';
import type { EventPublisher } from '../../domain/ports/index.ts';

/** One event as a {@link RecordingEventPublisher} keeps it. */
export type PublishedEvent = {
  readonly [Type in AlertEventType]: { readonly detailType: Type; readonly detail: AlertSources[Type] };
}[AlertEventType];

/** Keeps published events in memory (local runs and tests), where there is no EventBridge to send them to. */
export class RecordingEventPublisher implements EventPublisher {
  readonly events: PublishedEvent[] = [];
  readonly #record = eventPublisherOf(async (type, events) => {
    for (const detail of events) this.events.push({ detailType: type, detail } as PublishedEvent);
  });
  readonly batchCompleted = this.#record.batchCompleted;
  readonly batchAwaitingApproval = this.#record.batchAwaitingApproval;
  readonly budgetExhausted = this.#record.budgetExhausted;
  readonly policyRejected = this.#record.policyRejected;
  readonly overrideRecorded = this.#record.overrideRecorded;
  readonly portfolioChanged = this.#record.portfolioChanged;
  readonly documentsChanged = this.#record.documentsChanged;
}
