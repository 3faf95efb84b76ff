import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CONSOLE_WEB_DIRECTORY, consolePagesBuild } from '../../src/contract/console-pages.ts';

/** The console's sources (web/) and where Vite builds its pages. */
const WEB = CONSOLE_WEB_DIRECTORY;
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

/** Builds the pages into `outDir` with Vite (see {@link consolePagesBuild}). */
export async function buildConsolePages(outDir: string): Promise<void> {
  const build = consolePagesBuild(outDir);
  await promisify(execFile)(build.command, [...build.args], { env: build.env });
}
