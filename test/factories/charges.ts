import { expect } from 'vitest';

/** What reconciling a batch's summary with the bureau's invoice (the emulator's charge accounting) found. */
export interface ChargeReconciliation {
  /** Rows `charged`: each document was charged exactly once. */
  readonly charged: number;
  /** Rows `not_charged`: none of their documents was charged. */
  readonly notCharged: number;
  /** Rows `charge_unknown`, and what the invoice holds for them (0, 1 or 2 each). */
  readonly unknown: number;
  readonly chargesOnUnknown: number;
}

/**
 * Asserts what a user reconciling the bureau's invoice relies on: every row the summary calls `charged` was paid
 * exactly once, every `not_charged` row never, and only `charge_unknown` rows may differ. Each unique document is
 * read from the row that screened it (duplicates and invalid rows never reach the bureau). The emulator must have
 * served this batch only.
 */
export function expectChargesReconciled(
  summary: readonly Record<string, string>[],
  chargesByDocument: Readonly<Record<string, number>>,
): ChargeReconciliation {
  const screenedRows = summary.filter(
    (line) => line.status !== 'duplicate' && line.status !== 'invalid_document',
  );
  const chargesOf = (line: Record<string, string>) => chargesByDocument[line.document ?? ''] ?? 0;
  const inState = (state: string) => screenedRows.filter((line) => line.charge_state === state);
  const charged = inState('charged');
  const notCharged = inState('not_charged');
  const unknown = inState('charge_unknown');
  expect(charged.length + notCharged.length + unknown.length).toBe(screenedRows.length);
  expect(charged.filter((line) => chargesOf(line) !== 1).map((line) => line.row)).toEqual([]);
  expect(notCharged.filter((line) => chargesOf(line) !== 0).map((line) => line.row)).toEqual([]);
  const chargedDocuments = new Set(screenedRows.map((line) => line.document));
  // Nothing was charged for a document the batch did not ask about.
  expect(Object.keys(chargesByDocument).filter((document) => !chargedDocuments.has(document))).toEqual([]);
  return {
    charged: charged.length,
    notCharged: notCharged.length,
    unknown: unknown.length,
    chargesOnUnknown: unknown.reduce((sum, line) => sum + chargesOf(line), 0),
  };
}
