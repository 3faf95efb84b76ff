const EMPTY = -1;
const INITIAL_CAPACITY = 1 << 12;
// Keys of numeric CNPJs are offset past every CPF (a CPF is below 1e11) so the two never collide.
const CNPJ_KEY_OFFSET = 1e14;

function hashOf(key: number): number {
  // Documents are integers below 2^53: mix the low and high 32-bit halves.
  const low = key >>> 0;
  const high = Math.floor(key / 4294967296) >>> 0;
  let hash = Math.imul(low ^ Math.imul(high, 0x9e3779b1), 0x85ebca6b);
  hash ^= hash >>> 13;
  return Math.imul(hash, 0xc2b2ae35) ^ (hash >>> 16);
}

/**
 * Remembers the row where each document first appeared, for duplicate detection over files of a million rows.
 *
 * A `Map<string, number>` costs over 100 bytes per document once V8's string slices are counted, which alone
 * would take half of a 256 MB ingest Lambda. Every numeric CPF and CNPJ fits exactly in a double, so they live
 * in an open-addressing table of typed arrays (12 bytes a slot, at most half full); the alphanumeric CNPJ, new and
 * rare, goes to a plain Map.
 */
export class FirstOccurrences {
  #keys = new Float64Array(INITIAL_CAPACITY);
  #rows = new Int32Array(INITIAL_CAPACITY).fill(EMPTY);
  #numericSize = 0;
  #alphanumeric = new Map<string, number>();

  /** How many distinct documents have been remembered. */
  get size(): number {
    return this.#numericSize + this.#alphanumeric.size;
  }

  /**
   * Returns the row where `document` (normalised) first appeared, remembering `row` for it when it is new.
   * @returns the earlier row, or undefined when this is the first occurrence.
   */
  firstRowOrRemember(document: string, row: number): number | undefined {
    if (document.length !== 11 && !/^\d+$/.test(document)) {
      const earlier = this.#alphanumeric.get(document);
      if (earlier === undefined) this.#alphanumeric.set(document, row);
      return earlier;
    }
    const key = document.length === 11 ? Number(document) : Number(document) + CNPJ_KEY_OFFSET;
    const mask = this.#rows.length - 1;
    for (let slot = hashOf(key) & mask; ; slot = (slot + 1) & mask) {
      const stored = this.#rows[slot] as number;
      if (stored === EMPTY) {
        this.#keys[slot] = key;
        this.#rows[slot] = row;
        if (++this.#numericSize * 2 > this.#rows.length) this.#grow();
        return undefined;
      }
      if (this.#keys[slot] === key) return stored;
    }
  }

  #grow(): void {
    const oldKeys = this.#keys;
    const oldRows = this.#rows;
    this.#keys = new Float64Array(oldKeys.length * 2);
    this.#rows = new Int32Array(oldRows.length * 2).fill(EMPTY);
    const mask = this.#rows.length - 1;
    for (let old = 0; old < oldRows.length; old++) {
      const row = oldRows[old] as number;
      if (row === EMPTY) continue;
      const key = oldKeys[old] as number;
      let slot = hashOf(key) & mask;
      while (this.#rows[slot] !== EMPTY) slot = (slot + 1) & mask;
      this.#keys[slot] = key;
      this.#rows[slot] = row;
    }
  }
}
