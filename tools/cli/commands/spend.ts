import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { DEFAULT_SETTINGS, MAX_PRICE_PER_QUERY } from '../../../src/contract/index.ts';
import { BUREAUS } from '../../../src/domain/report/index.ts';
import { chargeMonth, formatBrl } from '../../../src/domain/spend/index.ts';
import { nonNegativeInteger, priceInBrl } from '../option-parsers.ts';
import { addTargetOptions, type TargetOptions, withConnection } from '../pipeline-connection.ts';

interface SpendOptions extends TargetOptions {
  readonly month: string;
  readonly cap?: number;
  readonly priceA?: number;
  readonly priceB?: number;
}

function month(value: string): string {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(value)) throw new InvalidArgumentError('--month must be YYYY-MM');
  return value;
}

/**
 * `credit-screen spend`: the queries bought in a month per bureau (the units every query reserves against the
 * caps before it is sent, less those the bureau did not charge), what they cost at the price, and the cap.
 */
export function registerSpendCommand(program: Command): void {
  addTargetOptions(
    program
      .command('spend')
      .description("Show a month's bureau queries per bureau, their cost and the monthly cap")
      .option('--month <YYYY-MM>', 'the month (Brasília time)', month, chargeMonth(Date.now()))
      .option('--cap <n>', 'the monthly cap to compare with, per bureau', nonNegativeInteger('--cap'))
      .option('--price-a <brl>', 'price of one bureau A query', priceInBrl('--price-a', MAX_PRICE_PER_QUERY))
      .option('--price-b <brl>', 'price of one bureau B query', priceInBrl('--price-b', MAX_PRICE_PER_QUERY))
      .option('--json', 'print JSON'),
  ).action(async (options: SpendOptions) =>
    withConnection(options, async (connection) => {
      const spent = await connection.budget.spent(options.month);
      const price = {
        a: options.priceA ?? DEFAULT_SETTINGS.pricePerQuery.a,
        b: options.priceB ?? DEFAULT_SETTINGS.pricePerQuery.b,
      };
      const bureaus = BUREAUS.map((bureau) => ({
        bureau,
        queries: spent[bureau],
        estimated_cost: Math.round(spent[bureau] * price[bureau] * 100) / 100,
        cap: options.cap ?? null,
      }));
      if (options.json) {
        process.stdout.write(
          `${JSON.stringify({ month: options.month, currency: 'BRL', bureaus }, null, 2)}\n`,
        );
        return;
      }
      const lines = [
        `spend in ${options.month} (${connection.where}):`,
        ...bureaus.map(
          (line) =>
            `  bureau ${line.bureau.toUpperCase()}  ${String(line.queries).padStart(8)} queries  ${formatBrl(line.estimated_cost).padStart(14)}${line.cap === null ? '' : `  of a cap of ${line.cap} (${Math.round((100 * line.queries) / Math.max(1, line.cap))} %)`}`,
        ),
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    }),
  );
}
