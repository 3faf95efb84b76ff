/** The manifest of a batch's results, a public output format: written by the finaliser, read by the CLI and consumers. */

import type { BatchCounts, ChargeCounts } from '../domain/batch/index.ts';
import { type DecisionValue, POLICY_ERROR } from '../domain/decision/index.ts';
import type { ChangeCounts } from '../domain/monitoring/index.ts';
import type { Quote } from '../domain/spend/index.ts';

/** What a batch's policy decided: rows per decision, and each reason with the rows it was given to, most first. */
export interface DecisionTally {
  readonly counts: Readonly<Record<DecisionValue, number>>;
  readonly reasons: readonly { readonly code: string; readonly text: string; readonly rows: number }[];
}

/**
 * Whether a policy decided rows and could decide none of them: every decision a `POLICY_ERROR` review. Such a batch
 * must not end as a success, though its rows were bought: the policy, not the customers, is the problem.
 */
export function policyDecidedNothing(tally: DecisionTally | null | undefined): boolean {
  if (!tally) return false;
  const decided = tally.counts.approve + tally.counts.review + tally.counts.decline;
  const errors = tally.reasons.find((reason) => reason.code === POLICY_ERROR)?.rows ?? 0;
  return decided > 0 && errors === decided;
}

/** How a batch ended, as its manifest and its `BatchCompleted` event say. */
export const MANIFEST_STATUSES = [
  'completed',
  'token_rejected',
  'file_rejected',
  'cancelled',
  'rejected',
  'budget_exhausted',
] as const;
type ManifestStatus = (typeof MANIFEST_STATUSES)[number];

/** What consumers read first: written last, so its presence means every other result file is complete. */
export interface BatchManifest {
  readonly manifestVersion: 1;
  readonly batchId: string;
  /**
   * `completed`; `token_rejected` when the bureau refused the token (rows not queried are `failed`);
   * `file_rejected`; `cancelled` when someone cancelled it (rows not yet screened are `cancelled`).
   */
  readonly status: ManifestStatus;
  /** What ingest quoted for the batch (what it would buy and cost); null for results written before quotes. */
  readonly quote: Quote | null;
  /** 1 for the first results; one more each time a redrive rewrote them. */
  readonly revision: number;
  readonly bureau: string;
  /**
   * The uploaded object, and `name`: the customer's file name (masked when it holds a document), null when the
   * upload did not say it (absent in manifests written before it was kept).
   */
  readonly source: {
    readonly bucket: string;
    readonly key: string;
    readonly sha256: string | null;
    readonly name?: string | null;
  };
  readonly createdAt: string;
  readonly completedAt: string;
  readonly counts: BatchCounts;
  /**
   * Rows by what the bureau may have charged for them, to reconcile its invoice: `charged` (answered with a
   * report), `not_charged`, and `charge_unknown` (a call that got no answer, or one lost in a crash of ours, may
   * have been charged). The summary's `charge_state` column says it per row.
   */
  readonly charges: ChargeCounts;
  /**
   * Failed rows whose call may have been charged (`charge_unknown`): not bought again without the user's word
   * (`redrive --charge-unknown`). Absent in manifests written before it was counted.
   */
  readonly chargeUnknownFailed?: number;
  /** `changes` only for a portfolio re-screen; `report` (the HTML page) from results that have one. */
  readonly files: {
    readonly summary: string;
    readonly reports: string;
    readonly changes?: string;
    readonly report?: string;
    /** A decided batch's rows in review (`review.jsonl`); absent without a policy, or in older results. */
    readonly review?: string;
  } | null;
  /** The portfolio a re-screen ran for; null for an upload. */
  readonly portfolio: string | null;
  /** Re-screens only: changes per kind and documents changed (also in the `PortfolioChanged` event). */
  readonly changes: { readonly counts: ChangeCounts; readonly documentsChanged: number } | null;
  /**
   * The credit policy that decided the rows (its name and the SHA-256 of its exact bytes); null for a batch without
   * one (its summary has no decision columns). Absent in manifests written before decisions.
   */
  readonly policy?: { readonly name: string; readonly sha256: string } | null;
  /** Rows per decision, and the reasons given most; null without a policy. */
  readonly decisions?: DecisionTally | null;
  readonly dialect: 'standard' | 'excel';
  readonly failure: { readonly code: string; readonly message: string } | null;
}
