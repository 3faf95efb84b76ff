/** What decides a fair queue's order: src/contract/queues.ts's FAIR_QUEUE_BEHAVIOUR, as AWS documents it. */
export interface FairQueueBehaviour {
  readonly noisyInFlightShare: number;
  readonly noisyMinimumInFlight: number;
  readonly noisyProcessingShare: number;
  readonly processingWindowSeconds: number;
}

/** A message handed out by {@link FairQueueBuffer.take}, to give back to {@link FairQueueBuffer.done}. */
export interface FairQueueTicket<Item> {
  readonly item: Item;
  /** The message's group, or undefined (a tenant of its own). */
  readonly tenant: string | undefined;
  readonly startedAt: number;
}

interface Waiting<Item> {
  readonly item: Item;
  readonly arrival: number;
}

/** First in, first out, without Array#shift's copying of a long backlog. */
class Line<Item> {
  #items: Item[] = [];
  #head = 0;
  get length(): number {
    return this.#items.length - this.#head;
  }
  peek(): Item | undefined {
    return this.#items[this.#head];
  }
  push(item: Item): void {
    this.#items.push(item);
  }
  shift(): Item | undefined {
    const item = this.#items[this.#head];
    this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}

/**
 * The order in which an Amazon SQS fair queue hands out messages, for the local event source (fauxqs keeps no
 * message group on a standard queue, so its order is first in, first out). It holds the waiting messages and the
 * ones in flight per tenant, and on each receive serves quiet tenants first (oldest message first, a message
 * without a group counting as a quiet tenant of its own), then noisy tenants, the one with the fewest messages in
 * flight first. A tenant is noisy by the two measures AWS documents: its share of the messages in flight (with a
 * minimum count) and its share of recent processing time.
 */
export class FairQueueBuffer<Item> {
  readonly #behaviour: FairQueueBehaviour;
  readonly #clock: () => number;
  readonly #groups = new Map<string, Line<Waiting<Item>>>();
  readonly #ungrouped = new Line<Waiting<Item>>();
  readonly #inFlight = new Map<string, number>();
  readonly #running = new Set<FairQueueTicket<Item>>();
  #finished: { tenant: string | undefined; startedAt: number; endedAt: number }[] = [];
  #arrivals = 0;
  #waiting = 0;

  constructor(behaviour: FairQueueBehaviour, clock: () => number = Date.now) {
    this.#behaviour = behaviour;
    this.#clock = clock;
  }

