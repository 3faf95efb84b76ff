import type { DecisionReason } from '../decision/index.ts';
import type { DocumentType } from '../documents/index.ts';

/**
 * A row the policy sent to a person, as `review.jsonl` keeps it (one per line, in row order, first occurrences only):
 * what the review queue lists, without reading the batch's whole summary. The document is kept as the summary keeps
 * it, in full, so that an erasure finds the line and drops it like the summary's; the queue masks it when it lists it.
 */
export interface ReviewLine {
  readonly row: number;
  readonly document: string;
  readonly documentType: DocumentType | null;
  readonly reasons: readonly DecisionReason[];
  readonly risk_band: string | null;
  readonly credit_limit: number | null;
  /** The customer's own columns, by the summary's headers for them. */
  readonly customer: Readonly<Record<string, string>>;
}

/** The line of `review.jsonl` for a summary row, or null for a row that is not waiting for a person. */
export function reviewLineOf(
  row: {
    readonly row: number;
    readonly document: string;
    readonly documentType: DocumentType | null;
    readonly status: string;
    readonly decision?: {
      readonly decision: string;
      readonly reasons: readonly DecisionReason[];
      readonly risk_band: string | null;
      readonly credit_limit: number | null;
    } | null;
    readonly passThrough: readonly string[];
  },
  headers: readonly string[],
): ReviewLine | null {
  if (row.status === 'duplicate' || row.decision?.decision !== 'review') return null;
  return {
    row: row.row,
    document: row.document,
    documentType: row.documentType,
    reasons: row.decision.reasons,
    risk_band: row.decision.risk_band,
    credit_limit: row.decision.credit_limit,
    customer: Object.fromEntries(headers.map((header, index) => [header, row.passThrough[index] ?? ''])),
  };
}
