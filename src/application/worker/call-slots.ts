import { setTimeout as sleep } from 'node:timers/promises';

import type { RequestSlot } from '../../domain/rate-limit/index.ts';
import type { Bureau } from '../../domain/report/index.ts';

/** Waits for a slot to begin: the first is the whole wait; the others only make up for a timer that fired early. */
const MAX_WAITS_FOR_SLOT = 3;

/** Takes one rate-limit slot for a call to `bureau` (waiting for it); rejects when `signal` fires. */
export type AcquireToken = (bureau: Bureau, signal?: AbortSignal) => Promise<RequestSlot>;

/**
 * What must be on record before a call leaves (that it may be charged) and how to take it back when the call
 * cannot leave after all (no slot could be had any more: the invocation's deadline).
 */
export interface WrittenAhead {
  readonly write: () => Promise<void>;
  readonly withdraw: () => Promise<void>;
}

interface WaitingCall {
  readonly bureau: Bureau;
  readonly signal: AbortSignal | undefined;
  readonly call: () => Promise<unknown>;
  readonly ahead: WrittenAhead | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  /** The token reserved for this call while earlier calls were in flight, if any. */
  token: Promise<RequestSlot> | null;
}

/**
 * The bureau calls in flight in one invocation: at most `size` at once, each behind its rate-limit token.
 *
 * Taking a token is a round trip to the shared bucket (a conditional write). Taken when a slot frees, it would
 * add that round trip to every call; taken when a message arrives, tokens would be held while messages wait for a
 * slot, wasting the rate. So the token of a waiting call is reserved while the calls ahead of it are in flight:
 * whenever a call starts, the next `size` waiting calls (the ones that start next) get their tokens. A token is
 * thus held ahead for at most about one call's duration, and never more than `size` of them; calls still never
 * start before their token's time, so the shared rate is never exceeded; and never after its `until` either: a call
 * whose slot went by while it waited for a call slot, or while the process was starved, takes a new one, so late
 * calls never bunch up with the ones on time (any one-second window sees at most rate + burst calls).
 *
 * The record written ahead of a call is written while its slot comes (not before: a process that dies holding it
 * leaves a row whose charge is unknown), and the slot is checked once it is written: a slow write takes a new slot
 * rather than sending the call late; when none can be had, the record is withdrawn, since no call left.
 */
export class CallSlots {
  readonly #size: number;
  readonly #acquire: AcquireToken;
  readonly #waiting: WaitingCall[] = [];
  readonly #now: () => number;
  #active = 0;
  /** Slots given up because the call could not leave by their `until` (for tests and logs). */
  lateSlots = 0;

  constructor(size: number, acquire: AcquireToken, now: () => number = Date.now) {
    if (!(Number.isInteger(size) && size >= 1)) throw new RangeError(`call slots must be ≥ 1, got ${size}`);
    this.#size = size;
    this.#acquire = acquire;
    this.#now = now;
  }

  /**
   * Runs `call` in a slot once its token is taken, after `ahead.write`; rejects with the token's failure (an abort)
   * if that fails, or with the write's.
   */
  run<T>(bureau: Bureau, call: () => Promise<T>, signal?: AbortSignal, ahead?: WrittenAhead): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({
        bureau,
        signal,
        call,
        ahead,
        resolve: resolve as (value: unknown) => void,
        reject,
        token: null,
      });
      this.#startWhatFits();
    });
  }

  #reserve(waiting: WaitingCall): Promise<RequestSlot> {
    // A limiter may throw at once (an already aborted signal): that too must reach the call as a rejection.
    const token = (async () => this.#acquire(waiting.bureau, waiting.signal))();
    // Observed when the call starts; until then a failure must not count as unhandled.
    token.catch(() => undefined);
    return token;
  }

  #startWhatFits(): void {
    while (this.#active < this.#size && this.#waiting.length > 0) {
      const next = this.#waiting.shift() as WaitingCall;
      this.#active++;
      const token = next.token ?? this.#reserve(next);
      void this.#runOne(next, token);
    }
  }

  async #runOne(waiting: WaitingCall, token: Promise<RequestSlot>): Promise<void> {
    try {
      const slot = await token;
      await this.#onTimeWithRecord(waiting, slot);
      // Sent in the same synchronous run as the last check: nothing can delay it past the slot's end.
      const call = waiting.call();
      // This call goes now: the calls that follow reserve their tokens while it is in flight.
      for (const following of this.#waiting.slice(0, this.#size))
        following.token ??= this.#reserve(following);
      waiting.resolve(await call);
    } catch (error) {
      waiting.reject(error);
    } finally {
      this.#active--;
      this.#startWhatFits();
    }
  }

  /** Returns in a slot that has begun and not ended, with the record written ahead; withdraws it if that fails. */
  async #onTimeWithRecord(waiting: WaitingCall, first: RequestSlot): Promise<void> {
    const { ahead } = waiting;
    if (ahead === undefined) {
      await this.#onTime(waiting, first);
      return stillWanted(waiting);
    }
    let written = false;
    const writing = ahead.write().then(() => {
      written = true;
    });
    writing.catch(() => undefined); // observed below, after the slot has begun
    try {
      const slot = await this.#onTime(waiting, first);
      await writing;
      if (this.#now() > slot.until) {
        this.lateSlots++;
        await this.#onTime(waiting, await this.#acquire(waiting.bureau, waiting.signal));
      }
      stillWanted(waiting);
    } catch (error) {
      await writing.catch(() => undefined);
      // Kept if it cannot be withdrawn: a row whose charge is unknown, never a second purchase.
      if (written) await ahead.withdraw().catch(() => undefined);
      throw error;
    }
  }

  /** Waits for `slot` to begin; a slot that went by meanwhile is given up for a new one. */
  async #onTime(waiting: WaitingCall, first: RequestSlot): Promise<RequestSlot> {
    let slot = first;
    for (;;) {
      // A timer may fire a fraction of a millisecond early (Node rounds its delay against a clock of its own):
      // wait again until the slot has begun by the clock the slot was given in. A few times at most: a clock that
      // does not move with the timers (a test's) must not hold the call forever.
      let early = slot.at - this.#now();
      for (let waits = 0; early > 0 && waits < MAX_WAITS_FOR_SLOT; waits++) {
        await sleep(early);
        early = slot.at - this.#now();
      }
      if (this.#now() <= slot.until) return slot;
      this.lateSlots++;
      slot = await this.#acquire(waiting.bureau, waiting.signal);
    }
  }
}

/**
 * Refuses a call whose signal fired while its slot came (the invocation's deadline): a slot may begin a second or two
 * after it was reserved, and a call that leaves then may not have the time its own timeout needs.
 */
function stillWanted(waiting: WaitingCall): void {
  if (waiting.signal?.aborted) throw waiting.signal.reason ?? new Error('the call was no longer wanted');
}
