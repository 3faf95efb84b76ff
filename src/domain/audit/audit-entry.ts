/**
 * The audit log's entries: what was asked of a bureau about whom, what was decided and who changed it, kept
 * append-only and without a document in clear. A document is named by its keyed hash (an HMAC with the
 * deployment's own secret), so the log alone identifies no one and erasing a person's data never touches it.
 */
import type { ChargeState } from '../batch/index.ts';
import type { DecisionValue } from '../decision/index.ts';
import type { Bureau } from '../report/index.ts';

interface EntryBase {
  /** When it happened (ISO 8601, UTC). */
  readonly at: string;
  readonly batchId: string;
  readonly row: number;
  /** The document's keyed hash (hex), never the document. */
  readonly documentKey: string;
}

/** One request sent to a bureau, whatever its answer. */
interface BureauRequestEntry extends EntryBase {
  readonly kind: 'bureau_request';
  readonly bureau: Bureau;
  /** `charged`: the bureau answered with a report; `not_charged`: it refused; `charge_unknown`: no answer came back. */
  readonly charge: ChargeState;
  /** The HTTP status of the answer; null when none came back. */
  readonly httpStatus: number | null;
  /** Why the query was made and on what legal ground, as the deployment configures them. */
  readonly purpose: string;
  readonly legalBasis: string;
}

/** A policy's decision on a row's report. */
interface DecisionEntry extends EntryBase {
  readonly kind: 'decision';
  readonly policy: { readonly name: string; readonly sha256: string };
  readonly decision: DecisionValue;
  readonly reasons: readonly string[];
}

/** A person's final decision on a decided row. */
interface OverrideEntry extends EntryBase {
  readonly kind: 'override';
  readonly decision: 'approve' | 'decline';
  readonly previous: DecisionValue;
  readonly by: string;
  readonly reason: string;
}

/**
 * A row's personal data erased on its subject's request (LGPD art. 18, VI): the record that the request was carried
 * out, by whom and why; the entries before it stay as the record that the queries happened.
 */
interface ErasureEntry extends EntryBase {
  readonly kind: 'erasure';
  readonly by: string;
  readonly reason: string;
}

/** Someone read everything held about the person (a data subject's access request, LGPD art. 18, II). */
interface AccessEntry extends EntryBase {
  readonly kind: 'access';
  readonly by: string;
  readonly reason: string;
}

export type AuditEntry = BureauRequestEntry | DecisionEntry | OverrideEntry | ErasureEntry | AccessEntry;

/** Every kind of entry the log keeps, for the schemas that name them (the console's trail). */
export const AUDIT_KINDS = [
  'bureau_request',
  'decision',
  'override',
  'erasure',
  'access',
] as const satisfies readonly AuditEntry['kind'][];

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const LINE_BREAKS = /[\n\r\u000b\u000c\u0085\u2028\u2029]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Why a person's own words that an entry keeps (who decided or erased, and why) cannot be recorded, naming them as
 * `field`; null when they can. Each entry is read as one line: a line break in it would print as a second entry
 * that was never recorded, and another control character could drive the terminal it is read on.
 */
export function auditTextProblem(field: string, text: string): string | null {
  if (LINE_BREAKS.test(text))
    return `${field} holds a line break: the audit log keeps it as one line, so write it on one line`;
  if (CONTROL_CHARACTERS.test(text))
    return `${field} holds a control character (a tab, an escape, …), which the audit log does not keep`;
  return null;
}

/** What the log is asked for: one document's entries or one batch's, within an optional time window. */
export type AuditQuery =
  | { readonly documentKey: string; readonly from?: string; readonly to?: string }
  | {
      readonly batchId: string;
      readonly documentKeys: readonly string[];
      readonly from?: string;
      readonly to?: string;
    };

/**
 * Whether an entry falls in a query's time window, both ends included; ISO strings compare in time order, and a
 * `to` that is a day (`2026-11-25`) or a minute takes in everything within it.
 */
export const inWindow = (entry: Pick<AuditEntry, 'at'>, query: { from?: string; to?: string }): boolean =>
  (query.from === undefined || entry.at >= query.from) &&
  (query.to === undefined || entry.at <= `${query.to}~`);

/** Entries in time order, then by batch, row and kind: the order the log is read in. */
export const byTime = (a: AuditEntry, b: AuditEntry): number =>
  a.at.localeCompare(b.at) ||
  a.batchId.localeCompare(b.batchId) ||
  a.row - b.row ||
  a.kind.localeCompare(b.kind);
