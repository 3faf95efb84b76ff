import iconv from 'iconv-lite';

/** The two encodings customer lists arrive in: UTF-8 (with or without BOM) and Excel's Brazilian default. */
export type TextEncodingName = 'utf-8' | 'windows-1252';

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

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

function startsWithUtf8Bom(bytes: Uint8Array): boolean {
  return bytes[0] === UTF8_BOM[0] && bytes[1] === UTF8_BOM[1] && bytes[2] === UTF8_BOM[2];
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
 * Decodes a byte stream whose encoding is not declared, choosing between UTF-8 and Windows-1252 on the fly.
 *
 * ASCII reads the same in both, so the choice is made at the first chunk holding a non-ASCII byte: UTF-8 when
 * that chunk is valid UTF-8 (or the file starts with a UTF-8 BOM), Windows-1252 otherwise. Nothing is buffered
 * or read twice. Node's own `TextDecoder('windows-1252')` is really Latin-1 (it maps 0x80 to U+0080, not €), so
 * Windows-1252 goes through iconv-lite.
 */
export class AutoTextDecoder {
  #encoding: TextEncodingName | undefined;
  #decoder: ChunkDecoder | undefined;
  #sawFirstChunk = false;
  /** Bytes from the first non-ASCII one on, held while too few to decide. */
  #undecided: Uint8Array = new Uint8Array(0);

  /** The encoding chosen so far; `utf-8` while the input has been pure ASCII. */
  get encoding(): TextEncodingName {
    return this.#encoding ?? 'utf-8';
  }

  write(chunk: Uint8Array): string {
    if (!this.#sawFirstChunk && chunk.length > 0) {
      this.#sawFirstChunk = true;
      if (startsWithUtf8Bom(chunk)) this.#choose('utf-8');
    }
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
    if (encoding === 'utf-8') {
      // Not fatal once chosen: a stray invalid byte later becomes U+FFFD instead of failing the whole file.
      const utf8 = new TextDecoder('utf-8');
      this.#decoder = {
        write: (bytes) => utf8.decode(bytes, { stream: true }),
        end: () => utf8.decode(),
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
