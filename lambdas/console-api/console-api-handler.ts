import { handle } from 'hono/aws-lambda';
import { type ConsoleApiDependencies, createConsoleApi } from '../../src/api/console-api.ts';

/**
 * The console API's Lambda: API Gateway's HTTP API (payload 2.0) in, the same Hono app `credit-screen console`
 * serves on a laptop out. The JWT authorizer has verified the caller before the function runs; the app reads who
 * they are from the verified claims and checks their roles on every route.
 */
export function createConsoleApiHandler(deps: ConsoleApiDependencies) {
  return handle(createConsoleApi(deps));
}
