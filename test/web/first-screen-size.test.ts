import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildConsolePages } from '../../cli/console/console-pages.ts';

/** The most compressed script the console's first screen may load (issue #40). */
const MAX_FIRST_SCREEN_GZIP_BYTES = 250 * 1024;

let outDir: string;

beforeAll(async () => {
  // A build of its own, so this test never races the console's build of web/dist.
  outDir = join(fileURLToPath(new URL('../../test-output/', import.meta.url)), 'web-size');
  await buildConsolePages(outDir);
}, 120_000);

describe('the console’s first screen', () => {
  it('loads at most 250 KB of compressed script, all of it its own files (no inline script)', () => {
    const page = readFileSync(join(outDir, 'index.html'), 'utf8');
    const scripts = [...page.matchAll(/<script[^>]*src="\/([^"]+)"/g)].map(([, path]) => path as string);
    const preloads = [...page.matchAll(/<link rel="modulepreload"[^>]*href="\/([^"]+)"/g)].map(
      ([, path]) => path as string,
    );

    const compressed = [...scripts, ...preloads].reduce(
      (total, path) => total + gzipSync(readFileSync(join(outDir, path))).length,
      0,
    );

    expect(scripts.length).toBeGreaterThan(0);
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(compressed).toBeLessThan(MAX_FIRST_SCREEN_GZIP_BYTES);
    expect(readdirSync(join(outDir, 'assets')).every((file) => /\.(js|css)$/.test(file))).toBe(true);
  });
});
