import {
  PortfolioSettingsError,
  parsePortfolioSettings,
  portfolioKeys,
  portfolioPlan,
} from '../../domain/monitoring/index.ts';
import type { Logger, ObjectStore, PortfolioScheduler } from '../../domain/ports/index.ts';
import type { Bureau } from '../../domain/report/index.ts';

export interface ScheduleSyncDependencies {
  readonly objects: ObjectStore;
  readonly scheduler: PortfolioScheduler;
  readonly logger: Logger;
  readonly defaults: { readonly schedule: string | null; readonly bureau: Bureau };
  /** Portfolios declared in the deployment (their schedules are the stack's): files never change those. */
  readonly declaredPortfolios?: ReadonlySet<string>;
}

export type ScheduleSyncOutcome =
  | { readonly portfolio: string; readonly action: 'scheduled'; readonly expression: string }
  | { readonly portfolio: string; readonly action: 'unscheduled'; readonly existed: boolean }
  | { readonly portfolio: string; readonly action: 'kept'; readonly reason: string };

/**
 * Makes a portfolio's schedule match its files, whatever event arrived: with a list and a schedule (from its
 * settings file or the deployment's default) it is created or updated; without a list, or without any schedule,
 * it is removed. Reading the files rather than trusting the event makes late or repeated events harmless.
 * Settings that cannot be read leave the schedule as it was, so a typo does not stop a portfolio's monitoring.
 */
export async function syncPortfolioSchedule(
  portfolio: string,
  deps: ScheduleSyncDependencies,
): Promise<ScheduleSyncOutcome> {
  const { objects, scheduler, logger } = deps;
  if (deps.declaredPortfolios?.has(portfolio)) {
    logger.info('portfolio declared in the deployment; its schedule is managed there', { portfolio });
    return { portfolio, action: 'kept', reason: 'declared in the deployment' };
  }
  const keys = portfolioKeys(portfolio);
  const [listExists, settingsText] = await Promise.all([
    objects.exists(keys.list),
    objects.readTextIfExists(keys.settings),
  ]);
  if (!listExists) {
    const existed = await scheduler.remove(portfolio);
    logger.info('portfolio schedule removed: no list', { portfolio, existed });
    return { portfolio, action: 'unscheduled', existed };
  }
  let settings = {};
  try {
    settings = settingsText === null ? {} : parsePortfolioSettings(settingsText);
  } catch (error) {
    if (!(error instanceof PortfolioSettingsError)) throw error;
    logger.error('portfolio settings unusable; schedule left as it was', {
      portfolio,
      reason: error.message,
    });
    return { portfolio, action: 'kept', reason: error.message };
  }
  const plan = portfolioPlan(portfolio, settings, deps.defaults);
  if (plan.schedule === null) {
    const existed = await scheduler.remove(portfolio);
    logger.info('portfolio has no schedule; re-screened on demand only', { portfolio, existed });
    return { portfolio, action: 'unscheduled', existed };
  }
  await scheduler.put({ portfolio, expression: plan.schedule, timezone: plan.timezone });
  logger.info('portfolio schedule set', { portfolio, schedule: plan.schedule });
  return { portfolio, action: 'scheduled', expression: plan.schedule };
}
