/**
 * The bureaus the pipeline can query, one entry each: how people name it and what a deployment gets unless it says
 * otherwise. Everything per bureau (settings, limiters, budgets, the command line's options) is made from here, so
 * adding a bureau is one entry, plus its wire adapter and normaliser.
 */
import { BUREAUS, type Bureau } from './bureau-ids.ts';

/** What a deployment sets per bureau. */
export interface BureauSettings {
  /** Requests per second across all workers. */
  readonly rateLimitPerSecond: number;
  /**
   * Capacity of the global token bucket: no one-second window ever sees more than rate + this many calls. Part of
   * it may be kept back from bursts so that a call can leave up to about 100 ms late (see `gcraOf`).
   */
  readonly rateLimitBurst: number;
  /**
   * What one query costs, in BRL: the quote's price. The defaults are the top of the public price list (R$
   * 2.70–8.40), so an unconfigured quote errs high; set your contract's prices.
   */
  readonly pricePerQuery: number;
  /**
   * Most queries per calendar month (Brasília time) across every batch; null for no cap. It is never exceeded:
   * each query reserves its unit atomically before it is sent. Rows left when it is reached settle `not_queried`.
   */
  readonly monthlyChargeCap: number | null;
}

/** One bureau. */
export interface BureauEntry {
  readonly id: Bureau;
  /** How messages and help name it: `A`. */
  readonly label: string;
  readonly defaults: BureauSettings;
}

/** The top of the public price list, in BRL. */
const LIST_PRICE = 8.4;

export const BUREAU_REGISTRY: { readonly [Id in Bureau]: BureauEntry } = {
  a: {
    id: 'a',
    label: 'A',
    defaults: {
      rateLimitPerSecond: 10,
      rateLimitBurst: 10,
      pricePerQuery: LIST_PRICE,
      monthlyChargeCap: null,
    },
  },
  b: {
    id: 'b',
    label: 'B',
    defaults: {
      rateLimitPerSecond: 10,
      rateLimitBurst: 10,
      pricePerQuery: LIST_PRICE,
      monthlyChargeCap: null,
    },
  },
};

/** A record with one value per bureau of the registry. */
export function perBureau<T>(value: (bureau: Bureau) => T): Record<Bureau, T> {
  return Object.fromEntries(BUREAUS.map((bureau) => [bureau, value(bureau)])) as Record<Bureau, T>;
}

/** Whether a text names a bureau of the registry. */
export function isBureau(text: string): text is Bureau {
  return (BUREAUS as readonly string[]).includes(text);
}
