/**
 * The decision input as ZEN can hold it. zen-engine 0.54.0 reads a number into its decimal type, which has 28
 * digits: measured, an input number with more than 28 decimal places fails the evaluation, and an integer beyond 64 bits
 * passed through to the answer aborts the process (-9.3e18 and 2^64 both do). A figure or a customer cell has no business there (the
 * domain keeps a cell of more than 15 significant digits as text already: an account or contract number is a code);
 * what could still arrive (a bureau's absurd figure) is handed to ZEN as its text, so a rule comparing it as a
 * number fails and the loader's guard makes the row a `MISSING_DATA` review, never an approval.
 */

/** The largest magnitude handed to ZEN as a number: every integer up to it is exact in a double. */
const LARGEST = Number.MAX_SAFE_INTEGER;
/** The smallest non-zero magnitude handed to ZEN as a number: a double's 17 digits then fit in 28 decimal places. */
const SMALLEST = 1e-11;

/** Whether ZEN can hold a number exactly and give it back without stopping. */
function isZenSafeNumber(value: number): boolean {
  if (!Number.isFinite(value)) return false;
  const magnitude = Math.abs(value);
  return magnitude <= LARGEST && (magnitude === 0 || magnitude >= SMALLEST);
}

/** A value with every number ZEN cannot hold replaced by its text (a copy only where something changes). */
export function zenSafeValue(value: unknown): unknown {
  if (typeof value === 'number') return isZenSafeNumber(value) ? value : String(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let index = 0; index < value.length; index++) {
      const safe = zenSafeValue(value[index]);
      if (safe === value[index]) continue;
      copy ??= [...value];
      copy[index] = safe;
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | null = null;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const safe = zenSafeValue(record[key]);
    if (safe === record[key]) continue;
    // Defined, not assigned: a customer's column named `__proto__` stays a key.
    copy ??= Object.defineProperties({}, Object.getOwnPropertyDescriptors(record));
    Object.defineProperty(copy, key, { value: safe, enumerable: true, writable: true, configurable: true });
  }
  return copy ?? value;
}
