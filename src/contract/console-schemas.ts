/**
 * The console API's requests and answers, as zod schemas: the API validates with them, its OpenAPI document is
 * generated from them, and the browser's types are inferred from them. A request that does not parse is refused
 * with one line naming the field.
 */
import { z } from 'zod';
import { AUDIT_KINDS, auditTextProblem } from '../domain/audit/index.ts';
import { MAX_BATCH_ID_LENGTH } from '../domain/batch/index.ts';
import { DECISION_VALUES, MAX_OVERRIDE_REASON, OVERRIDE_VALUES } from '../domain/decision/index.ts';
import { parseDocument } from '../domain/documents/index.ts';
import { BUREAUS } from '../domain/report/index.ts';
import { CONSOLE_ROLES } from './console-roles.ts';

/** Most batches one page lists; the console pages further back by `page`. */
const MAX_BATCHES_PAGE = 100;
/** How far back the console pages (`page` × `limit` batches at most): older batches are read with the CLI. */
const MAX_BATCHES_LISTED = 1000;
/** Most review rows one page lists, and how far the console pages. */
const MAX_REVIEW_PAGE = 200;
const MAX_REVIEW_LISTED = 10_000;
/** Largest row number a list can have (the largest list the pipeline reads). */
const MAX_ROW = 100_000_000;
/** Largest credit limit a reviewer may grant, in reais: a typo of ten zeros is refused, not recorded. */
const MAX_CREDIT_LIMIT = 1_000_000_000;
/** Longest name of a local user (it is recorded beside what they do). */
const MAX_USER_NAME = 80;

/**
 * Text the audit log keeps beside what a person did (a reason, a name): trimmed, not empty, at most `max`
 * characters, on one line and without control characters (`auditTextProblem`).
 */
function auditedText(field: string, whenEmpty: string, max: number) {
  return z
    .string()
    .trim()
    .min(1, whenEmpty)
    .max(max)
    .superRefine((text, context) => {
      const problem = auditTextProblem(field, text);
      if (problem !== null) context.addIssue({ code: 'custom', message: problem });
    });
}

export const BatchIdParams = z.object({
  batchId: z
    .string()
    .regex(new RegExp(`^[A-Za-z0-9_-]{1,${MAX_BATCH_ID_LENGTH}}$`), 'not a batch id')
    .describe('The batch id (letters, digits, - and _)'),
});

export const BatchesQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(MAX_BATCHES_PAGE).default(25),
    page: z.coerce.number().int().min(0).default(0),
  })
  .refine((query) => (query.page + 1) * query.limit <= MAX_BATCHES_LISTED, {
    message: `the console lists the newest ${MAX_BATCHES_LISTED} batches; older ones are read with the command line`,
    path: ['page'],
  });

const BATCH_STATUSES = [
  'ingesting',
  'awaiting_approval',
  'running',
  'finalising',
  'completed',
  'failed',
] as const;

