import { z } from 'zod';
import type { AuditEntry } from '../../domain/audit/index.ts';
import type { BatchRecord, RowRecord, StoredReport } from '../../domain/batch/index.ts';
import { DECISION_VALUES, decisionSchema } from '../../domain/decision/index.ts';
import type { NormalisedReport } from '../../domain/report/index.ts';
import { BUREAUS } from '../../domain/report/index.ts';
import type { Quote } from '../../domain/spend/index.ts';
import type { ReportColumns } from '../../domain/summary/index.ts';

/**
 * How the DynamoDB store reads its items: each one through a schema, so an item that is not what the code expects
 * (written by an older version, edited by hand) fails loudly with its key and field instead of flowing on as a
 * wrongly typed record. Attributes a version added later default to what an item without them means.
 */
const count = z.number().int().default(0);
const optionalText = z
  .string()
  .nullish()
  .transform((value) => value ?? null);

const reportColumnsSchema = z.object({
  name: z.string().nullable(),
  score: z.number().nullable(),
  defaultProbabilityPct: z.number().nullable(),
  protestsCount: z.number(),
  protestsCents: z.number().nullable(),
  pendingDebtsCount: z.number(),
  pendingDebtsCents: z.number().nullable(),
  bouncedChequesCount: z.number(),
  bouncedChequesCents: z.number().nullable(),
  stoppedChequesCount: z.number().nullable(),
  queryCode: z.number().nullable(),
  reportPdf: z.string().nullable(),
  screenedAt: z.string(),
}) satisfies z.ZodType<ReportColumns>;

const reportKeySchema = z.object({ bureau: z.enum(BUREAUS), document: z.string(), fetchedAt: z.string() });

const rowItemSchema = z.object({
  batchId: z.string(),
  row: z.number().int(),
  input: z.string().default(''),
  document: optionalText,
  documentType: z
    .enum(['cpf', 'cnpj'])
    .nullish()
    .transform((value) => value ?? null),
  state: z.enum([
    'queued',
    'claimed',
    'screened',
    'cached',
    'failed',
    'invalid_document',
    'duplicate',
    'cancelled',
    'not_queried',
  ]),
  detail: optionalText,
  duplicateOf: z
    .number()
    .int()
    .nullish()
    .transform((value) => value ?? null),
  passThrough: z.array(z.string()).default([]),
  attempts: count,
  transientFailures: count,
  report: reportColumnsSchema.nullish().transform((value) => value ?? null),
  reportKey: reportKeySchema.nullish().transform((value) => value ?? null),
  decision: decisionSchema.nullish().transform((value) => value ?? null),
  callPending: z.boolean().default(false),
  callSentAt: z
    .number()
    .nullish()
    .transform((value) => value ?? null),
  uncertainCalls: count,
  answered: z.boolean().default(false),
  erasedAt: optionalText,
});

const quoteSchema = z.object({
  bureau: z.enum(BUREAUS),
  unique: z.number(),
  reusable: z.number().nullable(),
  to_buy: z.number(),
  price_per_query: z.number(),
  estimated_cost: z.number(),
  currency: z.literal('BRL'),
  estimated_seconds: z.number(),
}) satisfies z.ZodType<Quote>;

