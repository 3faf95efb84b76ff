import { z } from 'zod';
import { BUREAUS } from '../report/index.ts';
import { DELIVERY_LANES } from './delivery-lane.ts';

/** The SQS message that asks a worker to screen one document of a batch (the first row it appears on). */
export const workMessageSchema = z.object({
  version: z.literal(1),
  batchId: z.string().min(1),
  row: z.number().int().positive(),
  document: z.string().regex(/^(\d{11}|[0-9A-Z]{12}\d{2})$/),
  bureau: z.enum(BUREAUS),
  /** How the message shares the work queue with other batches' (see delivery-lane.ts); absent means `upload`. */
  lane: z.enum(DELIVERY_LANES).optional(),
  /** Times the row was sent again because it had to wait, never because it failed (see the worker's waits). */
  waits: z.number().int().nonnegative().optional(),
});
export type WorkMessage = z.infer<typeof workMessageSchema>;

const rowRangeFields = { first: z.number().int().positive(), last: z.number().int().positive() };
const endsAfterStart = (range: { first: number; last: number }) => range.first <= range.last;

/** A range of a batch's rows, by row number, both ends included. */
const rowRangeSchema = z.object(rowRangeFields).refine(endsAfterStart, 'a range ends after it starts');
export type RowRange = z.infer<typeof rowRangeSchema>;

/** Row numbers 1 to `rows`, cut into consecutive ranges of at most `partRows`. */
export function partsOf(rows: number, partRows: number): RowRange[] {
  const parts: RowRange[] = [];
  for (let first = 1; first <= rows; first += partRows)
    parts.push({ first, last: Math.min(rows, first + partRows - 1) });
  return parts;
}

/** One part of a batch's finalisation: its rows, and its place among the parts (from 0). */
const finalisePartSchema = z
  .object({ index: z.number().int().nonnegative(), ...rowRangeFields })
  .refine(endsAfterStart, 'a range ends after it starts');
export type FinalisePart = z.infer<typeof finalisePartSchema>;

/**
 * The SQS message that asks the finaliser to write a batch's results: the whole batch (written at once, or split
 * into one message per part when it is big), one `part` of its rows, or, once every part is written, `compose`
 * (join the parts into the result files and complete the batch).
 */
export const finaliseMessageSchema = z.object({
  version: z.literal(1),
  batchId: z.string().min(1),
  part: finalisePartSchema.optional(),
  compose: z.literal(true).optional(),
  /**
   * Rows per part, as the split that sent a part or join message cut them: a setting changed meanwhile never mixes
   * parts of two sizes. Absent on a whole-batch message (the current setting splits it).
   */
  partRows: z.number().int().positive().optional(),
});
export type FinaliseMessage = z.infer<typeof finaliseMessageSchema>;

/**
 * The SQS message that asks the dispatcher to send a work message for each of a batch's rows still queued: the rows
 * of one part, or, without a part, the whole batch (the dispatcher then splits it into parts, each a message of its
 * own, so no invocation's work grows with the batch's size).
 */
export const dispatchMessageSchema = z.object({
  version: z.literal(1),
  batchId: z.string().min(1),
  part: rowRangeSchema.optional(),
});
export type DispatchMessage = z.infer<typeof dispatchMessageSchema>;

/** Reads a message body; null when it is not one (such a message is poison: it goes to the DLQ, never retried). */
export function parseMessage<Schema extends z.ZodType>(schema: Schema, body: string): z.infer<Schema> | null {
  try {
    const result = schema.safeParse(JSON.parse(body));
    return result.success ? result.data : null;
  } catch {
    return null;
  }
}
