import { lambdaRuntime } from '../shared/lambda-runtime.ts';
import { auditBasisOf } from '../shared/pipeline-adapters.ts';
import { createDeadLetterHandler } from './dead-letter-handler.ts';

const runtime = lambdaRuntime();

export const handler = createDeadLetterHandler({
  ...runtime,
  auditBasis: auditBasisOf(runtime.environment.settings),
});