/** A batch as the console shows it: its progress, counts and spend, without its source's key (which names a file). */
export const BatchView = z.object({
  batchId: z.string(),
  status: z.enum(BATCH_STATUSES),
  /** The customer's file name, masked; null for a portfolio or an upload that gave none. */
  sourceName: z.string().nullable(),
  portfolio: z.string().nullable(),
  bureau: z.enum(BUREAUS),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
  revision: z.number().int(),
  rows: z.number().int(),
  toScreen: z.number().int().nullable(),
  settled: z.number().int(),
  screened: z.number().int(),
  cached: z.number().int(),
  failed: z.number().int(),
  invalid: z.number().int(),
  duplicates: z.number().int(),
  cancelled: z.number().int(),
  notQueried: z.number().int(),
  maxCharges: z.number().int().nullable(),
  quote: z
    .object({
      unique: z.number().int(),
      reusable: z.number().int().nullable(),
      toBuy: z.number().int(),
      pricePerQuery: z.number(),
      estimatedCost: z.number(),
      estimatedSeconds: z.number(),
    })
    .nullable(),
  /** What the batch has bought so far, in BRL (answered queries at the quote's price); null without a quote. */
  spent: z.number().nullable(),
  approval: z.enum(['approved', 'rejected']).nullable(),
  /** Who approved or rejected it, as signed in; null when undecided or decided from the command line. */
  approvalBy: z.string().nullable(),
  cancelRequested: z.boolean(),
  policy: z.object({ name: z.string(), sha256: z.string() }).nullable(),
  failure: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type BatchView = z.infer<typeof BatchView>;

export const BatchPage = z.object({
  batches: z.array(BatchView),
  page: z.number().int(),
  limit: z.number().int(),
  /** Whether an older page has batches. */
  hasMore: z.boolean(),
});
export type BatchPage = z.infer<typeof BatchPage>;

export const ReviewQuery = z
  .object({
    batchId: BatchIdParams.shape.batchId.optional(),
    /** Whose rows: the signed-in person's, nobody's yet, or anyone's. */
    assigned: z.enum(['me', 'nobody', 'anyone']).default('anyone'),
    /** Only the rows past their due date. */
    overdue: z.enum(['true', 'false']).default('false'),
    /** One queue: the policy that sent the rows to review. */
    queue: z.string().max(100).optional(),
    limit: z.coerce.number().int().min(1).max(MAX_REVIEW_PAGE).default(50),
    page: z.coerce.number().int().min(0).default(0),
  })
  .refine((query) => (query.page + 1) * query.limit <= MAX_REVIEW_LISTED, {
    message: `the console pages through the oldest ${MAX_REVIEW_LISTED} rows waiting; decide those first`,
    path: ['page'],
  });

export type ReviewQuery = z.infer<typeof ReviewQuery>;

/** A row waiting for a person: masked document, the policy's answer and reasons, the customer's own columns. */
export const ReviewItemView = z.object({
  batchId: z.string(),
  row: z.number().int(),
  document: z.string(),
  documentType: z.enum(['cpf', 'cnpj']).nullable(),
  reasons: z.array(z.object({ code: z.string(), text: z.string() })).readonly(),
  riskBand: z.string().nullable(),
  creditLimit: z.number().nullable(),
  customer: z.record(z.string(), z.string()),
  batchCreatedAt: z.string(),
  queue: z.string(),
  dueAt: z.string(),
  assignee: z.object({ subject: z.string(), name: z.string() }).nullable(),
  comments: z.number().int(),
});
export type ReviewItemView = z.infer<typeof ReviewItemView>;

export const ReviewPage = z.object({
  items: z.array(ReviewItemView),
  /** Rows waiting that the filters kept, over how many decided batches. */
  total: z.number().int(),
  /** The queues rows wait in (whatever the filters), to pick one. */
  queues: z.array(z.string()),
  batches: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});
export type ReviewPage = z.infer<typeof ReviewPage>;

export const RowParams = BatchIdParams.extend({
  row: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_ROW)
    .describe('The row of the list (1 is the first after the header)'),
});

/** A reviewer's decision: who decides is the signed-in person, never a field of the request. */
export const OverrideBody = z
  .object({
    decision: z.enum(OVERRIDE_VALUES),
    creditLimit: z.number().min(0).max(MAX_CREDIT_LIMIT).nullable().default(null),
    reason: auditedText('the reason', 'say why the decision is changed', MAX_OVERRIDE_REASON),
  })
  .refine((body) => body.decision === 'approve' || !body.creditLimit, {
    message: 'a decline has no credit limit',
    path: ['creditLimit'],
  });

export const OverrideView = z.object({
  batchId: z.string(),
  row: z.number().int(),
  decision: z.enum(OVERRIDE_VALUES),
  creditLimit: z.number().nullable(),
  reason: z.string(),
  by: z.string(),
  at: z.string(),
  previous: z.enum(DECISION_VALUES),
});
export type OverrideView = z.infer<typeof OverrideView>;

/** The result files a person may download: the summary, the reports, a re-screen's changes, the report page. */
const RESULT_FILES = ['summary', 'reports', 'changes', 'report'] as const;
export type ResultFile = (typeof RESULT_FILES)[number];

export const DownloadRequest = z.object({ file: z.enum(RESULT_FILES) });

export const DownloadLink = z.object({
  /** Works once or for a few minutes: a presigned URL in AWS, a link of the local console's on a laptop. */
  url: z.string(),
  expiresAt: z.string(),
  fileName: z.string(),
});
export type DownloadLink = z.infer<typeof DownloadLink>;

export const ExportResult = z.object({
  batchId: z.string(),
  rows: z.number().int(),
  overridden: z.number().int(),
  stillInReview: z.number().int(),
});
export type ExportResult = z.infer<typeof ExportResult>;

/** A data subject's document, as a DPO types it (any punctuation); checked like a list's cell. */
const subjectDocument = z
  .string()
  .max(40)
  .transform((typed, context) => {
    const parsed = parseDocument(typed);
    if (parsed.valid) return parsed.document;
    context.addIssue({ code: 'custom', message: parsed.reason });
    return z.NEVER;
  });

export const SubjectRequest = z.object({ document: subjectDocument });

export const SubjectErasureRequest = z
  .object({
    document: subjectDocument,
    /** The document typed a second time: an erasure is never one click. */
    confirmation: subjectDocument,
    reason: auditedText('the reason', 'say why (the request’s reference)', MAX_OVERRIDE_REASON),
  })
  .refine((request) => request.confirmation === request.document, {
    message: 'the confirmation is not the same document',
    path: ['confirmation'],
  });

/** What is held about a document, as the DPO's screen shows it: masked, with its audit trail. */
export const SubjectSummary = z.object({
  document: z.string(),
  batches: z.array(
    z.object({
      batchId: z.string(),
      status: z.enum(BATCH_STATUSES),
      createdAt: z.string(),
      rows: z.array(z.number().int()),
      overrides: z.number().int(),
      erased: z.boolean(),
    }),
  ),
  reports: z.number().int(),
  rawResponses: z.number().int(),
  audit: z.array(
    z.object({
      at: z.string(),
      kind: z.enum(AUDIT_KINDS),
      batchId: z.string(),
      row: z.number().int(),
      /** What happened, in one line (who, for a person's override or erasure). */
      detail: z.string(),
    }),
  ),
});
export type SubjectSummary = z.infer<typeof SubjectSummary>;

export const SubjectErasureResult = z.object({
  erasedAt: z.string(),
  batches: z.number().int(),
  rows: z.number().int(),
  storedReports: z.number().int(),
  overrides: z.number().int(),
  auditEntriesKept: z.number().int(),
  by: z.string(),
});
export type SubjectErasureResult = z.infer<typeof SubjectErasureResult>;

/** The largest list the console takes in a request (base64 in JSON); bigger lists go through the command line. */
export const MAX_UPLOAD_BYTES = 15 * 1024 * 1024;

export const PolicyList = z.object({ policies: z.array(z.string()) });

/** A list's file name as the person's computer gave it: shown and kept as the source name, never a key. */
export const UploadFileName = z
  .string()
  .min(1)
  .max(200)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a control character in a file name is what is refused
  .refine((name) => !/[/\\\u0000-\u001f]/.test(name), 'a file name, not a path');

/** A customer list sent by the browser: its name (shown, never a key), its bytes in base64, how to screen it. */
export const UploadRequest = z.object({
  fileName: UploadFileName,
  content: z
    .string()
    .max(
      Math.ceil((MAX_UPLOAD_BYTES * 4) / 3) + 4,
      `the console takes lists up to ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`,
    )
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'not base64'),
  bureau: z.enum(BUREAUS),
  /** A policy under `policies/` that decides the batch; null: the deployment's default. */
  policy: z.string().min(1).max(200).nullable().default(null),
});