const batchItemSchema = z.object({
  batchId: z.string(),
  sourceBucket: z.string(),
  sourceKey: z.string(),
  sourceSha256: optionalText,
  sourceName: optionalText,
  bureau: z.enum(BUREAUS),
  createdAt: z.string(),
  freshnessHours: z
    .number()
    .nullish()
    .transform((value) => value ?? 0),
  bureauEndpoint: optionalText,
  policy: z
    .object({ name: z.string(), sha256: z.string(), key: z.string() })
    .nullish()
    .transform((value) => value ?? null),
  status: z.enum(['ingesting', 'awaiting_approval', 'running', 'finalising', 'completed', 'failed']),
  failure: z
    .object({ code: z.string(), message: z.string() })
    .nullish()
    .transform((value) => value ?? null),
  layout: z
    .object({
      // Batches stored before separate CPF and CNPJ columns were read name one column.
      documentColumns: z.array(z.string()).optional(),
      documentColumn: z.string().optional(),
      passThroughColumns: z.array(z.string()),
      encoding: z.string(),
      delimiter: z.string().nullable(),
      hasHeader: z.boolean(),
    })
    .nullish()
    .transform((value) => {
      if (!value) return null;
      const { documentColumn, documentColumns, ...layout } = value;
      return { ...layout, documentColumns: documentColumns ?? (documentColumn ? [documentColumn] : []) };
    }),
  excelSummary: z.boolean().default(false),
  portfolio: optionalText,
  rows: count,
  invalid: count,
  duplicates: count,
  toScreen: z
    .number()
    .int()
    .nullish()
    .transform((value) => value ?? null),
  settled: count,
  screened: count,
  cached: count,
  failed: count,
  cancelled: count,
  notQueried: count,
  maxCharges: z
    .number()
    .int()
    .nullish()
    .transform((value) => value ?? null),
  quote: quoteSchema.nullish().transform((value) => value ?? null),
  approval: z
    .enum(['approved', 'rejected'])
    .nullish()
    .transform((value) => value ?? null),
  approvalBy: optionalText,
  cancelRequested: z.boolean().default(false),
  revision: z.number().int().default(1),
  requeuing: z.boolean().default(false),
  ingestCheckpoint: count,
  ingestCached: count,
  tokenState: z.enum(['unverified', 'verified', 'rejected']).default('unverified'),
  completedAt: optionalText,
  messagesSentAt: optionalText,
});

const reportItemSchema = z.object({
  bureau: z.enum(BUREAUS),
  document: z.string(),
  fetchedAt: z.string(),
  report: z.string(),
  rawKey: z.string(),
});

class StoredItemError extends Error {
  override readonly name = 'StoredItemError';
}

export function parseItem<T>(schema: z.ZodType<T>, item: Record<string, unknown>, what: string): T {
  const result = schema.safeParse(item);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new StoredItemError(
    `${what} item ${String(item.pk)} / ${String(item.sk)} is not readable: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`,
  );
}

export const toRow = (item: Record<string, unknown>): RowRecord => parseItem(rowItemSchema, item, 'row');

export const toBatch = (item: Record<string, unknown>): BatchRecord =>
  parseItem(batchItemSchema, item, 'batch');

export function toStoredReport(item: Record<string, unknown>): StoredReport {
  const stored = parseItem(reportItemSchema, item, 'report');
  return {
    key: { bureau: stored.bureau, document: stored.document, fetchedAt: stored.fetchedAt },
    // The normalised report is kept as the JSON the normaliser produced (its own schema is the normaliser's).
    report: JSON.parse(stored.report) as NormalisedReport,
    rawKey: stored.rawKey,
  };
}

const auditBase = {
  at: z.string(),
  batchId: z.string(),
  row: z.number().int().positive(),
  documentKey: z.string(),
};

/** An audit log entry as the table keeps it (its keys and expiry are the store's, not the entry's). */
export const auditEntrySchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('bureau_request'),
    ...auditBase,
    bureau: z.enum(BUREAUS),
    charge: z.enum(['charged', 'not_charged', 'charge_unknown']),
    httpStatus: z.number().int().nullable(),
    purpose: z.string(),
    legalBasis: z.string(),
  }),
  z.object({
    kind: z.literal('decision'),
    ...auditBase,
    policy: z.object({ name: z.string(), sha256: z.string() }),
    decision: z.enum(DECISION_VALUES),
    reasons: z.array(z.string()),
  }),
  z.object({
    kind: z.literal('override'),
    ...auditBase,
    decision: z.enum(['approve', 'decline']),
    previous: z.enum(DECISION_VALUES),
    by: z.string(),
    reason: z.string(),
  }),
  z.object({ kind: z.literal('erasure'), ...auditBase, by: z.string(), reason: z.string() }),
  z.object({ kind: z.literal('access'), ...auditBase, by: z.string(), reason: z.string() }),
]) satisfies z.ZodType<AuditEntry>;
