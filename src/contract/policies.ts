/** Where credit policies live in the bucket, and how an upload names the one that decides its batch. */

import { S3_LAYOUT } from './s3-layout.ts';

/**
 * The object metadata an upload names its policy with (`x-amz-meta-policy: pessoa-juridica.json`). Metadata rather
 * than a key segment: it composes with every upload prefix (`incoming/<bureau>/priority/…` included) and keeps the
 * key opaque.
 */
export const POLICY_METADATA = 'policy';

/**
 * A policy's name: a file name under `policies/` (letters, digits, `.`, `_`, `-`, ending in `.json`), never a path,
 * so a name from metadata cannot reach another prefix.
 */
export const isPolicyName = (name: string): boolean => /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}\.json$/.test(name);

/** Key of a policy the customer keeps in the bucket. */
export const policyKey = (name: string): string => `${S3_LAYOUT.policies}${name}`;

/**
 * Key of the verdict of the upload check on a policy's exact bytes (by their SHA-256): the same bytes under another
 * name or in another version share it, and ingest reads it to refuse a batch named after a rejected policy.
 */
export const policyVerdictKey = (sha256: string): string => `${S3_LAYOUT.work}policy-checks/${sha256}.json`;

/** What the upload check found (`policyVerdictKey`). */
export interface PolicyVerdict {
  readonly name: string;
  readonly sha256: string;
  readonly accepted: boolean;
  /** Why it was refused; null when accepted. */
  readonly problem: string | null;
  /** Fields the policy reads that the decision input does not have (they read null), one line each. */
  readonly warnings: readonly string[];
  readonly checkedAt: string;
}

/**
 * Key of the copy of its policy a batch is decided with, taken at ingest: a policy edited or replaced while the
 * batch runs does not change its decisions, and `decide` can show which policy it was.
 */
export const batchPolicyKey = (batchId: string): string => `${S3_LAYOUT.work}${batchId}/policy.json`;
