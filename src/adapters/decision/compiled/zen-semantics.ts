/**
 * ZEN's value semantics (zen-engine 0.54.0), as far as the compiled evaluator reproduces them. Every rule here was
 * measured against the engine (`test/adapters/decision/compiled-differential.test.ts` keeps measuring it):
 *
 * - numbers are decimals in ZEN (`0.1 + 0.2 == 0.3`, `1234.55 * 0.3` is 370.365): a sum, difference or product is
 *   rounded here to 15 significant digits, which gives back the exact decimal whenever it has that few digits, and
 *   a quotient is the rounded one when it multiplies back to the dividend, else the double's own; magnitudes from
 *   10^15 up are left to ZEN;
 * - `x / 0` is null; a comparison (`<`, `>`…) of anything but two numbers, arithmetic on null, `and`/`or`/`not` or a
 *   ternary on anything but a boolean, and `null in [a..b]` are evaluation errors ({@link ZenVmError});
 * - `==` compares numbers, strings, booleans and null by value (`5 == "5"` is false; lists never equal);
 * - merging objects (pass-through, a node's several inputs) is deep, and a null in the patch removes the key.
 *
 * Anything else, or anything this module is not sure ZEN does the same way (`%` by zero makes ZEN abort the
 * process; strings compared with `<`; lists compared with `==`), throws {@link DeferToZen}: the whole evaluation is
 * then ZEN's.
 */

/** ZEN would fail here: a table cell that fails does not match, a switch statement is false, an expression fails. */
export class ZenVmError extends Error {}

/** The compiled evaluator does not decide this evaluation: ZEN does. */
export class DeferToZen extends Error {}

/** Thrown rather than constructed each time: the evaluator only needs to know which it was. */
export const VM_ERROR = new ZenVmError('ZEN would fail on this value');
export const DEFER = new DeferToZen('left to ZEN');

/** Decimals with more digits than a double keeps exactly are left to ZEN. */
const LARGEST_EXACT = 1e15;

export type ZenValue = null | boolean | number | string | readonly ZenValue[] | ZenObject;
interface ZenObject {
  readonly [key: string]: ZenValue;
}

export const isObject = (value: unknown): value is Record<string, ZenValue> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A double as the decimal its shortest writing says: digits and a power of ten (`0.25` is 25 and -2). One that
 * needs more than 15 digits is most likely a quotient ZEN holds with 28 (`2 / 3`), whose next sum or product would
 * differ from ZEN's: left to ZEN.
 */
function decimalOf(value: number): Decimal {
  // Read with index scans rather than splits and patterns: every sum, product and quotient of a policy comes here.
  const text = String(value);
  const e = text.indexOf('e');
  const mantissa = e === -1 ? text : text.slice(0, e);
  const dot = mantissa.indexOf('.');
  const digits = dot === -1 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  let significant = digits.charCodeAt(0) === MINUS ? 1 : 0;
  while (significant < digits.length && digits.charCodeAt(significant) === ZERO) significant++;
  if (digits.length - significant > 15) throw DEFER;
  const fractionLength = dot === -1 ? 0 : mantissa.length - dot - 1;
  return { digits: BigInt(digits), exponent: (e === -1 ? 0 : Number(text.slice(e + 1))) - fractionLength };
}

interface Decimal {
  readonly digits: bigint;
  readonly exponent: number;
}

const MINUS = 0x2d;
const ZERO = 0x30;

/** The double nearest to an exact decimal, as ZEN hands its decimals back; magnitudes from 10^15 up are ZEN's. */
function doubleOf(digits: bigint, exponent: number): number {
  const value = Number(`${digits}e${exponent}`);
  if (!Number.isFinite(value) || Math.abs(value) >= LARGEST_EXACT) throw DEFER;
  return value === 0 ? 0 : value;
}

/** A whole number from rounding (`floor`, `round`…), as ZEN gives it. */
export function integral(value: number): number {
  if (!Number.isFinite(value) || Math.abs(value) >= LARGEST_EXACT) throw DEFER;
  return value === 0 ? 0 : value;
}