export const ListCheckView = z.object({
  encoding: z.string(),
  delimiter: z.string().nullable(),
  documentColumns: z.array(z.string()),
  otherColumns: z.array(z.string()),
  rows: z.number().int(),
  valid: z.number().int(),
  invalid: z.number().int(),
  duplicates: z.number().int(),
  unique: z.number().int(),
  reusable: z.number().int().nullable(),
  toBuy: z.number().int(),
  pricePerQuery: z.number(),
  estimatedCost: z.number(),
  estimatedSeconds: z.number(),
  problems: z.array(z.object({ row: z.number().int(), input: z.string(), reason: z.string() })),
});
export type ListCheckView = z.infer<typeof ListCheckView>;

export const UploadResult = z.object({
  batchId: z.string(),
  outcome: z.enum(['queued', 'file_rejected', 'awaiting_approval', 'already_ingested']),
  /** Why the file was refused whole; null otherwise. */
  reason: z.string().nullable(),
});
export type UploadResult = z.infer<typeof UploadResult>;

export const MonthSpend = z.object({
  /** The month, `YYYY-MM`, as the caps count it. */
  month: z.string(),
  bureaus: z.array(
    z.object({
      bureau: z.enum(BUREAUS),
      /** Queries bought so far this month (reserved against the cap and charged). */
      queries: z.number().int(),
      pricePerQuery: z.number(),
      cost: z.number(),
      /** The most queries a month may buy; null for no cap. */
      cap: z.number().int().nullable(),
    }),
  ),
});
export type MonthSpend = z.infer<typeof MonthSpend>;

