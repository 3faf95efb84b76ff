import { isPolicyName, S3_LAYOUT } from '../../contract/index.ts';
import type { ObjectStore } from '../../domain/ports/index.ts';

/** The policies an upload may name: the policy files directly under `policies/` (verdicts and the rest are not). */
export async function policyNames(objects: Pick<ObjectStore, 'list'>): Promise<string[]> {
  const names: string[] = [];
  for await (const key of objects.list(S3_LAYOUT.policies)) {
    const name = key.slice(S3_LAYOUT.policies.length);
    if (isPolicyName(name)) names.push(name);
  }
  return names.sort();
}
