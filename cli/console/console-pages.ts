import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The console's sources (web/) and where Vite builds its pages. */
const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
const PAGES = join(WEB, 'dist');

/** The newest modification time under `path` (files only), skipping the build's own folder. */
async function newestSource(path: string): Promise<number> {
  const entries = await readdir(path, { withFileTypes: true });
  let newest = 0;
  for (const entry of entries) {
    const full = join(path, entry.name);
    if (full === PAGES) continue;
    const time = entry.isDirectory() ? await newestSource(full) : (await stat(full)).mtimeMs;
    newest = Math.max(newest, time);
  }
  return newest;
}

async function builtAt(): Promise<number | null> {
  return stat(join(PAGES, 'index.html')).then(
    (built) => built.mtimeMs,
    () => null,
  );
}

/**
 * The folder of the console's built pages, built first when missing or older than their sources (a checkout has
 * the sources only; Vite builds them in a few seconds). `say` is told when a build starts.
 */
export async function consolePages(say: (line: string) => void): Promise<string> {
  const built = await builtAt();
  if (built !== null && built >= (await newestSource(WEB))) return PAGES;
  say('building the console’s pages (once after each change to web/)…');
  await buildConsolePages(PAGES);
  return PAGES;
}

/**
 * Builds the pages into `outDir` with Vite, in a process of its own whose NODE_ENV is `production`: React and its
 * JSX runtime are chosen by NODE_ENV, which the caller's shell may set to anything (a test runner's is `test`, which
 * shipped React's development build).
 */
export async function buildConsolePages(outDir: string): Promise<void> {
  const vite = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
  await promisify(execFile)(
    process.execPath,
    [
      vite,
      'build',
      '--config',
      join(WEB, 'vite.config.ts'),
      '--outDir',
      outDir,
      '--emptyOutDir',
      '--logLevel',
      'warn',
    ],
    { env: { ...process.env, NODE_ENV: 'production' } },
  );
}
