/**
 * What the bureau may have charged for a row, so a user can reconcile its invoice with the summary.
 *
 * The service interface does not say which answers are billed. Assumed here (and modelled by the bundled
 * emulator): a query is charged when the bureau answers with a report (2XX, success status); a refusal, a 429 or a
 * 5xx is not. A call that got no answer at all (a timeout after the request was sent, a crash of ours between the
 * answer and its persistence) may or may not have been charged: that is `charge_unknown`.
 */
const CHARGE_STATES = ['charged', 'not_charged', 'charge_unknown'] as const;
export type ChargeState = (typeof CHARGE_STATES)[number];

/** What a row's history says about the bureau's charges for it. */
export interface ChargeEvidence {
  /** A report was received for this row (and paid for). */
  readonly answered: boolean;
  /** Calls for this row whose answer never reached us (timeouts after sending, lost in a crash). */
  readonly uncertainCalls: number;
}

/**
 * One word per row. A row with an uncertain call is `charge_unknown` even when a later call was answered: the
 * invoice may hold two charges for it, and the user should look.
 */
export function chargeStateOf(evidence: ChargeEvidence): ChargeState {
  if (evidence.uncertainCalls > 0) return 'charge_unknown';
  return evidence.answered ? 'charged' : 'not_charged';
}

/** Rows per charge state, as the manifest carries them. */
export type ChargeCounts = Record<ChargeState, number>;

export const emptyChargeCounts = (): ChargeCounts => ({ charged: 0, not_charged: 0, charge_unknown: 0 });
