import { z } from 'zod';
import { BUREAUS, type Bureau } from '../report/index.ts';

/** Where portfolios live in the pipeline bucket: `portfolios/<name>.csv` and optional `portfolios/<name>.json`. */
export const PORTFOLIO_PREFIX = 'portfolios/';

// Scheduler names are limited to 64 characters of [0-9a-zA-Z-_.]; a prefix is added, so names stay short.
const PORTFOLIO_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,47}$/;

/** The portfolio a bucket key belongs to, and which of its two files it is; null for any other key. */
export function portfolioFileOf(
  key: string,
): { readonly name: string; readonly file: 'list' | 'settings' } | null {
  if (!key.startsWith(PORTFOLIO_PREFIX)) return null;
  const match = /^([^/]+)\.(csv|json)$/.exec(key.slice(PORTFOLIO_PREFIX.length));
  if (!match || !PORTFOLIO_NAME.test(match[1] as string)) return null;
  return { name: match[1] as string, file: match[2] === 'csv' ? 'list' : 'settings' };
}

export function isPortfolioName(name: string): boolean {
  return PORTFOLIO_NAME.test(name);
}

export const portfolioKeys = (name: string) => ({
  list: `${PORTFOLIO_PREFIX}${name}.csv`,
  settings: `${PORTFOLIO_PREFIX}${name}.json`,
});

// EventBridge Scheduler's recurring forms. The fields are checked by the Scheduler itself; this catches typos
// (a missing parenthesis, a unit in the wrong place) before a schedule is attempted.
const SCHEDULE_EXPRESSION = /^(cron\((\S+\s+){5}\S+\)|rate\(\d+\s+(minute|minutes|hour|hours|day|days)\))$/;

/** A portfolio's settings, as `portfolios/<name>.json` gives them. Every field is optional. */
const portfolioSettingsSchema = z.strictObject({
  /** `cron(…)` or `rate(…)`, in EventBridge Scheduler syntax. */
  schedule: z
    .string()
    .regex(
      SCHEDULE_EXPRESSION,
      'must be cron(minutes hours day-of-month month day-of-week year) or rate(n unit)',
    )
    .optional(),
  bureau: z.enum(BUREAUS).optional(),
  /** Reports younger than this are reused instead of bought again; absent means always ask the bureau. */
  maxAgeHours: z.number().nonnegative().optional(),
  /** Time zone of a cron schedule (IANA name). */
  timezone: z.string().min(1).optional(),
  /** The credit policy (a file name under `policies/`) that decides each run; absent: the deployment's default. */
  policy: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}\.json$/,
      'must be a policy file name under policies/ (name.json)',
    )
    .optional(),
});

/** A portfolio's settings: the schema's own type, so the two cannot drift apart. */
export type PortfolioSettings = Readonly<z.output<typeof portfolioSettingsSchema>>;

/** A portfolio settings file that cannot be used, with the reason. */
export class PortfolioSettingsError extends Error {
  override readonly name = 'PortfolioSettingsError';
}

/** Parses `portfolios/<name>.json`; unknown fields are refused so that a typo is not silently ignored. */
export function parsePortfolioSettings(text: string): PortfolioSettings {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PortfolioSettingsError(`not JSON: ${(error as Error).message}`);
  }
  const result = portfolioSettingsSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new PortfolioSettingsError(
      `${issue?.path.join('.') || 'settings'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return result.data;
}

/** What a portfolio's files ask for: its schedule (if any) and how each run screens. */
export interface PortfolioPlan {
  readonly name: string;
  readonly schedule: string | null;
  readonly timezone: string | null;
  readonly bureau: Bureau;
  /** 0: every document is asked again on each run. */
  readonly freshnessHours: number;
  /** The portfolio's own policy; null: the deployment's default. */
  readonly policy: string | null;
}

export function portfolioPlan(
  name: string,
  settings: PortfolioSettings,
  defaults: { readonly schedule: string | null; readonly bureau: Bureau },
): PortfolioPlan {
  return {
    name,
    schedule: settings.schedule ?? defaults.schedule,
    timezone: settings.timezone ?? null,
    bureau: settings.bureau ?? defaults.bureau,
    freshnessHours: settings.maxAgeHours ?? 0,
    policy: settings.policy ?? null,
  };
}
