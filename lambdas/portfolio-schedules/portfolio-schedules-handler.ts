import type { S3Event } from 'aws-lambda';
import {
  type ScheduleSyncDependencies,
  type ScheduleSyncOutcome,
  syncPortfolioSchedule,
} from '../../src/application/portfolio-schedules/sync-portfolio-schedule.ts';
import { portfolioFileOf } from '../../src/domain/monitoring/index.ts';
import { objectKeyOf } from '../shared/s3-event-key.ts';

/**
 * The portfolio-schedules Lambda: S3 events (created or removed) under `portfolios/` bring each named
 * portfolio's schedule in line with its files. Other keys are ignored.
 */
export function createPortfolioSchedulesHandler(deps: ScheduleSyncDependencies) {
  return async (event: S3Event): Promise<ScheduleSyncOutcome[]> => {
    const portfolios = new Set<string>();
    for (const record of event.Records) {
      const key = objectKeyOf(record);
      const file = portfolioFileOf(key);
      if (file === null) deps.logger.warn('not a portfolio file; ignored', { key });
      else portfolios.add(file.name);
    }
    const outcomes: ScheduleSyncOutcome[] = [];
    for (const portfolio of portfolios) outcomes.push(await syncPortfolioSchedule(portfolio, deps));
    return outcomes;
  };
}
