import { zenCreditPolicyLoader } from '../../src/adapters/decision/zen-credit-policy.ts';
import { lambdaRuntime } from '../shared/lambda-runtime.ts';
import { createFinaliseHandler } from './finalise-handler.ts';

const runtime = lambdaRuntime();

export const handler = createFinaliseHandler({
  ...runtime,
  changeThresholds: { scorePoints: runtime.environment.settings.scoreChangePoints },
  changeAlerts: {
    changeKinds: runtime.environment.settings.alertChangeKinds,
    worstChanges: runtime.environment.settings.alertWorstChanges,
  },
  reportLanguage: runtime.environment.settings.reportLanguage,
  partRows: runtime.environment.settings.finalisePartRows,
  policyLoader: zenCreditPolicyLoader,
});
