import {
  type AlertEventType,
  type AlertSources,
  eventPublisherOf,
  type PublishEvents,
} from '../contract/index.ts';
import type { EventPublisher } from '../domain/ports/index.ts';

/**
 * An {@link EventPublisher} as a class: each method hands its events to {@link publishEvents} under their
 * detail-type (src/contract/alert-events.ts), so a subclass says only how it carries them.
 */
export abstract class CatalogueEventPublisher implements EventPublisher {
  readonly #publisher = eventPublisherOf(((type, events) =>
    this.publishEvents(type, events)) as PublishEvents);
  readonly batchCompleted = this.#publisher.batchCompleted;
  readonly batchAwaitingApproval = this.#publisher.batchAwaitingApproval;
  readonly budgetExhausted = this.#publisher.budgetExhausted;
  readonly policyRejected = this.#publisher.policyRejected;
  readonly overrideRecorded = this.#publisher.overrideRecorded;
  readonly portfolioChanged = this.#publisher.portfolioChanged;
  readonly documentsChanged = this.#publisher.documentsChanged;

  /** Carries events of one type of the catalogue (several at once for `DocumentChanged`). */
  protected abstract publishEvents<Type extends AlertEventType>(
    type: Type,
    events: readonly AlertSources[Type][],
  ): Promise<void>;
}
