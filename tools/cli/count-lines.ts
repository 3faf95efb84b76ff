import type { BatchManifest } from '../../src/contract/index.ts';
import { ROW_STATUSES } from '../../src/domain/summary/index.ts';

/** The table of a finished batch's rows per final status, and what the bureau charged, as the commands print it. */
export function countLines(manifest: BatchManifest): string[] {
  const { counts, charges } = manifest;
  return [
    ...ROW_STATUSES.map((status) => `  ${status.padEnd(18)}${String(counts[status]).padStart(8)}`),
    `  ${'rows'.padEnd(18)}${String(counts.rows).padStart(8)}`,
    `charges: ${charges.charged} charged, ${charges.not_charged} not charged, ${charges.charge_unknown} unknown`,
    ...(charges.charge_unknown > 0
      ? [
          `charge unknown: ${charges.charge_unknown} rows had a call whose answer was lost, which the bureau may have charged (check its invoice)${counts.failed > 0 ? `; a row failed so is not bought again by itself: credit-screen redrive ${manifest.batchId} buys the ${counts.failed} failed rows again` : ''}`,
        ]
      : []),
  ];
}
