/**
 * The first `capacity` items of a stream in `compare` order, kept sorted as they come, so the riskiest rows of a
 * million-row batch take constant memory. `offered` counts every item offered, for the "n more not shown" note.
 */
export class TopList<T> {
  readonly #items: T[] = [];
  #offered = 0;

  constructor(
    readonly capacity: number,
    readonly compare: (a: T, b: T) => number,
  ) {}

  offer(item: T): void {
    this.#offered++;
    const items = this.#items;
    const last = items[items.length - 1];
    if (items.length >= this.capacity && last !== undefined && this.compare(item, last) >= 0) return;
    // Binary search for the first item that sorts after the new one (stable: equal items keep their order).
    let low = 0;
    let high = items.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.compare(items[middle] as T, item) <= 0) low = middle + 1;
      else high = middle;
    }
    items.splice(low, 0, item);
    if (items.length > this.capacity) items.pop();
  }

  /**
   * Adds what another list of the same order kept and how many it was offered (a part of the same stream, gathered
   * apart): the items kept are those one list offered the whole stream would keep.
   */
  absorb(part: { readonly items: readonly T[]; readonly total: number }): void {
    for (const item of part.items) this.offer(item);
    this.#offered += part.total - part.items.length;
  }

  /** The kept items, first in order first. */
  get items(): readonly T[] {
    return this.#items;
  }

  /** How many items were offered in all. */
  get offered(): number {
    return this.#offered;
  }
}
