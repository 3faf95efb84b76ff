import { EVENTS } from '../../contract/index.ts';
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

/** One event as a {@link RecordingEventPublisher} keeps it. */
export type PublishedEvent =
  | { readonly detailType: typeof EVENTS.batchCompleted; readonly detail: BatchCompletedEvent }
  | { readonly detailType: typeof EVENTS.portfolioChanged; readonly detail: PortfolioChangedEvent }
  | { readonly detailType: typeof EVENTS.documentChanged; readonly detail: DocumentChangedEvent }
  | { readonly detailType: typeof EVENTS.budgetExhausted; readonly detail: BudgetExhaustedEvent }
  | { readonly detailType: typeof EVENTS.batchAwaitingApproval; readonly detail: BatchAwaitingApprovalEvent }
  | { readonly detailType: typeof EVENTS.policyRejected; readonly detail: PolicyRejectedEvent }
  | { readonly detailType: typeof EVENTS.overrideRecorded; readonly detail: OverrideRecordedEvent };

/** Keeps published events in memory (local runs and tests), where there is no EventBridge to send them to. */
export class RecordingEventPublisher implements EventPublisher {
  readonly events: PublishedEvent[] = [];

  async batchCompleted(event: BatchCompletedEvent): Promise<void> {
    this.events.push({ detailType: EVENTS.batchCompleted, detail: event });
  }

  async portfolioChanged(event: PortfolioChangedEvent): Promise<void> {
    this.events.push({ detailType: EVENTS.portfolioChanged, detail: event });
  }

  async documentsChanged(events: readonly DocumentChangedEvent[]): Promise<void> {
    for (const event of events) this.events.push({ detailType: EVENTS.documentChanged, detail: event });
  }

  async budgetExhausted(event: BudgetExhaustedEvent): Promise<void> {
    this.events.push({ detailType: EVENTS.budgetExhausted, detail: event });
  }

  async batchAwaitingApproval(event: BatchAwaitingApprovalEvent): Promise<void> {
    this.events.push({ detailType: EVENTS.batchAwaitingApproval, detail: event });
  }

  async policyRejected(event: PolicyRejectedEvent): Promise<void> {
    this.events.push({ detailType: EVENTS.policyRejected, detail: event });
  }

  async overrideRecorded(event: OverrideRecordedEvent): Promise<void> {
    this.events.push({ detailType: EVENTS.overrideRecorded, detail: event });
  }
}
