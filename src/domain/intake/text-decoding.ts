import iconv from 'iconv-lite';
import { CustomerListError } from './customer-list-errors.ts';

/**
 * The encodings customer lists arrive in: UTF-8 (with or without BOM), Excel's Brazilian default, and the UTF-16
 * of Excel's "Unicode text" export (with its BOM, or without one from other tools: told by its NUL bytes).
 */
export type TextEncodingName = 'utf-8' | 'windows-1252' | 'utf-16le' | 'utf-16be';

/**
 * How many first bytes are looked at before anything is decoded: enough for any byte-order mark or file signature
 * below, and for UTF-16's NUL bytes to show in a line of text.
 */
const SNIFF_BYTES = 64;

/**
 * Files that are not text, by their first bytes, and what to tell the person who sent one. UTF-32's marks come first:
 * `FF FE 00 00` also starts UTF-16LE's.
 */
const NOT_TEXT: readonly {
  readonly bytes: readonly number[];
  readonly code: 'unsupported_encoding' | 'not_a_text_file';
  readonly message: string;
}[] = [
  {
    bytes: [0xff, 0xfe, 0x00, 0x00],
    code: 'unsupported_encoding',
    message: 'this file is UTF-32 (little-endian); save it as CSV in UTF-8',
  },
  {
    bytes: [0x00, 0x00, 0xfe, 0xff],
    code: 'unsupported_encoding',
    message: 'this file is UTF-32 (big-endian); save it as CSV in UTF-8',
  },
  {
    bytes: [0x50, 0x4b, 0x03, 0x04],
    code: 'not_a_text_file',
    message:
      'this is an Excel workbook (.xlsx) or another ZIP archive, not a CSV: open it in Excel and save it as CSV',
  },
  {
    bytes: [0xd0, 0xcf, 0x11, 0xe0],
    code: 'not_a_text_file',
    message: 'this is an old Excel workbook (.xls), not a CSV: open it in Excel and save it as CSV',
  },
  {
    bytes: [0x1f, 0x8b],
    code: 'not_a_text_file',
    message: 'this file is gzip-compressed: decompress it (gunzip) and send the CSV inside',
  },
  {
    bytes: [0x25, 0x50, 0x44, 0x46, 0x2d],
    code: 'not_a_text_file',
    message: 'this is a PDF, not a CSV: export the list from its source as CSV',
  },
];

/** Byte-order marks that name an encoding. */
const BYTE_ORDER_MARKS: readonly {
  readonly bytes: readonly number[];
  readonly encoding: TextEncodingName;
}[] = [
  { bytes: [0xef, 0xbb, 0xbf], encoding: 'utf-8' },
  { bytes: [0xff, 0xfe], encoding: 'utf-16le' },
  { bytes: [0xfe, 0xff], encoding: 'utf-16be' },
];

interface ChunkDecoder {
  write(bytes: Uint8Array): string;
  end(): string;
}

function firstNonAsciiIndex(bytes: Uint8Array): number {
  for (let index = 0; index < bytes.length; index++) {
    if ((bytes[index] as number) > 0x7f) return index;
  }
  return -1;
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[]) =>
  bytes.length >= prefix.length && prefix.every((byte, index) => bytes[index] === byte);

/** Refuses a file that is not text (a workbook, an archive, UTF-32), by its first bytes, in one line. */
function refuseIfNotText(start: Uint8Array): void {
  const match = NOT_TEXT.find((signature) => startsWith(start, signature.bytes));
  if (match) throw new CustomerListError(match.code, match.message);
}

/**
 * UTF-16 without a byte-order mark, told by its NUL bytes: text in Latin script has a zero high byte in almost every
 * code unit, so one half of the byte positions is nearly all zeros and the other has none; a CSV in any 8-bit
 * encoding has no NUL at all. Null when the bytes do not look like UTF-16.
 */
function utf16ByNulPattern(start: Uint8Array): TextEncodingName | null {
  const pairs = Math.floor(start.length / 2);
  if (pairs < 2) return null;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let index = 0; index < pairs * 2; index += 2) {
    if (start[index] === 0) evenZeros++;
    if (start[index + 1] === 0) oddZeros++;
  }
  if (oddZeros >= pairs * 0.6 && evenZeros === 0) return 'utf-16le';
  if (evenZeros >= pairs * 0.6 && oddZeros === 0) return 'utf-16be';
  return null;
}

/** How the first bytes of a file stand against the byte-order marks. */
type MarkMatch =
  | { readonly kind: 'mark'; readonly encoding: TextEncodingName }
  | { readonly kind: 'too_short' }
  | { readonly kind: 'none' };

function matchByteOrderMark(bytes: Uint8Array): MarkMatch {
  let tooShort = false;
  for (const mark of BYTE_ORDER_MARKS) {
    const compared = Math.min(bytes.length, mark.bytes.length);
    if (!mark.bytes.slice(0, compared).every((byte, index) => bytes[index] === byte)) continue;
    if (compared === mark.bytes.length) return { kind: 'mark', encoding: mark.encoding };
    tooShort = true;
  }
  return tooShort ? { kind: 'too_short' } : { kind: 'none' };
}

