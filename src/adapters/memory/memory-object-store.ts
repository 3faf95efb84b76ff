import type { ObjectStore } from '../../domain/ports/index.ts';

/** How much of an object one read yields at a time. */
const READ_SLICE_BYTES = 1024 * 1024;

/** The bucket in memory, for use-case tests: whole objects by key, read back as S3 would give them. */
export class MemoryObjectStore implements ObjectStore {
  readonly #objects = new Map<string, Buffer>();
  readonly #metadata = new Map<string, Readonly<Record<string, string>>>();

  constructor(readonly bucket = 'memory') {}

  /** Puts an object as a customer's upload would arrive. */
  put(key: string, body: string | Buffer, metadata: Readonly<Record<string, string>> = {}): void {
    this.#objects.set(key, Buffer.from(body));
    this.#metadata.set(key, metadata);
  }

  async metadataOf(key: string): Promise<Readonly<Record<string, string>>> {
    if (!this.#objects.has(key)) throw new Error(`no object ${key}`);
    return this.#metadata.get(key) ?? {};
  }

  /** Removes an object, as a lifecycle rule, an erasure or an operator would. */
  delete(key: string): void {
    this.#objects.delete(key);
    this.#metadata.delete(key);
  }

  /** The keys under a prefix, sorted. */
  keys(prefix = ''): string[] {
    return [...this.#objects.keys()].filter((key) => key.startsWith(prefix)).sort();
  }

  async *read(key: string): AsyncIterable<Uint8Array> {
    const body = this.#objects.get(key);
    if (body === undefined) throw new Error(`no object ${key}`);
    // In slices, as S3 streams a body: a reader never holds more than one in a string, however big the object.
    for (let start = 0; start < body.length; start += READ_SLICE_BYTES)
      yield body.subarray(start, start + READ_SLICE_BYTES);
  }

  async readTextIfExists(key: string): Promise<string | null> {
    return this.#objects.get(key)?.toString('utf8') ?? null;
  }

  async exists(key: string): Promise<boolean> {
    return this.#objects.has(key);
  }

  async putJson(key: string, value: unknown): Promise<void> {
    this.#objects.set(key, Buffer.from(JSON.stringify(value)));
  }

  async *list(prefix: string): AsyncIterable<string> {
    yield* this.keys(prefix);
  }

  async rewrite(
    key: string,
    bytes: Uint8Array,
    metadata: Readonly<Record<string, string>> = {},
  ): Promise<void> {
    if (!this.#objects.has(key)) throw new Error(`no object ${key}`);
    this.#objects.set(key, Buffer.from(bytes));
    this.#metadata.set(key, { ...this.#metadata.get(key), ...metadata });
  }

  async remove(key: string): Promise<void> {
    this.delete(key);
  }

  async writeStream(
    key: string,
    _contentType: string,
    body: AsyncIterable<string | Uint8Array>,
  ): Promise<void> {
    // Kept as bytes chunk by chunk: a file of a million rows never becomes one string (V8 caps them near 512 MB).
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(Buffer.from(chunk));
    this.#objects.set(key, Buffer.concat(chunks));
  }
}
