import type { z } from 'zod';
import { ErrorBody } from '../contract/index.ts';

/** A JSON body of `schema`, for a request or a response. */
export function json<Schema extends z.ZodType>(schema: Schema, description: string, required?: true) {
  return { content: { 'application/json': { schema } }, description, ...(required ? { required } : {}) };
}

const REFUSALS = {
  400: 'The request does not parse: one line names the field',
  401: 'Nobody is signed in',
  403: 'The signed-in person’s roles do not allow it',
  404: 'No such thing',
  409: 'Not now: the thing is not in a state that allows it',
} as const;

/** The refusals a route may answer with, each a one-line {@link ErrorBody}. */
export function refusals<Code extends keyof typeof REFUSALS>(...codes: Code[]) {
  return Object.fromEntries(codes.map((code) => [code, json(ErrorBody, REFUSALS[code])])) as {
    [C in Code]: ReturnType<typeof json<typeof ErrorBody>>;
  };
}
