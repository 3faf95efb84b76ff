import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The project's one map, and the top folders each of whose folders it must name. */
const MAP = 'docs/architecture.md';
const MAPPED_ROOTS = ['src', 'lib', 'lambdas', 'cli'];

/** Every folder under `root`, itself included, as `root/…/` (how the map writes a folder). */
function foldersUnder(root: string): string[] {
  const below = readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => foldersUnder(join(root, entry.name)));
  return [`${root}/`, ...below];
}

/** The folders the map's table of folders lists (its first column, in backticks). */
function mappedFolders(map: string): Set<string> {
  return new Set([...map.matchAll(/^\| `([^`]+\/)` \|/gm)].map((match) => match[1] as string));
}

/** The folders of `roots` the map leaves out. */
function unmappedFolders(map: string, roots: readonly string[]): string[] {
  const mapped = mappedFolders(map);
  return roots.flatMap(foldersUnder).filter((folder) => !mapped.has(folder));
}

describe('the architecture map', () => {
  it(`names every folder of ${MAPPED_ROOTS.join(', ')} in its table of folders`, () => {
    expect(unmappedFolders(readFileSync(MAP, 'utf8'), MAPPED_ROOTS)).toEqual([]);
  });

  it('fails on a folder it does not name', () => {
    const map = readFileSync(MAP, 'utf8').replace(/^\| `src\/domain\/spend\/` \|.*\n/m, '');

    expect(unmappedFolders(map, ['src'])).toEqual(['src/domain/spend/']);
  });
});
