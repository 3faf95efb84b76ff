import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from '@swc/core';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WEB = join(ROOT, 'web/src');
/** What the pages may import of the project: the console's contract, and their own folder. */
const ALLOWED =
  /^(web\/src\/|src\/contract\/console-(routes|roles|schemas|case-schemas|upload-schemas)\.ts$)/;

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(folder, entry.name))
      : /\.tsx?$/.test(entry.name)
        ? [join(folder, entry.name)]
        : [],
  );
}

/** Every module a file imports (static and type-only), parsed by swc as dependency-cruiser does the .ts files. */
function importsOf(file: string): string[] {
  const module = parseSync(readFileSync(file, 'utf8'), { syntax: 'typescript', tsx: file.endsWith('.tsx') });
  return module.body.flatMap((item) =>
    item.type === 'ImportDeclaration' ||
    ((item.type === 'ExportAllDeclaration' || item.type === 'ExportNamedDeclaration') && item.source)
      ? [(item as { source: { value: string } }).source.value]
      : [],
  );
}

describe('the console’s pages', () => {
  it('import nothing of the project but the console’s contract (dependency-cruiser cannot parse their JSX)', () => {
    const outside = sources(WEB).flatMap((file) =>
      importsOf(file)
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => relative(ROOT, resolve(dirname(file), specifier)))
        .filter((target) => !ALLOWED.test(target))
        .map((target) => `${relative(ROOT, file)} → ${target}`),
    );

    expect(sources(WEB).length).toBeGreaterThan(5);
    expect(outside).toEqual([]);
  });
});
