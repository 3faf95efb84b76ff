import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The console's page sources (a Vite project): the local console and the construct build the same pages. */
export const CONSOLE_WEB_DIRECTORY = fileURLToPath(new URL('../../web/', import.meta.url));

/**
 * How to build the pages into `outDir`: Vite in a process of its own whose NODE_ENV is `production` (React and its
 * JSX runtime are chosen by NODE_ENV, which a caller's shell may set to anything: a test runner's `test` shipped
 * React's development build).
 */
export function consolePagesBuild(outDir: string): {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
} {
  const vite = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
  return {
    command: process.execPath,
    args: [
      vite,
      'build',
      '--config',
      join(CONSOLE_WEB_DIRECTORY, 'vite.config.ts'),
      '--outDir',
      outDir,
      '--emptyOutDir',
      '--logLevel',
      'warn',
    ],
    env: { ...process.env, NODE_ENV: 'production' },
  };
}
