import { lambdaRuntime } from '../shared/lambda-runtime.ts';
import { createDeadLetterHandler } from './dead-letter-handler.ts';

export const handler = createDeadLetterHandler(lambdaRuntime());
