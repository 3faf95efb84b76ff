/**
 * How portfolios are scheduled: the rules a declared portfolio is checked with (the domain's, re-exported for the
 * construct), the schedules' names, and what a scheduled run sends the ingest function.
 */

export { isPortfolioName, parsePortfolioSettings } from '../domain/monitoring/index.ts';

/** Schedule names: the portfolio's name with a fixed prefix (portfolio names are limited so this fits 64). */
export const portfolioScheduleName = (portfolio: string) => `portfolio-${portfolio}`;

/**
 * How EventBridge Scheduler starts a portfolio run: the ingest function's input and the retry policy of every
 * portfolio schedule, the stack's declared ones and those the portfolio-schedules function creates.
 */
export const PORTFOLIO_RUN_SCHEDULE = {
  /**
   * Scheduler fills in the time the run was scheduled for, which every retry of that run repeats (its execution id
   * does not: it is new for each attempt), so a retried run maps to the same batch.
   */
  runIdPlaceholder: '<aws.scheduler.scheduled-time>',
  /** A run that cannot start is retried for a while; a re-screen an hour late is still worth having. */
  retryPolicy: { maximumRetryAttempts: 10, maximumEventAgeInSeconds: 3600 },
} as const;

/** The ingest function's input for a portfolio run (`runId` defaults to Scheduler's scheduled-time placeholder). */
export function portfolioRunInput(
  portfolio: string,
  options: { readonly runId?: string; readonly settings?: object } = {},
): string {
  return JSON.stringify({
    portfolio,
    runId: options.runId ?? PORTFOLIO_RUN_SCHEDULE.runIdPlaceholder,
    ...(options.settings ? { settings: options.settings } : {}),
  });
}
