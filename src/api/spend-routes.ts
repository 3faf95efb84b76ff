import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { MonthSpend } from '../contract/index.ts';
import type { BureauSettings } from '../domain/bureau/index.ts';
import type { ChargeBudget } from '../domain/ports/index.ts';
import { BUREAUS, type Bureau } from '../domain/report/index.ts';
import { chargeMonth, costOf } from '../domain/spend/index.ts';
import type { Authenticator, ConsoleEnv } from './console-env.ts';
import { json, refusals } from './openapi-parts.ts';
import { guard, routeBasics } from './route-guard.ts';

/** What the month's spend is read from: the caps' own counts, and each bureau's price and cap as deployed. */
export interface SpendDependencies {
  readonly budget: Pick<ChargeBudget, 'spent'>;
  readonly bureaus: Readonly<Record<Bureau, Pick<BureauSettings, 'pricePerQuery' | 'monthlyChargeCap'>>>;
  readonly now?: () => number;
}

/** Registers the month's spend: what a manager weighs an approval against. */
export function addSpendRoute(
  app: OpenAPIHono<ConsoleEnv>,
  authenticator: Authenticator,
  deps: SpendDependencies,
) {
  const route = createRoute({
    ...routeBasics('spend'),
    middleware: [guard('spend', authenticator)] as const,
    responses: {
      200: json(MonthSpend, 'This month’s queries per bureau and their caps'),
      ...refusals(401, 403),
    },
  });
  app.openapi(route, async (context) => {
    const month = chargeMonth((deps.now ?? Date.now)());
    const spent = await deps.budget.spent(month);
    const bureaus = BUREAUS.map((bureau) => {
      const { pricePerQuery, monthlyChargeCap } = deps.bureaus[bureau];
      return {
        bureau,
        queries: spent[bureau],
        pricePerQuery,
        cost: costOf(spent[bureau], pricePerQuery),
        cap: monthlyChargeCap,
      };
    });
    return context.json({ month, bureaus }, 200);
  });
}
