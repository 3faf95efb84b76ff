import type { Command } from 'commander';
import { BUREAUS } from '../../src/domain/report/index.ts';
import { chargeMonth, costOf, formatBrl } from '../../src/domain/spend/index.ts';
import { pricesOf } from '../bureau-prices.ts';
import { addTableAction } from '../option-parsers.ts';
import { withConnection } from '../pipeline-connection.ts';

/**
 * `credit-screen spend`: the queries bought in a month per bureau (the units every query reserves against the
 * caps before it is sent, less those the bureau did not charge), what they cost at the price, and the cap.
 */
export function registerSpendCommand(program: Command): void {
  addTableAction(
    program
      .command('spend')
      .description("Show a month's bureau queries per bureau, their cost and the monthly cap"),
    'spend',
    async (given) => {
      // --month's default, this month, is said in help and taken here, when the command runs.
      const options = { ...given, month: given.month ?? chargeMonth(Date.now()) };
      return withConnection(options, async (connection) => {
        const spent = await connection.budget.spent(options.month);
        const price = pricesOf(options);
        const bureaus = BUREAUS.map((bureau) => ({
          bureau,
          queries: spent[bureau],
          estimated_cost: costOf(spent[bureau], price[bureau]),
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
      });
    },
  );
}
