import { jwtClaimsAuthenticator } from '../../src/api/jwt-claims-authenticator.ts';
import { lambdaRuntime } from '../shared/lambda-runtime.ts';
import { createConsoleApiHandler } from './console-api-handler.ts';

const runtime = lambdaRuntime();

export const handler = createConsoleApiHandler({
  authenticator: jwtClaimsAuthenticator,
  batches: runtime,
  review: runtime,
  logger: runtime.logger,
});
