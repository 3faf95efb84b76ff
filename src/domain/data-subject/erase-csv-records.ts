import iconv from 'iconv-lite';
import Papa from 'papaparse';
import { AutoTextDecoder, sniffDelimiter } from '../intake/index.ts';
import { cellHoldsDocument } from './document-mentions.ts';

/** How an erased record is written when the file is one of the pipeline's own (a summary, a changes file). */
export interface OwnFileColumns {
  /** Columns (by header) an erased record keeps: its row number and what became of it, never personal data. */
  readonly keep: readonly string[];
  /** The column that says the record was erased, and what it says. */
  readonly note: { readonly column: string; readonly text: string };
}

interface CsvRecordsErasure {
  /** The file with those records erased: every other byte as it was. */
  readonly bytes: Uint8Array;
  /** How many records held the document. */
  readonly records: number;
}

// The sniffer reads the first lines only, as the intake does.
const SNIFF_CHARACTERS = 64 * 1024;
// A file with a single column has no delimiter; the parser still needs one that never occurs in text.
const NO_DELIMITER = '\u001F';

/**
 * Erases, in a CSV file of any encoding the intake reads, every record with a cell that holds `document`. Without
 * `own`, the record's cells are all emptied (its delimiters stay, so no neighbour moves into its columns, and the
 * intake reads it as a blank line); with `own`, a file of the pipeline's, the record keeps its row number and status
 * and says it was erased; with `drop`, a file of the pipeline's whose every record is about its subject (a changes
 * file), the record is removed with its line break. Every other record keeps its exact bytes (quoting, line breaks, encoding, BOM): the file is
 * changed by splicing, never re-written, and the result is decoded again to prove it reads as intended.
 *
 * @returns null when no record holds the document (nothing to write back).
 * @throws Error when the file cannot be decoded as text, or its splice does not read back as intended.
 */
export function eraseCsvRecords(
  bytes: Uint8Array,
  document: string,
  own?: OwnFileColumns | 'drop',
): CsvRecordsErasure | null {
  const decoder = new AutoTextDecoder();
  const text = decoder.write(bytes) + decoder.end();
  const encoding = decoder.encoding;
  const delimiter = sniffDelimiter(text.slice(0, SNIFF_CHARACTERS), text.length <= SNIFF_CHARACTERS);
  const cellsOf = (record: string): string[] =>
    (Papa.parse<string[]>(record, { delimiter: delimiter ?? NO_DELIMITER, newline: '\n' }).data[0] ??
      []) as string[];
  const records = recordSpans(text, delimiter ?? NO_DELIMITER);
  const header =
    own !== undefined && records[0] ? cellsOf(text.slice(records[0].start, records[0].end)) : null;
  const replacements: { start: number; end: number; text: string }[] = [];
  for (const [index, span] of records.entries()) {
    if (index === 0 && header !== null) continue;
    const record = text.slice(span.start, span.end);
    // Most records do not hold it: the document's last digits are a cheap test before the record is parsed.
    if (!record.includes(document.slice(-2))) continue;
    const cells = cellsOf(record);
    if (!cells.some((cell) => cellHoldsDocument(cell, document))) continue;
    if (own === 'drop') {
      replacements.push({ start: span.start, end: span.end + lineBreakAt(text, span.end), text: '' });
      continue;
    }
    const erased =
      header === null || own === undefined
        ? cells.map(() => '')
        : cells.map((cell, position) => {
            const column = header[position] ?? '';
            if (column === own.note.column) return own.note.text;
            return own.keep.includes(column) ? cell : '';
          });
    replacements.push({ ...span, text: erased.map((cell) => quoted(cell, delimiter)).join(delimiter ?? '') });
  }
  if (replacements.length === 0) return null;
  return { bytes: splice(bytes, text, encoding, replacements), records: replacements.length };
}

/** The length of the line break at `index` (CRLF, LF, CR), 0 at the end of the text. */
const lineBreakAt = (text: string, index: number): number =>
  text.startsWith('\r\n', index) ? 2 : text[index] === '\r' || text[index] === '\n' ? 1 : 0;

function quoted(cell: string, delimiter: string | null): string {
  const needs = cell.includes('"') || /[\r\n]/.test(cell) || (delimiter !== null && cell.includes(delimiter));
  return needs ? `"${cell.replaceAll('"', '""')}"` : cell;
}

/**
 * Where each record of the text starts and ends (before its line break), read as the intake reads them: a quote
 * opens a field only as its first character, doubled it is data, and outside quotes CRLF, LF or a lone CR ends the
 * record. Blank lines are records too (they are never erased: they hold nothing).
 */
function recordSpans(text: string, delimiter: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let inQuotes = false;
  let fieldStart = true;
  for (let index = start; index < text.length; index++) {
    const character = text[index];
    if (inQuotes) {
      if (character === '"') {
        if (text[index + 1] === '"') index++;
        else inQuotes = false;
      }
      continue;
    }
    if (character === '"' && fieldStart) {
      inQuotes = true;
      fieldStart = false;
    } else if (character === '\r' || character === '\n') {
      spans.push({ start, end: index });
      if (character === '\r' && text[index + 1] === '\n') index++;
      start = index + 1;
      fieldStart = true;
    } else {
      fieldStart = character === delimiter;
    }
  }
  if (start < text.length) spans.push({ start, end: text.length });
  return spans;
}

const ICONV_NAMES = {
  'utf-8': 'utf8',
  'windows-1252': 'win1252',
  'utf-16le': 'utf16le',
  'utf-16be': 'utf16be',
} as const;

/** Replaces character spans of the decoded text in the original bytes, and checks the result decodes as expected. */
function splice(
  bytes: Uint8Array,
  text: string,
  encoding: keyof typeof ICONV_NAMES,
  replacements: readonly { start: number; end: number; text: string }[],
): Uint8Array {
  const encode = (part: string): Buffer => iconv.encode(part, ICONV_NAMES[encoding]);
  // What the decoder dropped in front (a byte-order mark) is the difference between the file and its text.
  const prefix = bytes.length - encode(text).length;
  const pieces: Uint8Array[] = [];
  let copiedUpToByte = 0;
  for (const replacement of replacements) {
    const startByte = prefix + encode(text.slice(0, replacement.start)).length;
    const endByte = startByte + encode(text.slice(replacement.start, replacement.end)).length;
    pieces.push(bytes.subarray(copiedUpToByte, startByte), encode(replacement.text));
    copiedUpToByte = endByte;
  }
  pieces.push(bytes.subarray(copiedUpToByte));
  const result = Buffer.concat(pieces);
  let expected = '';
  let from = 0;
  for (const replacement of replacements) {
    expected += text.slice(from, replacement.start) + replacement.text;
    from = replacement.end;
  }
  expected += text.slice(from);
  const decoder = new AutoTextDecoder();
  if (decoder.write(result) + decoder.end() !== expected)
    throw new Error(`the erased file does not read back as intended (${encoding})`);
  return result;
}
