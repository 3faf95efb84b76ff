import { zenCreditPolicyLoader } from '../../src/adapters/decision/zen-credit-policy.ts';
import { bureauEndpointOf } from '../../src/domain/bureau/index.ts';
import { lambdaRuntime } from '../shared/lambda-runtime.ts';
import { workerSettings } from '../shared/pipeline-adapters.ts';
import { createWorkerHandler } from './worker-handler.ts';

const runtime = lambdaRuntime();

export const handler = createWorkerHandler({
  ...runtime,
  settings: workerSettings(runtime.environment.settings, bureauEndpointOf(runtime.environment.bureauBaseUrl)),
  policyLoader: zenCreditPolicyLoader,
});
