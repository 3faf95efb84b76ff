import { readFileSync } from 'node:fs';

export type FixtureName = 'bureau-a-person' | 'bureau-a-company' | 'bureau-b-person' | 'bureau-b-company';

/** A hand-written response following the interface's tables, as a fresh mutable object. */
export function bureauResponse(name: FixtureName): Record<string, unknown> {
  return JSON.parse(
    readFileSync(new URL(`../fixtures/bureau-responses/${name}.json`, import.meta.url), 'utf8'),
  );
}

/** The `consultaCredito` object of a response, to damage it in tests. */
export function creditSection(response: Record<string, unknown>): Record<string, unknown> {
  return (response.dados as Record<string, Record<string, unknown>>).consultaCredito as Record<
    string,
    unknown
  >;
}