/** Integers small enough that a double's arithmetic on them is exact. */
const exactInteger = (value: number): boolean => Number.isInteger(value) && Math.abs(value) < LARGEST_EXACT;

/** Both operands as numbers, else ZEN's evaluation error (arithmetic on null, a text compared with `<`…). */
function assertNumbers(left: unknown, right: unknown): asserts left is number {
  if (typeof left !== 'number' || typeof right !== 'number') throw VM_ERROR;
}

/** A decimal's digits at a smaller exponent. */
const scaled = (decimal: Decimal, exponent: number): bigint =>
  decimal.digits * 10n ** BigInt(decimal.exponent - exponent);

function sum(a: number, b: number): number {
  if (exactInteger(a) && exactInteger(b)) return doubleOf(BigInt(a + b), 0);
  const x = decimalOf(a);
  const y = decimalOf(b);
  const exponent = Math.min(x.exponent, y.exponent);
  return doubleOf(scaled(x, exponent) + scaled(y, exponent), exponent);
}

export function add(left: unknown, right: unknown): ZenValue {
  if (typeof left === 'string' && typeof right === 'string') return left + right;
  assertNumbers(left, right);
  return sum(left, right as number);
}

export const subtract = (left: unknown, right: unknown): ZenValue => {
  assertNumbers(left, right);
  return sum(left, -(right as number));
};

export const multiply = (left: unknown, right: unknown): ZenValue => {
  assertNumbers(left, right);
  const a = left;
  const b = right as number;
  if (exactInteger(a) && exactInteger(b) && exactInteger(a * b)) return a * b === 0 ? 0 : a * b;
  const x = decimalOf(a);
  const y = decimalOf(b);
  return doubleOf(x.digits * y.digits, x.exponent + y.exponent);
};

/** Significant digits of a quotient: ZEN's decimals keep 28; a double needs 17, the rest settles its rounding. */
const QUOTIENT_DIGITS = 30;

/** How many digits a whole number has, its sign aside. */
const digitCount = (digits: bigint): number => (digits < 0n ? -digits : digits).toString().length;

export function divide(left: unknown, right: unknown): ZenValue {
  assertNumbers(left, right);
  const a = left;
  const b = right as number;
  if (b === 0) return null;
  if (a === 0) return 0;
  const x = decimalOf(a);
  const y = decimalOf(b);
  // Scale the dividend so that the integer quotient has the digits wanted, then divide exactly.
  const shift = Math.max(0, QUOTIENT_DIGITS - digitCount(x.digits) + digitCount(y.digits));
  const quotient = (x.digits * 10n ** BigInt(shift)) / y.digits;
  return doubleOf(quotient, x.exponent - y.exponent - shift);
}

export function modulo(left: unknown, right: unknown): ZenValue {
  assertNumbers(left, right);
  const a = left;
  const b = right as number;
  if (b === 0 || !exactInteger(a) || !exactInteger(b)) throw DEFER;
  const result = a % b;
  return result === 0 ? 0 : result;
}

export function power(left: unknown, right: unknown): ZenValue {
  assertNumbers(left, right);
  const a = left;
  const b = right as number;
  if (!Number.isInteger(b) || b < 0 || !exactInteger(a)) throw DEFER;
  const result = a ** b;
  if (!exactInteger(result)) throw DEFER;
  return result;
}

export function negate(value: unknown): ZenValue {
  if (typeof value !== 'number') throw VM_ERROR;
  return value === 0 ? 0 : -value;
}

export function compare(operator: '<' | '<=' | '>' | '>=', left: unknown, right: unknown): boolean {
  assertNumbers(left, right);
  const a = left;
  const b = right as number;
  switch (operator) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    default:
      return a >= b;
  }
}

export function equals(left: unknown, right: unknown): boolean {
  if (typeof left === 'object' && left !== null) throw DEFER;
  if (typeof right === 'object' && right !== null) throw DEFER;
  return left === right;
}

export function truth(value: unknown): boolean {
  if (typeof value !== 'boolean') throw VM_ERROR;
  return value;
}

