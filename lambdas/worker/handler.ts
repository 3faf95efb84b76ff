import { lambdaRuntime } from '../adapters/aws/lambda-runtime.ts';
import { workerSettings } from '../adapters/aws/pipeline-adapters.ts';
import { createWorkerHandler } from './worker-handler.ts';

const runtime = lambdaRuntime();

export const handler = createWorkerHandler({
  ...runtime,
  settings: workerSettings(runtime.environment.settings),
});