export const RedriveRequest = z.object({
  /** Rows whose call may have been charged are bought again only when a manager says so, here. */
  chargeUnknown: z.boolean().default(false),
});

export const RedriveResult = z.object({
  batchId: z.string(),
  outcome: z.enum(['redriven', 'nothing_to_redrive']),
  /** Rows sent back to the bureau. */
  requeued: z.number().int(),
  /** Failed rows of the other kind, left as they are. */
  left: z.number().int(),
});
export type RedriveResult = z.infer<typeof RedriveResult>;

export const ApprovalRequest = z.object({ decision: z.enum(['approved', 'rejected']) });

export const ApprovalResult = z.object({
  batchId: z.string(),
  outcome: z.enum(['approved', 'rejected', 'already_approved', 'already_rejected']),
  /** Approved: documents the batch buys; rejected: rows settled without a query. */
  rows: z.number().int(),
  by: z.string(),
});
export type ApprovalResult = z.infer<typeof ApprovalResult>;

export const CancelResult = z.object({
  batchId: z.string(),
  cancelledRows: z.number().int(),
  by: z.string(),
});
export type CancelResult = z.infer<typeof CancelResult>;

export const SignInRequest = z.object({ token: z.string().min(1).max(200) });

export const SignedInUser = z.object({
  subject: z.string(),
  name: z.string(),
  roles: z.array(z.enum(CONSOLE_ROLES)).readonly(),
});

const userName = auditedText('the name', 'the name is empty', MAX_USER_NAME);

export const NewUser = z.object({
  name: userName,
  roles: z
    .array(z.enum(CONSOLE_ROLES))
    .min(1, 'a user needs a role')
    .refine((roles) => new Set(roles).size === roles.length, 'a role is given twice'),
});
export type NewUser = z.infer<typeof NewUser>;

export const UserView = SignedInUser.extend({ createdAt: z.string(), createdBy: z.string() });
export type UserView = z.infer<typeof UserView>;

export const UserList = z.object({ users: z.array(UserView) });

export const CreatedUser = z.object({
  user: UserView,
  /** Signs the new user in once; the console shows it as a link whose fragment carries it. */
  signInToken: z.string(),
});
export type CreatedUser = z.infer<typeof CreatedUser>;

/** Every refusal: one line, for a person. */
export const ErrorBody = z.object({ error: z.string() });
