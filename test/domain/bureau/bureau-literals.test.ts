import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUREAU_REGISTRY, perBureau } from '../../../src/domain/bureau/index.ts';
import { BUREAUS } from '../../../src/domain/report/index.ts';
import { ROOT, sourceFiles } from '../../factories/source-files.ts';

/** Where a bureau may be spelled out: its id list and registry, the wire (client, gateway), the normaliser, the emulator. */
const ALLOWED = [
  'src/domain/bureau/bureau-ids.ts',
  'src/domain/bureau/bureau-registry.ts',
  'src/domain/report/normalise-report.ts',
  'src/domain/report/brazilian-formats.ts',
  'src/adapters/bureau/',
  'service-client/',
  'emulator/',
];

/** How code spells a bureau out: compared with an id, a union of ids, a record keyed by them, a per-bureau flag. */
const BUREAU_LITERALS = [
  /[!=]==\s*'[ab]'/,
  /'a'\s*\|\s*'b'/,
  /\{\s*a:[^{}\n]*,\s*b:/,
  /\[\s*'a',\s*'b'\s*\]/,
  /`[ab]#/,
  /price-[ab]\b|price[AB]\b/,
];

/** Comments may name a bureau as an example (`--price a=2,70`). */
const COMMENT = /^\s*(\/\/|\/\*|\*)/;

describe('the bureau registry', () => {
  it('is where bureaus are spelled out: no production file outside it, the wire, the normaliser and the emulator names one', () => {
    const offenders = ['src', 'lib', 'lambdas', 'cli', 'emulator', 'bin', 'scripts', 'service-client']
      .flatMap(sourceFiles)
      .filter((path) => !ALLOWED.some((allowed) => path.startsWith(allowed)))
      .flatMap((path) =>
        readFileSync(join(ROOT, path), 'utf8')
          .split('\n')
          .flatMap((line, index) =>
            !COMMENT.test(line) && BUREAU_LITERALS.some((pattern) => pattern.test(line))
              ? [`${relative(ROOT, join(ROOT, path))}:${index + 1}: ${line.trim()}`]
              : [],
          ),
      );

    expect(offenders).toEqual([]);
  });

  it('has one entry per bureau id, each with its defaults', () => {
    expect(Object.keys(BUREAU_REGISTRY)).toEqual([...BUREAUS]);
    expect(perBureau((bureau) => BUREAU_REGISTRY[bureau].id)).toEqual(
      Object.fromEntries(BUREAUS.map((b) => [b, b])),
    );
  });
});
