/** `redrive`: a completed batch's failed rows bought again; those whose charge is unknown only on the user's word. */

import type { Command } from 'commander';
import { redrivableRows, redriveBatch } from '../../src/application/batch-control/batch-control.ts';
import { DEFAULT_SETTINGS } from '../../src/contract/index.ts';
import type { BatchRecord, RedriveSelection } from '../../src/domain/batch/index.ts';
import { formatBrl } from '../../src/domain/spend/index.ts';
import { askToBuy } from '../approval-prompt.ts';
import { print, registerBatchChange } from '../batch-change.ts';
import { CliError } from '../cli-error.ts';
import { abortOnInterrupt } from '../interruption.ts';
import { readManifest } from '../local/batch-results.ts';
import type { CommandOptions } from '../option-types.ts';
import type { PipelineConnection } from '../pipeline-connection.ts';

/** The price of one more query of a batch's bureau: its quote's, or the list price. */
function pricePerQueryOf(batch: BatchRecord): number {
  return batch.quote?.price_per_query ?? DEFAULT_SETTINGS.bureaus[batch.bureau].pricePerQuery;
}

/**
 * Rows whose earlier call may have been charged are bought again only on the user's word: the quote is shown,
 * then `--yes`, or a yes at the terminal. False when the user said no; a CliError, with nothing bought, when
 * no one could be asked.
 */
async function agreeToBuyAgain(
  batchId: string,
  connection: PipelineConnection,
  options: CommandOptions<'redrive'>,
): Promise<boolean> {
  const batch = await connection.store.getBatch(batchId);
  // A batch redriveBatch would refuse is for it to answer; a completed one, or a redrive stopped halfway, is asked.
  if (batch === null || !(batch.status === 'completed' || batch.requeuing)) return true;
  // A completed batch's manifest counts them already; only a stopped redrive needs its rows read.
  const manifest = batch.status === 'completed' ? await readManifest(connection.objects, batchId) : null;
  const rows =
    manifest?.revision === batch.revision && manifest.chargeUnknownFailed !== undefined
      ? manifest.chargeUnknownFailed
      : (await redrivableRows(batchId, connection)).charge_unknown;
  if (rows === 0) return true;
  const price = pricePerQueryOf(batch);
  const offer = `batch ${batchId}: ${rows} rows whose earlier call may have been charged would be bought again for ${formatBrl(rows * price)} (${formatBrl(price)} each, possibly paid twice)`;
  if (options.yes) return true;
  if (!(process.stdin.isTTY && process.stdout.isTTY))
    throw new CliError(`${offer}: nothing was bought. Rerun with --yes to buy them`);
  const interruption = abortOnInterrupt('interrupted: nothing was bought');
  try {
    if (await askToBuy(offer, interruption)) return true;
  } finally {
    interruption.release();
  }
  process.stderr.write(`batch ${batchId}: nothing was bought\n`);
  return false;
}

/** What a redrive left behind: the failed rows the other kind of redrive would send back. */
function leftBehind(batchId: string, selection: RedriveSelection, left: number): string {
  if (left === 0) return '';
  return selection === 'not_charged'
    ? `; ${left} rows whose earlier call may have been charged are left: credit-screen redrive ${batchId} --charge-unknown quotes them and buys them again`
    : `; ${left} other failed rows are left: credit-screen redrive ${batchId} sends them back`;
}

/** `redrive <batchId>`: a completed batch's failed documents go back to the queue. */
export function registerRedriveCommand(program: Command): void {
  registerBatchChange(
    program
      .command('redrive')
      .description(
        "Send a completed batch's failed documents back to the queue and rewrite its results; --charge-unknown buys again, once agreed, those whose call may have been charged",
      )
      .argument('<batchId>'),
    'redrive',
    async (batchId, connection, options) => {
      const selection: RedriveSelection = options.chargeUnknown ? 'charge_unknown' : 'not_charged';
      if (selection === 'charge_unknown' && !(await agreeToBuyAgain(batchId, connection, options)))
        return false;
      const outcome = await redriveBatch(batchId, connection, selection);
      if (outcome.outcome === 'nothing_to_redrive') {
        const what =
          selection === 'charge_unknown'
            ? 'no rows whose charge is unknown'
            : 'no failed rows that were never possibly charged';
        print(
          outcome,
          options,
          () =>
            `batch ${batchId} has ${what} to send back: nothing to redrive${leftBehind(batchId, selection, outcome.left)}`,
        );
        return false;
      }
      if (outcome.outcome !== 'redriven') {
        throw new CliError(
          outcome.outcome === 'not_found'
            ? `no batch ${batchId} in ${connection.where}`
            : `batch ${batchId} is not completed: only a completed batch can be redriven`,
        );
      }
      const { requeued, revision, left } = outcome;
      const what = selection === 'charge_unknown' ? 'rows whose charge was unknown' : 'failed documents';
      print(
        outcome,
        options,
        () =>
          `batch ${batchId}: ${requeued} ${what} sent back (revision ${revision})${leftBehind(batchId, selection, left)}`,
      );
      return true;
    },
  );
}
