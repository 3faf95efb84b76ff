/**
 * Characters a terminal may act on instead of showing: C0 and C1 controls (ESC starts colour, title and
 * hyperlink sequences; U+009B is a one-character CSI), DEL, and the invisible bidirectional marks and overrides
 * that make text read differently from what it is (the "Trojan Source" characters), plus the Unicode line breaks.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** How `printable` shortens a value: enough to recognise an id or a path, never a screenful. */
export interface PrintableOptions {
  /** Longer values are cut here, with the full length said. @default no limit */
  readonly maxLength?: number;
}

/**
 * A value that came from outside (a file name, an id, a key, a server's message) made safe to print on a
 * terminal: every control or invisible direction character is written as its `\uXXXX` escape, so an escape
 * sequence is shown, not obeyed. The escapes are JSON's, so JSON text stays valid JSON with the same value.
 * With `maxLength`, a longer value is cut and its length said.
 */
export function printable(value: string, options: PrintableOptions = {}): string {
  const maxLength = options.maxLength ?? Number.POSITIVE_INFINITY;
  const shown =
    value.length > maxLength ? `${value.slice(0, maxLength)}… (${value.length} characters)` : value;
  return shown.replace(
    UNPRINTABLE,
    (character) => `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}

/** Text of several lines made safe to print line by line: line breaks stay, everything else as `printable`. */
export function printableLines(text: string): string {
  return text
    .split('\n')
    .map((line) => printable(line))
    .join('\n');
}
