import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Property-based and CLI tests spawn processes or run many iterations; the default 5 s is too tight on 2 cores.
    testTimeout: 30_000,
  },
});
