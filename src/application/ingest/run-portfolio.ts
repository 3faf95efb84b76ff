import {
  isPortfolioName,
  PortfolioSettingsError,
  parsePortfolioSettings,
  portfolioKeys,
  portfolioPlan,
} from '../../domain/monitoring/index.ts';
import { type IngestDependencies, type IngestOutcome, ingestUpload } from './ingest-upload.ts';

/**
 * What starts a re-screen: the portfolio's schedule (EventBridge Scheduler invokes the ingest function with this
 * payload) or a person on demand. `runId` identifies the run, so a retried invocation does not start a second
 * batch; the Scheduler passes its execution id.
 */
export interface PortfolioRunRequest {
  readonly portfolio: string;
  readonly runId?: string;
  /**
   * Settings of a portfolio declared in the deployment (its schedule carries them); they take the place of
   * `portfolios/<name>.json`, so the stack stays the one place a declared portfolio is configured.
   */
  readonly settings?: unknown;
}

export type PortfolioRunOutcome =
  | IngestOutcome
  | {
      readonly outcome: 'portfolio_missing' | 'settings_invalid';
      readonly portfolio: string;
      readonly reason: string;
    };

export function isPortfolioRunRequest(event: unknown): event is PortfolioRunRequest {
  return (
    typeof event === 'object' &&
    event !== null &&
    typeof (event as { portfolio?: unknown }).portfolio === 'string'
  );
}

/**
 * Re-screens a portfolio through the same ingest as an upload: `portfolios/<name>.csv` becomes a batch with the
 * portfolio's bureau and freshness (read at run time, so an edited settings file applies to the next run), and
 * the batch writes a change report when it finishes.
 */
export async function runPortfolio(
  request: PortfolioRunRequest,
  deps: IngestDependencies,
  now: () => Date = () => new Date(),
): Promise<PortfolioRunOutcome> {
  const { portfolio } = request;
  if (!isPortfolioName(portfolio)) {
    return { outcome: 'portfolio_missing', portfolio, reason: 'not a portfolio name' };
  }
  const keys = portfolioKeys(portfolio);
  const [listExists, settingsText] = await Promise.all([
    deps.objects.exists(keys.list),
    request.settings === undefined
      ? deps.objects.readTextIfExists(keys.settings)
      : Promise.resolve(JSON.stringify(request.settings)),
  ]);
  if (!listExists) {
    deps.logger.warn('portfolio run for a portfolio with no list; nothing screened', { portfolio });
    return { outcome: 'portfolio_missing', portfolio, reason: `${keys.list} does not exist` };
  }
  let settings = {};
  try {
    settings = settingsText === null ? {} : parsePortfolioSettings(settingsText);
  } catch (error) {
    if (!(error instanceof PortfolioSettingsError)) throw error;
    // Nothing is bought on settings nobody can read: the owner fixes the file and the next run goes ahead.
    deps.logger.error('portfolio settings unusable; run skipped', { portfolio, reason: error.message });
    return { outcome: 'settings_invalid', portfolio, reason: error.message };
  }
  const plan = portfolioPlan(portfolio, settings, { schedule: null, bureau: deps.settings.defaultBureau });
  return ingestUpload(
    {
      bucket: deps.objects.bucket,
      key: keys.list,
      sequencer: request.runId ?? now().toISOString(),
      portfolio: {
        name: portfolio,
        bureau: plan.bureau,
        freshnessHours: plan.freshnessHours,
        policy: plan.policy,
      },
    },
    deps,
  );
}
