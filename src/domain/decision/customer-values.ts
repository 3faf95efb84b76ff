/**
 * The customer's own columns of a row, as a credit policy reads them (`input.<header>` in the decision input):
 * numbers where the cell is a number in a Brazilian or a plain format, the text otherwise, null when empty.
 */

/** One customer cell as a policy sees it. */
export type CustomerValue = number | string | null;

const CURRENCY = /^R\$\s*/i;
// Grouped thousands: "1.234.567" (Brazilian) or "1,234,567" (English); the group separator is given.
const grouped = (separator: string) => new RegExp(`^\\d{1,3}(?:\\${separator}\\d{3})+$`);
const GROUPED_DOTS = grouped('.');
const GROUPED_COMMAS = grouped(',');
const DIGITS = /^\d+$/;
const MAY_START_A_NUMBER = /^[\d+\-Rr]/;
/**
 * A cell with more significant digits than this is a code (an account, contract or card number), never an amount:
 * kept as text. A double holds 15 digits exactly, and a policy's engine could not hold a 27-digit number at all.
 */
const MAX_AMOUNT_DIGITS = 15;

/**
 * Whether the digits spell an amount a double holds exactly: at most {@link MAX_AMOUNT_DIGITS} digits before the
 * decimal point, and as many from the first non-zero digit to the last.
 */
function holdsExactly(units: string, fraction: string): boolean {
  const digits = `${units}${fraction}`;
  let first = 0;
  while (first < digits.length && digits.charCodeAt(first) === 48) first++;
  let last = digits.length;
  while (last > first && digits.charCodeAt(last - 1) === 48) last--;
  return (
    units.length - Math.min(first, units.length) <= MAX_AMOUNT_DIGITS && last - first <= MAX_AMOUNT_DIGITS
  );
}

/** The number a cell's digits and separators spell, or null when they spell none (or more than one reading). */
function numberOf(unsigned: string): number | null {
  const lastDot = unsigned.lastIndexOf('.');
  const lastComma = unsigned.lastIndexOf(',');
  if (lastDot === -1 && lastComma === -1) return DIGITS.test(unsigned) ? Number(unsigned) : null;
  // Both separators: the last one is the decimal separator, the other groups thousands ("1.234,56", "1,234.56").
  // One kind only: a single comma is decimal ("1234,5"); a single dot before exactly three digits groups thousands,
  // as Brazilian files write it ("1.234" is 1234); repeated, either groups thousands.
  let units: string;
  let fraction: string;
  if (lastDot !== -1 && lastComma !== -1) {
    const decimal = Math.max(lastDot, lastComma);
    units = unsigned.slice(0, decimal);
    fraction = unsigned.slice(decimal + 1);
    if (!(lastComma > lastDot ? GROUPED_DOTS : GROUPED_COMMAS).test(units) && !DIGITS.test(units))
      return null;
  } else {
    const separator = lastComma !== -1 ? ',' : '.';
    const repeated = unsigned.indexOf(separator) !== unsigned.lastIndexOf(separator);
    const groups = (separator === ',' ? GROUPED_COMMAS : GROUPED_DOTS).test(unsigned);
    if (repeated && !groups) return null;
    // Repeated separators group thousands; a single dot before three digits too ("1.234"); else it is decimal.
    const grouping = repeated || (separator === '.' && groups);
    const last = unsigned.lastIndexOf(separator);
    [units, fraction] = grouping ? [unsigned, ''] : [unsigned.slice(0, last), unsigned.slice(last + 1)];
  }
  const wholeUnits = units.replace(/[.,]/g, '');
  if (!DIGITS.test(wholeUnits) || (fraction !== '' && !DIGITS.test(fraction))) return null;
  if (!holdsExactly(wholeUnits, fraction)) return null;
  const value = Number(fraction === '' ? wholeUnits : `${wholeUnits}.${fraction}`);
  return Number.isFinite(value) ? value : null;
}

/**
 * A customer cell as a policy reads it. Numbers: `R$ 1.234,56`, `1.234,56`, `1234,56`, `1234.56`, `1,234.56`,
 * `1.234` (Brazilian thousands: 1234), `-150`; an integer part with a leading zero (`007`, `01310-100`), or more
 * than 15 significant digits (`123456789012345678901234567`), is kept as text, since it is a code, not an amount.
 * Empty (or only spaces) is null; anything else is the trimmed text.
 */
export function customerValue(cell: string): CustomerValue {
  const text = cell.trim();
  if (text === '') return null;
  // Most cells are names, codes and segments: a number starts with a digit, a sign or the currency's R.
  if (!MAY_START_A_NUMBER.test(text)) return text;
  const signless = text.replace(/^[-+]/, '').trimStart();
  const negative = text.startsWith('-');
  const unsigned = signless.replace(CURRENCY, '').replace(/\s/g, '');
  if (unsigned === '' || /^0\d/.test(unsigned)) return text;
  const value = numberOf(unsigned);
  if (value === null) return text;
  return negative ? -value : value;
}

/** Where each column of a header row goes in `input`: the first column of each non-blank name. */
interface ColumnPlan {
  readonly names: readonly string[];
  readonly indexes: readonly number[];
}

/** Plans by header row: every row of a file shares its header row, so its plan is made once. */
const plans = new WeakMap<readonly string[], ColumnPlan>();

function planOf(headers: readonly string[]): ColumnPlan {
  let plan = plans.get(headers);
  if (plan === undefined) {
    const names: string[] = [];
    const indexes: number[] = [];
    headers.forEach((header, index) => {
      const name = header.trim();
      if (name === '' || names.includes(name)) return;
      names.push(name);
      indexes.push(index);
    });
    plan = { names, indexes };
    plans.set(headers, plan);
  }
  return plan;
}

/**
 * The customer's columns of a row by header, in the decision input's `input` object. A header given twice keeps its
 * first column's value; a blank header is left out (a policy could not name it).
 */
export function customerColumns(
  headers: readonly string[],
  cells: readonly string[],
): Readonly<Record<string, CustomerValue>> {
  const { names, indexes } = planOf(headers);
  const columns: Record<string, CustomerValue> = {};
  for (let position = 0; position < names.length; position++) {
    const name = names[position] as string;
    const value = customerValue(cells[indexes[position] as number] ?? '');
    // Defined, not assigned: a header named `__proto__` is a column like any other.
    if (name === '__proto__')
      Object.defineProperty(columns, name, { value, enumerable: true, writable: true, configurable: true });
    else columns[name] = value;
  }
  return columns;
}
