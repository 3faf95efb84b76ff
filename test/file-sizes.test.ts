import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../', import.meta.url).pathname;
/** Short enough to read at once: past this, a file holds more than one thing and is split. */
const MOST_LINES = 450;

function files(folder: string): string[] {
  return readdirSync(join(ROOT, folder)).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(join(ROOT, path)).isDirectory()) return files(path);
    return /\.(ts|mjs)$/.test(name) ? [path] : [];
  });
}

describe('production code', () => {
  it(`has no file over ${MOST_LINES} lines`, () => {
    const long = ['src', 'infrastructure', 'tools', 'service-client', 'bin', 'scripts']
      .flatMap(files)
      .map((path) => ({ path, lines: readFileSync(join(ROOT, path), 'utf8').split('\n').length - 1 }))
      .filter((file) => file.lines > MOST_LINES);

    expect(long).toEqual([]);
  });
});
