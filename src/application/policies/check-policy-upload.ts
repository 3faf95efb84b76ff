import { createHash } from 'node:crypto';
import { isPolicyName, type PolicyVerdict, policyVerdictKey, S3_LAYOUT } from '../../contract/index.ts';
import type { CreditPolicyLoader, EventPublisher, Logger, ObjectStore } from '../../domain/ports/index.ts';

export interface PolicyCheckDependencies {
  readonly objects: Pick<ObjectStore, 'readTextIfExists' | 'putJson'>;
  readonly policyLoader: CreditPolicyLoader;
  readonly events: Pick<EventPublisher, 'policyRejected'>;
  readonly logger: Logger;
  readonly now?: () => number;
}

/** A policy object S3 told us about. */
export interface UploadedPolicy {
  readonly key: string;
  /** The version S3 gave it, where the bucket keeps versions. */
  readonly versionId?: string;
}

/**
 * Checks a policy uploaded under `policies/` the way `check --policy` and `screen` check one locally: it must load
 * (JSON, a decision graph, every expression compiling, a `decision` output). The verdict is kept under the bytes'
 * SHA-256 for ingest, which refuses an upload named after a rejected policy before anything is bought; a rejected
 * policy is announced with `PolicyRejected`. Null when the object is gone already (a later upload replaced it).
 */
export async function checkPolicyUpload(
  upload: UploadedPolicy,
  deps: PolicyCheckDependencies,
): Promise<PolicyVerdict | null> {
  const text = await deps.objects.readTextIfExists(upload.key);
  if (text === null) return null;
  const name = upload.key.slice(S3_LAYOUT.policies.length);
  const sha256 = createHash('sha256').update(text, 'utf8').digest('hex');
  const checked = await checkText(name, text, deps.policyLoader);
  const verdict: PolicyVerdict = {
    name,
    sha256,
    ...checked,
    checkedAt: new Date((deps.now ?? Date.now)()).toISOString(),
  };
  await deps.objects.putJson(policyVerdictKey(sha256), verdict);
  if (verdict.accepted) {
    deps.logger.info('policy accepted', { name, sha256, warnings: verdict.warnings });
    return verdict;
  }
  deps.logger.warn('policy rejected', { name, sha256, problem: verdict.problem });
  await deps.events.policyRejected({
    name,
    key: upload.key,
    versionId: upload.versionId ?? null,
    sha256,
    problem: verdict.problem ?? '',
  });
  return verdict;
}

async function checkText(
  name: string,
  text: string,
  loader: CreditPolicyLoader,
): Promise<Pick<PolicyVerdict, 'accepted' | 'problem' | 'warnings'>> {
  // A name no upload can give (a folder, another extension) would never decide anything: say so now.
  if (!isPolicyName(name))
    return {
      accepted: false,
      problem: `${JSON.stringify(name.slice(0, 100))} is not a policy file name (name.json directly under ${S3_LAYOUT.policies})`,
      warnings: [],
    };
  const loaded = await loader.load(name, text);
  return loaded.ok
    ? { accepted: true, problem: null, warnings: loaded.warnings }
    : { accepted: false, problem: loaded.error, warnings: [] };
}
