import { lambdaRuntime } from '../adapters/aws/lambda-runtime.ts';
import { createFinaliseHandler } from './finalise-handler.ts';

export const handler = createFinaliseHandler(lambdaRuntime());
