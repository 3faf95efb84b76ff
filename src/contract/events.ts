/** Source and detail-type of the EventBridge events. */
export const EVENTS = {
  source: 'credit-screen',
  batchCompleted: 'BatchCompleted',
  portfolioChanged: 'PortfolioChanged',
  budgetExhausted: 'BudgetExhausted',
  batchAwaitingApproval: 'BatchAwaitingApproval',
  policyRejected: 'PolicyRejected',
  overrideRecorded: 'OverrideRecorded',
} as const;
