import type { EventPublisher } from '../../src/domain/ports/index.ts';

/** One publisher that hands every event to each of `publishers` (the local run's record, and its webhooks). */
export function fanOutEvents(publishers: readonly EventPublisher[]): EventPublisher {
  const each =
    <Name extends keyof EventPublisher>(name: Name) =>
    async (...args: Parameters<EventPublisher[Name]>): Promise<void> => {
      await Promise.all(
        publishers.map((publisher) => (publisher[name] as (...given: typeof args) => Promise<void>)(...args)),
      );
    };
  return {
    batchCompleted: each('batchCompleted'),
    policyRejected: each('policyRejected'),
    overrideRecorded: each('overrideRecorded'),
    batchAwaitingApproval: each('batchAwaitingApproval'),
    portfolioChanged: each('portfolioChanged'),
    documentsChanged: each('documentsChanged'),
    budgetExhausted: each('budgetExhausted'),
  };
}
