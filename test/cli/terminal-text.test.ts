import { describe, expect, it } from 'vitest';
import { printable, printableLines } from '../../cli/terminal-text.ts';

/** What a terminal would act on if it were printed raw (ESC, BEL, the one-character CSI). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters looked for
const RAW_CONTROLS = /[\u001b\u0007\u009b]/;

describe('printable', () => {
  it.each([
    ['a colour sequence', '\u001b[31mred', '\\u001b[31mred'],
    ['a window-title sequence ended by BEL', '\u001b]0;pwned\u0007', '\\u001b]0;pwned\\u0007'],
    ['a one-character CSI (C1)', 'a\u009b2Jb', 'a\\u009b2Jb'],
    ['a newline and a carriage return', 'one\ntwo\rthree', 'one\\u000atwo\\u000dthree'],
    ['DEL and NUL', 'x\u007fy\u0000', 'x\\u007fy\\u0000'],
    ['a right-to-left override', 'invoice\u202Ecsv.exe', 'invoice\\u202ecsv.exe'],
  ])('shows %s as escapes instead of letting the terminal act on it', (_label, value, expected) => {
    expect(printable(value)).toBe(expected);
  });

  it('leaves ordinary text, accents and emoji alone', () => {
    expect(printable('Conceição – ações 📄.csv')).toBe('Conceição – ações 📄.csv');
  });

  it('cuts a value longer than maxLength and says how long it was', () => {
    const shown = printable('a'.repeat(100_000), { maxLength: 20 });

    expect(shown).toBe(`${'a'.repeat(20)}… (100000 characters)`);
  });

  it('keeps JSON text valid JSON with the same value', () => {
    const value = { id: 'x\u009b\u001b[2J' };

    const shown = printable(JSON.stringify(value));

    expect(shown).not.toMatch(RAW_CONTROLS);
    expect(JSON.parse(shown)).toEqual(value);
  });
});

describe('printableLines', () => {
  it('keeps line breaks and escapes what is inside each line', () => {
    expect(printableLines('batch \u001b[1mX\nsource y\u0007')).toBe('batch \\u001b[1mX\nsource y\\u0007');
  });
});
