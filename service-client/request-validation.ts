import type { z } from 'zod';

/**
 * A request the specification does not allow, refused before anything is sent (so it costs no request and no
 * credit). `field` names the offending input.
 */
export class RequestValidationError extends Error {
  override readonly name = 'RequestValidationError';

  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

/**
 * One path value (`hash`, `file`, `id`), URL-encoded so that nothing the caller passes can change the path.
 * Encoding alone is not enough for `.` and `..`: URL parsers resolve them (and their `%2E` forms) as dot
 * segments, so they are refused, as is an empty value.
 */
export function pathSegment(field: string, value: string): string {
  if (typeof value !== 'string' || value === '')
    throw new RequestValidationError(`${field} must be a non-empty string`, field);
  if (value === '.' || value === '..')
    throw new RequestValidationError(`${field} cannot be "${value}": it would change the path`, field);
  return encodeURIComponent(value);
}

/**
 * A version path value. The specification types it as an integer; negative numbers are refused too, because
 * versions are counted, not signed.
 */
export function versionSegment(version: number): string {
  if (!Number.isSafeInteger(version) || version < 0)
    throw new RequestValidationError(
      `version must be a non-negative integer, got ${String(version)}`,
      'version',
    );
  return String(version);
}

/** Query parameters of the list operations; the specification does not name them, so they pass through. */
export type QueryParameters = Readonly<Record<string, string | number | boolean | undefined>>;

export function queryString(query: QueryParameters | undefined): string {
  if (query === undefined) return '';
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) search.append(name, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** Parses `input` with `schema`, turning the first issue into a {@link RequestValidationError}. */
export function validated<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  what: string,
): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.') || what;
  throw new RequestValidationError(`${what}: ${field}: ${issue?.message ?? 'invalid'}`, field);
}
