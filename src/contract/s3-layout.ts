import { randomBytes } from 'node:crypto';
/** The pipeline bucket's layout: its prefixes and the key of every object the pipeline reads or writes. */

import { INCOMING_PREFIX } from '../domain/batch/index.ts';
import { PORTFOLIO_PREFIX } from '../domain/monitoring/index.ts';
import type { Bureau } from '../domain/report/index.ts';

/**
 * S3 layout of the pipeline bucket: every prefix, spelled once (upload and portfolio prefixes come from the domain
 * code that reads them). Every prefix but `portfolios/` and `policies/` holds personal data that expires after the retention period.
 */
export const S3_LAYOUT = {
  incoming: INCOMING_PREFIX,
  raw: 'raw/',
  results: 'results/',
  work: 'work/',
  portfolios: PORTFOLIO_PREFIX,
  /** Credit policies (JDM files) the customer keeps; no personal data, so they do not expire. */
  policies: 'policies/',
  /**
   * The parts of a big batch's finalisation, while they are joined (see {@link finalisePartKeys}); the join removes
   * them, and any a stopped join left expire after {@link FINALISE_PARTS_EXPIRY_DAYS}, whatever the retention.
   */
  finaliseParts: 'finalise-parts/',
} as const;

/** Days the parts of a finalisation are kept at most: a batch is finalised in minutes. */
export const FINALISE_PARTS_EXPIRY_DAYS = 2;

/** The prefixes whose objects expire after the retention period (LGPD). */
export const EXPIRING_PREFIXES = [
  S3_LAYOUT.incoming,
  S3_LAYOUT.raw,
  S3_LAYOUT.results,
  S3_LAYOUT.work,
] as const;

/**
 * Where a worker persists a paid answer before it does anything else with it: one key per batch row (never a
 * document), so the next holder of a row whose settle failed finds the answer instead of paying for it again.
 * The stored report points at it as its raw response.
 */
export const answerKey = (bureau: Bureau, batchId: string, row: number): string =>
  `${S3_LAYOUT.raw}${bureau}/${batchId}/${row}.json`;

/**
 * Where the finaliser writes each part of a big batch's result files before it joins them into the files themselves,
 * and removes them: the lines of each file for the part's rows, the documents its alerts announce, and its
 * aggregate (counts and figures), written last under {@link finaliseAggregatesPrefix} (a part with one is done, and
 * listing them lists nothing else). A part is named by the batch's revision (a redrive finalises the batch again)
 * and its rows (zero-padded, so keys sort in row order): parts of an earlier finalisation, or cut at another size,
 * never pass for this one's.
 */
export const finalisePartKeys = (
  batchId: string,
  revision: number,
  part: { readonly first: number; readonly last: number },
) => {
  const rows = `${String(part.first).padStart(10, '0')}-${String(part.last).padStart(10, '0')}`;
  const base = `${finalisePartsPrefix(batchId)}r${revision}/${rows}/`;
  return {
    summary: `${base}summary.csv`,
    reports: `${base}reports.jsonl`,
    changes: `${base}changes.csv`,
    review: `${base}review.jsonl`,
    alerts: `${base}alerts.jsonl`,
    aggregate: `${finaliseAggregatesPrefix(batchId, revision)}${rows}.json`,
  };
};

/** Where the aggregates of a finalisation's written parts are, one object each. */
export const finaliseAggregatesPrefix = (batchId: string, revision: number): string =>
  `${finalisePartsPrefix(batchId)}r${revision}/aggregates/`;

/** The prefix of every part of every finalisation of a batch (see {@link finalisePartKeys}). */
export const finalisePartsPrefix = (batchId: string): string => `${S3_LAYOUT.finaliseParts}${batchId}/`;

/**
 * The key under which the command line uploads a customer list: `incoming/<bureau>/<UTC time>-<nonce>.<ext>`,
 * e.g. `incoming/a/20261123T194400123Z-kqtzmwbrfhae.csv`. Made of opaque parts only: a file name can be a
 * document (`529.982.247-25.csv`) or hold line breaks and escape sequences, and keys end up in manifests,
 * listings, events and logs. The name is dropped; only its extension is kept, when it is a short word (it cannot
 * hold a document), so the object still says what it is. `nonce` is random ({@link uploadNonce}) and keeps two uploads
 * in the same millisecond apart.
 */
export function uploadKey(
  bureau: Bureau,
  fileName: string,
  at: Date,
  nonce: string,
  priority = false,
): string {
  const extension = /\.([A-Za-z][A-Za-z0-9]{0,4})$/.exec(fileName)?.[1]?.toLowerCase() ?? 'csv';
  const time = at.toISOString().replace(/[-:.]/g, '');
  // `priority/` right under the bureau's folder asks for the priority lane (src/domain/batch/delivery-lane.ts).
  const folder = priority ? `${bureau}/priority` : bureau;
  return `${S3_LAYOUT.incoming}${folder}/${time}-${nonce}.${extension}`;
}

/**
 * The random part of an upload key: 12 lowercase letters (about 56 bits). Letters only: hex digits could line up as
 * eleven digits in a row, which reads as a CPF to anyone searching keys for documents (it happened: `43161749070c`).
 */
export function uploadNonce(): string {
  return Array.from(randomBytes(12), (byte) => String.fromCharCode(97 + (byte % 26))).join('');
}

export const resultKeys = (batchId: string) => ({
  summary: `${S3_LAYOUT.results}${batchId}/summary.csv`,
  reports: `${S3_LAYOUT.results}${batchId}/reports.jsonl`,
  manifest: `${S3_LAYOUT.results}${batchId}/manifest.json`,
  /** A batch that waited for approval: what it would buy, at what cost (written when it starts waiting). */
  quote: `${S3_LAYOUT.results}${batchId}/quote.json`,
  /** Re-screens only: what changed since each document's previous report. */
  changes: `${S3_LAYOUT.results}${batchId}/changes.csv`,
  /** The page people read: counts, spend, risk, the riskiest customers and changes (written before the manifest). */
  report: `${S3_LAYOUT.results}${batchId}/report.html`,
  /** A decided batch's rows the policy sent to a person (what the review queue lists, without the whole summary). */
  review: `${S3_LAYOUT.results}${batchId}/review.jsonl`,
});
