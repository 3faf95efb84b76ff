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
 * Key of the copy of its policy a batch is decided with, taken at ingest: a policy edited or replaced while the
 * batch runs does not change its decisions, and `decide` can show which policy it was.
 */
export const batchPolicyKey = (batchId: string): string => `${S3_LAYOUT.work}${batchId}/policy.json`;
