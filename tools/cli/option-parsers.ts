import { InvalidArgumentError } from 'commander';

/** Option parsers that reject bad values with a message naming the option. */
export function positiveInteger(name: string) {
  return (value: string): number => {
    const number = Number(value);
    if (!Number.isSafeInteger(number) || number < 1)
      throw new InvalidArgumentError(`${name} must be a positive whole number`);
    return number;
  };
}

export function nonNegativeNumber(name: string) {
  return (value: string): number => {
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number) || number < 0) {
      throw new InvalidArgumentError(`${name} must be a number ≥ 0`);
    }
    return number;
  };
}

export function probability(name: string) {
  return (value: string): number => {
    const number = Number(value);
    if (value.trim() === '' || !(number >= 0 && number <= 1))
      throw new InvalidArgumentError(`${name} must be between 0 and 1`);
    return number;
  };
}

export function nonNegativeInteger(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`${name} must be a whole number ≥ 0`);
    return Number(value);
  };
}

/**
 * A price in BRL: a decimal with a point or a Brazilian comma (`2.70`, `2,70`), above zero and at most
 * `maximum` (a larger one is a typo, not a contract).
 */
export function priceInBrl(name: string, maximum: number) {
  return (value: string): number => {
    const text = value.trim().replace(/^R\$\s*/i, '');
    const number = /^\d+([.,]\d{1,2})?$/.test(text) ? Number(text.replace(',', '.')) : Number.NaN;
    if (!(number > 0 && number <= maximum))
      throw new InvalidArgumentError(
        `${name} must be a price in BRL above 0 and at most ${maximum} (e.g. 2,70)`,
      );
    return number;
  };
}

/**
 * The slowest request rate a run accepts. Zero would never let a request through (the workers would spin waiting
 * for a token) and rates far below this one wait longer between requests than a timer can count (Node's timers
 * stop at about 24.8 days).
 */
const MINIMUM_REQUEST_RATE = 0.01;

/** A rate in requests per second: a finite number of at least {@link MINIMUM_REQUEST_RATE}. */
export function requestRate(name: string) {
  return (value: string): number => {
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number) || number < MINIMUM_REQUEST_RATE)
      throw new InvalidArgumentError(
        `${name} must be at least ${MINIMUM_REQUEST_RATE} requests per second (one every ${1 / MINIMUM_REQUEST_RATE} s)`,
      );
    return number;
  };
}
