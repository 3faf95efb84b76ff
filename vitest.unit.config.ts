import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * `npm run test:unit`: the fast loop to run while editing. The domain, the use cases on the memory adapters, the
 * service client, the construct's template and the handlers: no Java (no shared DynamoDB Local is started), no
 * child process, no browser. `npm test` runs everything, these included.
 */
const UNIT_TESTS = [
  'test/domain/**/*.test.ts',
  'test/application/**/*.test.ts',
  'test/adapters/memory/**/*.test.ts',
  'test/adapters/bureau/**/*.test.ts',
  'test/adapters/decision/**/*.test.ts',
  'test/service-client/**/*.test.ts',
  'test/lib/**/*.test.ts',
  'test/lambdas/**/*.test.ts',
  'test/emulator/**/*.test.ts',
  'test/contract/**/*.test.ts',
  'test/docs-links.test.ts',
];

// Spread rather than merged: Vite's mergeConfig would add these lists to the base's instead of replacing them.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: UNIT_TESTS,
    // Runs the handler on the local pipeline (DynamoDB Local): an integration test under a unit folder.
    exclude: ['**/node_modules/**', 'test/lambdas/portfolio-schedules/portfolio-schedules-handler.test.ts'],
    globalSetup: [],
  },
});
