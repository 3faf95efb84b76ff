/** Source and detail-type of the EventBridge events (their details: alert-events.ts). */
export const EVENTS = {
  source: 'credit-screen',
  batchCompleted: 'BatchCompleted',
  portfolioChanged: 'PortfolioChanged',
  documentChanged: 'DocumentChanged',
  budgetExhausted: 'BudgetExhausted',
  batchAwaitingApproval: 'BatchAwaitingApproval',
  policyRejected: 'PolicyRejected',
  overrideRecorded: 'OverrideRecorded',
} as const;
