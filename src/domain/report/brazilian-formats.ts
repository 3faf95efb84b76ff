/**
 * Parsers for the Brazilian formats of the bureau responses. Each returns a value or a `problem` to be listed as
 * a warning; none throws. Money is integer cents, never a float.
 */
import type { Bureau } from './raw-credit-report.ts';

export type Parsed<T> =
  | { readonly value: T; readonly problem?: undefined }
  | { readonly value: null; readonly problem: string };

const ok = <T>(value: T): Parsed<T> => ({ value });
const problem = (message: string): Parsed<never> => ({ value: null, problem: message });

// Bureau A groups thousands with dots ("1.234.567,89"); bureau B does not ("1234567,89"). Both use a decimal comma.
const MONEY_WITH_THOUSANDS = /^\d{1,3}(?:\.\d{3})+(?:,\d{1,2})?$/;
const MONEY_PLAIN = /^\d+(?:,\d{1,2})?$/;

function centsOf(text: string): number {
  const [units = '0', fraction = ''] = text.replaceAll('.', '').split(',');
  return Number(units) * 100 + Number(fraction.padEnd(2, '0'));
}

/**
 * Money as integer cents: bureau A `"1.234,56"`, bureau B `"1234,56"`, or a JSON number (the spec shows `0`).
 * A `R$` prefix is tolerated. Negative amounts, a thousands dot from bureau B, and anything else are problems.
 * An empty string is no value (null) without a problem: empty strings occur in the responses.
 */
export function parseMoneyCents(raw: unknown, bureau: Bureau): Parsed<number | null> {
  if (raw === undefined || raw === null) return ok(null);
  if (typeof raw === 'number') {
    const cents = Math.round(raw * 100);
    if (!Number.isSafeInteger(cents) || cents < 0)
      return problem(`money ${JSON.stringify(raw)} is not a plausible amount`);
    return ok(cents);
  }
  if (typeof raw !== 'string') return problem(`money ${JSON.stringify(raw)} is not a number or text`);
  const text = raw.replace(/^R\$\s*/, '').trim();
  if (text === '') return ok(null);
  // 15 digits of units keep every amount a safe integer of cents.
  if (text.replace(/\D/g, '').length > 15) return problem(`money ${JSON.stringify(raw)} is too large`);
  if (MONEY_PLAIN.test(text)) return ok(centsOf(text));
  if (MONEY_WITH_THOUSANDS.test(text)) {
    if (bureau === 'a') return ok(centsOf(text));
    return problem(`money ${JSON.stringify(raw)} has a thousands separator, which bureau B does not use`);
  }
  return problem(`money ${JSON.stringify(raw)} is not in Brazilian format`);
}

/** `DD/MM/YYYY` to ISO `YYYY-MM-DD`, checking the day exists. Empty and `-` mean unknown (null, no problem). */
export function parseBrazilianDate(raw: unknown): Parsed<string | null> {
  if (raw === undefined || raw === null) return ok(null);
  if (typeof raw !== 'string') return problem(`date ${JSON.stringify(raw)} is not text`);
  const text = raw.trim();
  if (text === '' || text === '-') return ok(null);
  const match = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text);
  if (!match) return problem(`date ${JSON.stringify(raw)} is not DD/MM/YYYY`);
  const [, day, month, year] = match as unknown as [string, string, string, string];
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (date.getUTCDate() !== Number(day) || date.getUTCMonth() !== Number(month) - 1) {
    return problem(`date ${JSON.stringify(raw)} does not exist`);
  }
  return ok(`${year}-${month}-${day}`);
}

// Texts that mean "not calculated"; compared without accents and case.
const NOT_CALCULATED = /^(nao calculad[oa]|nao disponivel|indisponivel|sem calculo|n\/?a|-+)$/;

function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();
}

/**
 * A percentage: `"12,5%"` → 12.5, and a bare number-like text (`"12,5"`, `"12.5"`) is read as a percentage too;
 * a text meaning not calculated (`"Não calculado"`, `"N/A"`, `"-"`, empty) → null without a problem. Values outside
 * 0–100 and other texts are problems.
 */
export function parsePercentage(raw: unknown): Parsed<number | null> {
  if (raw === undefined || raw === null) return ok(null);
  if (typeof raw === 'number')
    return raw >= 0 && raw <= 100 ? ok(raw) : problem(`percentage ${raw} is outside 0–100`);
  if (typeof raw !== 'string') return problem(`percentage ${JSON.stringify(raw)} is not text`);
  const text = fold(raw);
  if (text === '' || NOT_CALCULATED.test(text)) return ok(null);
  const match = /^(\d{1,3}(?:[.,]\d+)?)\s*%?$/.exec(text);
  if (!match) return problem(`percentage ${JSON.stringify(raw)} is not a number`);
  const value = Number((match[1] as string).replace(',', '.'));
  return value <= 100 ? ok(value) : problem(`percentage ${JSON.stringify(raw)} is outside 0–100`);
}

/** A whole number in a text (`"734"`); empty → null. */
export function parseWholeNumber(raw: unknown): Parsed<number | null> {
  if (raw === undefined || raw === null) return ok(null);
  if (typeof raw === 'number')
    return Number.isSafeInteger(raw) ? ok(raw) : problem(`${raw} is not a whole number`);
  if (typeof raw !== 'string') return problem(`${JSON.stringify(raw)} is not a whole number`);
  const text = raw.trim();
  if (text === '') return ok(null);
  return /^\d{1,15}$/.test(text) ? ok(Number(text)) : problem(`${JSON.stringify(raw)} is not a whole number`);
}

/** Formats integer cents as the bureau writes money (used by the emulator and by tests). */
export function formatMoney(cents: number, bureau: Bureau): string {
  const units = Math.floor(cents / 100);
  const fraction = String(cents % 100).padStart(2, '0');
  const grouped = bureau === 'a' ? String(units).replace(/\B(?=(\d{3})+(?!\d))/g, '.') : String(units);
  return `${grouped},${fraction}`;
}

/** Formats an ISO date (`YYYY-MM-DD`) as the bureau writes dates. */
export function formatBrazilianDate(isoDate: string): string {
  const [year, month, day] = isoDate.split('-');
  return `${day}/${month}/${year}`;
}