/** An interval literal (`[300..500)`), only ever the right side of `in`. */
export interface Interval {
  readonly low: unknown;
  readonly high: unknown;
  readonly lowIncluded: boolean;
  readonly highIncluded: boolean;
}

export function inInterval(needle: unknown, interval: Interval): boolean {
  if (typeof needle !== 'number') throw VM_ERROR;
  const { low, high } = interval;
  if (typeof low !== 'number' || typeof high !== 'number') throw DEFER;
  const aboveLow = interval.lowIncluded ? needle >= low : needle > low;
  const belowHigh = interval.highIncluded ? needle <= high : needle < high;
  return aboveLow && belowHigh;
}

export function inList(needle: unknown, list: unknown): boolean {
  if (!Array.isArray(list)) throw DEFER;
  return list.some((item) => equals(needle, item));
}

/** `a.b`, `a["b"]`: null on null or a missing key; an index of a list. */
export function member(target: unknown, key: unknown): ZenValue {
  if (target === null || target === undefined) return null;
  if (isObject(target) && typeof key === 'string')
    return Object.hasOwn(target, key) ? (target[key] ?? null) : null;
  if (
    Array.isArray(target) &&
    Number.isInteger(key) &&
    (key as number) >= 0 &&
    (key as number) < target.length
  )
    return target[key as number] as ZenValue;
  throw DEFER;
}

/** Writes `value` at a dotted path (`a.b`), creating objects on the way; a path through a non-object is ignored. */
export function dotInsert(into: Record<string, ZenValue>, path: string, value: ZenValue): void {
  if (!path.includes('.')) {
    into[path] = value;
    return;
  }
  const segments = path.split('.');
  let target: Record<string, ZenValue> = into;
  for (const segment of segments.slice(0, -1)) {
    const next = target[segment];
    if (next === undefined) {
      const created: Record<string, ZenValue> = {};
      target[segment] = created;
      target = created;
    } else if (isObject(next)) {
      target = next;
    } else {
      return;
    }
  }
  target[segments[segments.length - 1] as string] = value;
}

/**
 * ZEN's merge: a patch that is null leaves the target as it is, one that is not an object replaces it; objects merge
 * deeply, a null in the patch removing its key. Neither argument is changed.
 */
export function merge(target: ZenValue, patch: ZenValue): ZenValue {
  if (patch === null) return target;
  if (!isObject(patch) || !isObject(target)) return isObject(patch) ? mergeInto({}, patch) : patch;
  return mergeInto({ ...target }, patch);
}

function mergeInto(target: Record<string, ZenValue>, patch: ZenObject): Record<string, ZenValue> {
  for (const key of Object.keys(patch)) {
    const value = patch[key] as ZenValue;
    // An undefined value (a field the input object lacks) is no value, as null is.
    if (value === null || value === undefined) {
      delete target[key];
      continue;
    }
    const current = target[key];
    target[key] = isObject(current) && isObject(value) ? mergeInto({ ...current }, value) : value;
  }
  return target;
}

/**
 * The merge of a node's several inputs. ZEN merges them in an order of its own; when two of them give one key
 * different values, the result would depend on that order, so it is left to ZEN.
 */
export function mergeInputs(inputs: readonly ZenValue[]): ZenValue {
  if (inputs.length === 1) return merge({}, inputs[0] as ZenValue);
  for (let first = 0; first < inputs.length; first++) {
    for (let second = first + 1; second < inputs.length; second++) {
      assertNoConflict(inputs[first] as ZenValue, inputs[second] as ZenValue);
    }
  }
  return inputs.reduce<ZenValue>((merged, input) => merge(merged, input), {});
}

function assertNoConflict(left: ZenValue, right: ZenValue): void {
  if (!isObject(left) || !isObject(right)) {
    if (left !== null && right !== null) throw DEFER;
    return;
  }
  for (const key of Object.keys(right)) {
    if (!Object.hasOwn(left, key)) continue;
    const a = left[key] as ZenValue;
    const b = right[key] as ZenValue;
    if (isObject(a) && isObject(b)) assertNoConflict(a, b);
    else if (a !== b) throw DEFER;
  }
}
