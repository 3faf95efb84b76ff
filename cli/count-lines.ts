import { resolve } from 'node:path';
import { type BatchManifest, DEFAULT_SETTINGS } from '../src/contract/index.ts';
import { isBureau } from '../src/domain/bureau/index.ts';
import { formatBrl } from '../src/domain/spend/index.ts';
import { ROW_STATUSES } from '../src/domain/summary/index.ts';
import { DEFAULT_STATE_DIRECTORY } from './local/local-state.ts';
import { printable } from './terminal-text.ts';

/**
 * The table of a finished batch's rows per final status, and what the bureau charged, as the commands print it.
 * `target` is what a later command needs to reach the batch (`--stack <name>`, or '' for the local state), or null
 * when none can (a run that kept no state): rows that may have been charged are then only counted.
 */
export function countLines(manifest: BatchManifest, target: string | null): string[] {
  const { counts, charges } = manifest;
  return [
    ...ROW_STATUSES.map((status) => `  ${status.padEnd(18)}${String(counts[status]).padStart(8)}`),
    `  ${'rows'.padEnd(18)}${String(counts.rows).padStart(8)}`,
    `charges: ${charges.charged} charged, ${charges.not_charged} not charged, ${charges.charge_unknown} unknown`,
    ...(charges.charge_unknown > 0
      ? [
          `charge unknown: ${charges.charge_unknown} rows had a call whose answer was lost, which the bureau may have charged (check its invoice)${buyAgainClause(manifest, target)}`,
        ]
      : []),
  ];
}

/** How many such rows failed, what buying them again would cost, and the one command that does it. */
function buyAgainClause(manifest: BatchManifest, target: string | null): string {
  const rows = manifest.chargeUnknownFailed ?? 0;
  if (rows === 0) return '';
  const price =
    manifest.quote?.price_per_query ??
    (isBureau(manifest.bureau) ? DEFAULT_SETTINGS.bureaus[manifest.bureau].pricePerQuery : null);
  const cost = price === null ? '' : ` for ${formatBrl(rows * price)}`;
  const failed = `; ${rows} of them failed and are not bought again without your word`;
  if (target === null) return `${failed} (this run kept no state: screen them again to buy them)`;
  return `${failed}: credit-screen redrive ${manifest.batchId} --charge-unknown${target === '' ? '' : ` ${target}`} buys them again${cost}`;
}

/**
 * What a later command needs to reach a local run's batches: nothing for the default state directory, `--state
 * <dir>` for another one, and null without a state directory (its batches end with the run).
 */
export function laterTarget(stateDirectory: string | undefined): string | null {
  if (stateDirectory === undefined) return null;
  return resolve(stateDirectory) === resolve(DEFAULT_STATE_DIRECTORY)
    ? ''
    : `--state ${printable(stateDirectory)}`;
}
