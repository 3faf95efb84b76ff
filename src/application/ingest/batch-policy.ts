import { createHash } from 'node:crypto';
import {
  batchPolicyKey,
  isPolicyName,
  POLICY_METADATA,
  type PolicyVerdict,
  policyKey,
  policyVerdictKey,
} from '../../contract/index.ts';
import type { BatchPolicy, FileFailure } from '../../domain/batch/index.ts';
import type { ObjectStore } from '../../domain/ports/index.ts';

/** The policy a new batch is decided with, or why its file is refused; `none` for a batch without a policy. */
export type PolicyChoice =
  | { readonly kind: 'none' }
  | { readonly kind: 'policy'; readonly policy: BatchPolicy; readonly text: string }
  | { readonly kind: 'refused'; readonly failure: FileFailure };

/**
 * Which policy decides a batch: the one its upload names in its `policy` metadata, else the portfolio's, else the
 * deployment's default; none when nothing names one. A name that is not a policy's, or a policy that is not in the
 * bucket, refuses the file before anything is bought: a batch meant to be decided is never screened undecided.
 * The policy is only read here (its hash taken); the workers and the finaliser compile the batch's copy. A policy
 * the upload check rejected (`checkPolicyUpload`: the same bytes, by their hash) refuses the file too. One not
 * checked yet (uploaded a moment ago) is used: its rows are then decided `review` with `POLICY_ERROR` if it does not
 * compile, never `approve`.
 */
export async function choosePolicy(
  batchId: string,
  named: {
    readonly metadata: Readonly<Record<string, string>>;
    readonly portfolio: string | null;
    readonly fallback: string | null;
  },
  objects: Pick<ObjectStore, 'readTextIfExists'>,
): Promise<PolicyChoice> {
  const name = named.metadata[POLICY_METADATA] ?? named.portfolio ?? named.fallback;
  if (name === null || name === undefined || name === '') return { kind: 'none' };
  if (!isPolicyName(name))
    return {
      kind: 'refused',
      failure: {
        code: 'invalid_policy',
        message: `the policy named, ${JSON.stringify(name.slice(0, 100))}, is not a policy file name (name.json)`,
      },
    };
  const text = await objects.readTextIfExists(policyKey(name));
  if (text === null)
    return {
      kind: 'refused',
      failure: {
        code: 'policy_not_found',
        message: `the policy ${name} is not in the bucket (${policyKey(name)})`,
      },
    };
  const sha256 = createHash('sha256').update(text, 'utf8').digest('hex');
  const verdict = await objects.readTextIfExists(policyVerdictKey(sha256));
  const rejected = verdict === null ? null : (JSON.parse(verdict) as PolicyVerdict);
  if (rejected !== null && !rejected.accepted)
    return {
      kind: 'refused',
      failure: {
        code: 'policy_rejected',
        message: `the policy ${name} was rejected when it was uploaded: ${rejected.problem ?? 'no reason kept'}`,
      },
    };
  return { kind: 'policy', policy: { name, sha256, key: batchPolicyKey(batchId) }, text };
}

/** Keeps the batch's own copy of its policy, unless an earlier attempt of the same ingest already did. */
export async function keepPolicyCopy(
  choice: PolicyChoice,
  objects: Pick<ObjectStore, 'exists' | 'writeStream'>,
): Promise<void> {
  if (choice.kind !== 'policy' || (await objects.exists(choice.policy.key))) return;
  await objects.writeStream(
    choice.policy.key,
    'application/json',
    (async function* () {
      yield choice.text;
    })(),
  );
}