// The longest UTF-8 sequence: fewer bytes after the first non-ASCII one cannot tell the encodings apart.
const LONGEST_UTF8_SEQUENCE = 4;

function isValidUtf8(bytes: Uint8Array, complete: boolean): boolean {
  try {
    // `stream: true` tolerates a multi-byte character cut at the end of the bytes.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: !complete });
    return true;
  } catch {
    return false;
  }
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  if (first.length === 0) return second;
  const joined = new Uint8Array(first.length + second.length);
  joined.set(first);
  joined.set(second, first.length);
  return joined;
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/**
 * Decodes a byte stream whose encoding is not declared, choosing between UTF-8 and Windows-1252 on the fly, or
 * UTF-16 when the file starts with its byte-order mark.
 *
 * The first bytes are held until they tell what the file is (at most `SNIFF_BYTES`): a workbook, an archive or
 * UTF-32 is refused in one line; a UTF-16 mark, or UTF-16's NUL bytes without one, chooses UTF-16 for the whole file, decoded as a stream so a code unit or a surrogate pair cut between chunks stays
 * whole. Otherwise ASCII reads the same in UTF-8 and Windows-1252, so the choice is made at the first chunk
 * holding a non-ASCII byte: UTF-8 when that chunk is valid UTF-8 (or the file starts with a UTF-8 BOM),
 * Windows-1252 otherwise. Nothing is buffered or read twice. Node's own `TextDecoder('windows-1252')` is really Latin-1 (it maps 0x80 to U+0080, not €), so
 * Windows-1252 goes through iconv-lite.
 */
export class AutoTextDecoder {
  #encoding: TextEncodingName | undefined;
  #decoder: ChunkDecoder | undefined;
  /** The first bytes, held while too few to tell a byte-order mark from text; null once decided. */
  #start: Uint8Array | null = new Uint8Array(0);
  /** Bytes from the first non-ASCII one on, held while too few to decide. */
  #undecided: Uint8Array = new Uint8Array(0);

  /** The encoding chosen so far; `utf-8` while the input has been pure ASCII. */
  get encoding(): TextEncodingName {
    return this.#encoding ?? 'utf-8';
  }

  write(chunk: Uint8Array): string {
    if (this.#start !== null) {
      const start = concat(this.#start, chunk);
      if (start.length < SNIFF_BYTES) {
        this.#start = start;
        return '';
      }
      return this.#decideFrom(start);
    }
    return this.#write(chunk);
  }

  /**
   * Decides from the first bytes: a file that is not text is refused; a byte-order mark, or UTF-16's NUL bytes,
   * choose the encoding for the whole file; otherwise UTF-8 or Windows-1252 is chosen at the first non-ASCII byte.
   */
  #decideFrom(start: Uint8Array): string {
    this.#start = null;
    refuseIfNotText(start);
    const match = matchByteOrderMark(start);
    const encoding = match.kind === 'mark' ? match.encoding : utf16ByNulPattern(start);
    if (encoding !== null) this.#choose(encoding);
    return this.#write(start);
  }

  #write(chunk: Uint8Array): string {
    if (this.#decoder !== undefined) return this.#decoder.write(chunk);

    const bytes = concat(this.#undecided, chunk);
    const nonAscii = firstNonAsciiIndex(bytes);
    if (nonAscii === -1) return latin1(bytes);
    if (bytes.length - nonAscii < LONGEST_UTF8_SEQUENCE) {
      this.#undecided = bytes.slice(nonAscii);
      return latin1(bytes.subarray(0, nonAscii));
    }
    this.#undecided = new Uint8Array(0);
    const decoder = this.#choose(isValidUtf8(bytes.subarray(nonAscii), false) ? 'utf-8' : 'windows-1252');
    return latin1(bytes.subarray(0, nonAscii)) + decoder.write(bytes.subarray(nonAscii));
  }

  end(): string {
    if (this.#start !== null) {
      // The whole file was shorter than the bytes looked at first.
      const text = this.#decideFrom(this.#start);
      return text + this.end();
    }
    if (this.#decoder === undefined && this.#undecided.length > 0) {
      const decoder = this.#choose(isValidUtf8(this.#undecided, true) ? 'utf-8' : 'windows-1252');
      const text = decoder.write(this.#undecided);
      this.#undecided = new Uint8Array(0);
      return text + decoder.end();
    }
    return this.#decoder?.end() ?? '';
  }

  #choose(encoding: TextEncodingName): ChunkDecoder {
    this.#encoding = encoding;
    if (encoding !== 'windows-1252') {
      // Not fatal once chosen: a stray invalid byte (or a lone surrogate) later becomes U+FFFD instead of failing
      // the whole file. The decoder drops the byte-order mark itself, and streaming keeps split characters whole.
      const unicode = new TextDecoder(encoding);
      this.#decoder = {
        write: (bytes) => unicode.decode(bytes, { stream: true }),
        end: () => unicode.decode(),
      };
    } else {
      const cp1252 = iconv.getDecoder('win1252');
      this.#decoder = {
        write: (bytes) => cp1252.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)),
        end: () => cp1252.end() ?? '',
      };
    }
    return this.#decoder;
  }
}