  /** Messages waiting to be handed out. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Queues a message of `tenant` (undefined: no group). */
  add(item: Item, tenant: string | undefined): void {
    const waiting = { item, arrival: this.#arrivals++ };
    this.#waiting++;
    if (tenant === undefined) {
      this.#ungrouped.push(waiting);
      return;
    }
    let line = this.#groups.get(tenant);
    if (line === undefined) {
      line = new Line();
      this.#groups.set(tenant, line);
    }
    line.push(waiting);
  }

  /** Hands out up to `count` messages in the fair queue's order and counts them in flight. */
  take(count: number): FairQueueTicket<Item>[] {
    const now = this.#clock();
    const processingShares = this.#processingShares(now);
    const taken: FairQueueTicket<Item>[] = [];
    while (taken.length < count) {
      const tenant = this.#next(processingShares);
      if (tenant === null) break;
      const line = tenant === undefined ? this.#ungrouped : this.#groups.get(tenant);
      const waiting = line?.shift();
      if (waiting === undefined) break;
      if (tenant !== undefined && line?.length === 0) this.#groups.delete(tenant);
      this.#waiting--;
      if (tenant !== undefined) this.#inFlight.set(tenant, (this.#inFlight.get(tenant) ?? 0) + 1);
      const ticket = { item: waiting.item, tenant, startedAt: now };
      this.#running.add(ticket);
      taken.push(ticket);
    }
    return taken;
  }

  /** Messages whose processing ended (deleted or given back): they leave the in-flight counts. */
  done(tickets: readonly FairQueueTicket<Item>[]): void {
    const endedAt = this.#clock();
    for (const ticket of tickets) {
      if (!this.#running.delete(ticket)) continue;
      if (ticket.tenant !== undefined) {
        const left = (this.#inFlight.get(ticket.tenant) ?? 1) - 1;
        if (left > 0) this.#inFlight.set(ticket.tenant, left);
        else this.#inFlight.delete(ticket.tenant);
      }
      this.#finished.push({ tenant: ticket.tenant, startedAt: ticket.startedAt, endedAt });
    }
  }

  /** Whether `tenant` counts as a noisy neighbour now (for tests and the README's description). */
  isNoisy(tenant: string): boolean {
    return this.#noisy(tenant, this.#processingShares(this.#clock()));
  }

  /** Takes every waiting message out (when the event source stops, to give them back to the queue). */
  drain(): Item[] {
    const items: Item[] = [];
    for (const line of [this.#ungrouped, ...this.#groups.values()])
      for (let waiting = line.shift(); waiting !== undefined; waiting = line.shift())
        items.push(waiting.item);
    this.#groups.clear();
    this.#waiting = 0;
    return items;
  }

  /** The tenant to serve next: undefined for the oldest message without a group, null when nothing waits. */
  #next(processingShares: ReadonlyMap<string, number>): string | undefined | null {
    let quiet: { tenant: string | undefined; arrival: number } | null = null;
    const ungroupedHead = this.#ungrouped.peek();
    if (ungroupedHead !== undefined) quiet = { tenant: undefined, arrival: ungroupedHead.arrival };
    let noisy: { tenant: string; inFlight: number; arrival: number } | null = null;
    for (const [tenant, line] of this.#groups) {
      const head = line.peek();
      if (head === undefined) continue;
      if (!this.#noisy(tenant, processingShares)) {
        if (quiet === null || head.arrival < quiet.arrival) quiet = { tenant, arrival: head.arrival };
        continue;
      }
      const inFlight = this.#inFlight.get(tenant) ?? 0;
      if (
        noisy === null ||
        inFlight < noisy.inFlight ||
        (inFlight === noisy.inFlight && head.arrival < noisy.arrival)
      )
        noisy = { tenant, inFlight, arrival: head.arrival };
    }
    if (quiet !== null) return quiet.tenant;
    return noisy === null ? null : noisy.tenant;
  }

  #noisy(tenant: string, processingShares: ReadonlyMap<string, number>): boolean {
    const inFlight = this.#inFlight.get(tenant) ?? 0;
    const totalInFlight = this.#running.size;
    const byConcurrency =
      inFlight >= this.#behaviour.noisyMinimumInFlight &&
      inFlight / totalInFlight > this.#behaviour.noisyInFlightShare;
    return byConcurrency || (processingShares.get(tenant) ?? 0) > this.#behaviour.noisyProcessingShare;
  }

  /** Each group's share of the processing time of the last window, finished and still running. */
  #processingShares(now: number): Map<string, number> {
    const windowStart = now - this.#behaviour.processingWindowSeconds * 1000;
    this.#finished = this.#finished.filter((span) => span.endedAt > windowStart);
    const spent = new Map<string | undefined, number>();
    let total = 0;
    const count = (tenant: string | undefined, startedAt: number, endedAt: number) => {
      const time = endedAt - Math.max(startedAt, windowStart);
      if (time <= 0) return;
      spent.set(tenant, (spent.get(tenant) ?? 0) + time);
      total += time;
    };
    for (const span of this.#finished) count(span.tenant, span.startedAt, span.endedAt);
    for (const ticket of this.#running) count(ticket.tenant, ticket.startedAt, now);
    const shares = new Map<string, number>();
    if (total === 0) return shares;
    for (const [tenant, time] of spent) if (tenant !== undefined) shares.set(tenant, time / total);
    return shares;
  }
}
