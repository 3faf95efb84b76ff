import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, sourceFiles } from './factories/source-files.ts';

/** Short enough to read at once: past this, a file holds more than one thing and is split. */
const MOST_LINES = 450;

describe('production code', () => {
  it(`has no file over ${MOST_LINES} lines`, () => {
    const long = ['src', 'lib', 'lambdas', 'cli', 'emulator', 'service-client', 'bin', 'scripts']
      .flatMap(sourceFiles)
      .map((path) => ({ path, lines: readFileSync(join(ROOT, path), 'utf8').split('\n').length - 1 }))
      .filter((file) => file.lines > MOST_LINES);

    expect(long).toEqual([]);
  });
});
