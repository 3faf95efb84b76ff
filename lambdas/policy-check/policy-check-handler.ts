import type { S3Event } from 'aws-lambda';
import {
  checkPolicyUpload,
  type PolicyCheckDependencies,
} from '../../src/application/policies/check-policy-upload.ts';
import { type PolicyVerdict, S3_LAYOUT } from '../../src/contract/index.ts';
import { objectKeyOf } from '../shared/s3-event-key.ts';

/** The policy-check Lambda: checks each object created under `policies/` (see {@link checkPolicyUpload}). */
export function createPolicyCheckHandler(deps: PolicyCheckDependencies) {
  return async (event: S3Event): Promise<(PolicyVerdict | null)[]> => {
    const verdicts: (PolicyVerdict | null)[] = [];
    for (const record of event.Records) {
      const key = objectKeyOf(record);
      if (!key.startsWith(S3_LAYOUT.policies)) continue;
      verdicts.push(await checkPolicyUpload({ key, versionId: record.s3.object.versionId }, deps));
    }
    return verdicts;
  };
}
