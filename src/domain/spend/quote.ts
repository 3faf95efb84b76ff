import type { Bureau } from '../report/index.ts';

/**
 * What screening a list will cost before anything is bought: the documents to buy (unique valid documents less
 * those a stored report younger than the freshness window answers), at the configured price per query, and how
 * long that takes at the global rate limit. The same object goes into `check --json`, `quote.json` and the
 * manifest, in snake_case as downstream scripts read it.
 */
export interface Quote {
  readonly bureau: Bureau;
  /** Unique valid documents in the list. */
  readonly unique: number;
  /** Of those, answered by a stored report still fresh; null when no store was consulted (unknown). */
  readonly reusable: number | null;
  /** Documents that would be bought: `unique − reusable` (all of them when `reusable` is unknown). */
  readonly to_buy: number;
  /** BRL per query at this bureau, as configured. */
  readonly price_per_query: number;
  /** `to_buy × price_per_query`, in BRL, rounded to the centavo. */
  readonly estimated_cost: number;
  readonly currency: 'BRL';
  /** Seconds the queries take at the configured rate (the global limit bounds every batch). */
  readonly estimated_seconds: number;
}

export interface QuoteInput {
  readonly bureau: Bureau;
  readonly unique: number;
  readonly reusable: number | null;
  readonly pricePerQuery: number;
  readonly ratePerSecond: number;
}

/**
 * What `queries` cost at `pricePerQuery`, in BRL: counted in centavos, so the product of a price and a count never
 * carries a binary fraction into the total.
 */
export function costOf(queries: number, pricePerQuery: number): number {
  return (queries * Math.round(pricePerQuery * 100)) / 100;
}

export function quoteOf(input: QuoteInput): Quote {
  const toBuy = Math.max(0, input.unique - (input.reusable ?? 0));
  const priceCents = Math.round(input.pricePerQuery * 100);
  return {
    bureau: input.bureau,
    unique: input.unique,
    reusable: input.reusable,
    to_buy: toBuy,
    price_per_query: priceCents / 100,
    estimated_cost: costOf(toBuy, input.pricePerQuery),
    currency: 'BRL',
    estimated_seconds: Math.ceil(toBuy / input.ratePerSecond),
  };
}

/**
 * What to do when a quote's queries would outlast what the pipeline keeps waiting for them (see
 * `longestBatchSeconds`): split the list into `parts` lists of at most `documents_per_part`, or screen at
 * `rate_per_second`. Snake_case, as `check --json` prints it.
 */
export interface QuoteOverrun {
  /** The longest the queries may take, in seconds. */
  readonly limit_seconds: number;
  readonly parts: number;
  readonly documents_per_part: number;
  /** The rate (queries per second, to the hundredth, rounded up) at which the whole list fits. */
  readonly rate_per_second: number;
}

/** Null when `quote` fits within `limitSeconds` at `ratePerSecond`; otherwise the split or the rate that fits. */
export function overrunOf(quote: Quote, ratePerSecond: number, limitSeconds: number): QuoteOverrun | null {
  if (quote.to_buy / ratePerSecond <= limitSeconds) return null;
  const perPart = Math.max(1, Math.floor(ratePerSecond * limitSeconds));
  return {
    limit_seconds: limitSeconds,
    parts: Math.ceil(quote.to_buy / perPart),
    documents_per_part: perPart,
    rate_per_second: Math.ceil((quote.to_buy / limitSeconds) * 100) / 100,
  };
}

/** An overrun as one sentence, for `check` and the approval question. */
export function describeOverrun(overrun: QuoteOverrun): string {
  return (
    `too long for one batch: its queries must end within ${formatLimit(overrun.limit_seconds)}, to leave time ` +
    'before a queued document expires; split the documents to buy into ' +
    `${overrun.parts} lists of at most ${overrun.documents_per_part} each, screened one after another, or screen ` +
    `at ${overrun.rate_per_second} queries per second`
  );
}

/** A limit of days as days (`7 days`, `12.6 days`), a shorter one as {@link formatDuration} writes it. */
function formatLimit(seconds: number): string {
  const days = seconds / 86_400;
  return days >= 1 ? `${Number(days.toFixed(1))} days` : formatDuration(Math.floor(seconds));
}

const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/** An amount as a Brazilian reads it: `R$ 1.234,56` (a plain space after the symbol, for terminals and logs). */
export const formatBrl = (amount: number): string => BRL.format(amount).replace(/\s/u, ' ');

/** A duration as a person reads it: `45 s`, `12 min`, `2 h 05 min`. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}
