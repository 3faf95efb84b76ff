/** The console's review cases: who holds a row in review, what was said about it, and why the policy sent it. */
import { z } from 'zod';
import { MAX_COMMENT_LENGTH } from '../domain/review/index.ts';
import { OverrideView, ReviewItemView } from './console-schemas.ts';

const CasePersonView = z.object({ subject: z.string(), name: z.string() });

/** The figures of a row's report a reviewer decides on (no name: the reviewer decides on the figures). */
export const ReportFiguresView = z.object({
  score: z.number().nullable(),
  defaultProbabilityPct: z.number().nullable(),
  protestsCount: z.number(),
  protestsCents: z.number().nullable(),
  pendingDebtsCount: z.number(),
  pendingDebtsCents: z.number().nullable(),
  bouncedChequesCount: z.number(),
  stoppedChequesCount: z.number().nullable(),
  screenedAt: z.string(),
});

/**
 * Who should hold the row: `me`, nobody (`null`), or (a manager) another reviewer by their subject; `expected` is the
 * holder the person saw (a subject, or null for nobody), so a change made meanwhile is refused, not overwritten.
 */
export const AssignBody = z.object({
  to: z.union([z.literal('me'), z.null(), z.object({ subject: z.string().min(1).max(200) })]),
  expected: z.string().min(1).max(200).nullable(),
});

/** A comment: any text a person writes about the row, multi-line, without control characters. */
export const CommentBody = z.object({
  text: z
    .string()
    .trim()
    .min(1, 'the comment is empty')
    .max(MAX_COMMENT_LENGTH)
    .refine((text) => [...text].every(printableOrNewline), 'a comment holds no control characters'),
});

/** A line break, or a character that is not a control character (a tab, an escape, DEL). */
function printableOrNewline(character: string): boolean {
  const code = character.codePointAt(0) ?? 0;
  return code === 10 || (code >= 32 && code !== 127);
}

export const ReviewCaseView = z.object({
  item: ReviewItemView,
  /** The policy that decided it, by name and content hash: the version its decision came from. */
  policy: z.object({ name: z.string(), sha256: z.string() }).nullable(),
  /** The figures the decision read (no name: the reviewer decides on the figures). */
  figures: ReportFiguresView.nullable(),
  /** The rules that fired, in the engine's order; null when the row was decided at the batch's end (then in reports). */
  rulesFired: z
    .array(
      z.object({
        node: z.string(),
        rule: z.string(),
        row: z.number().nullable(),
        description: z.string().nullable(),
      }),
    )
    .nullable(),
  assignee: CasePersonView.nullable(),
  assignedAt: z.string().nullable(),
  comments: z.array(z.object({ by: CasePersonView, at: z.string(), text: z.string() })),
  /** The people's decisions on the row so far, oldest first. */
  overrides: z.array(OverrideView.omit({ batchId: true, row: true })),
});
export type ReviewCaseView = z.infer<typeof ReviewCaseView>;

/** Whom a manager may give a row to (empty where the console cannot list them). */
export const ReviewerList = z.object({ reviewers: z.array(CasePersonView) });
export type ReviewerList = z.infer<typeof ReviewerList>;

/** A case after a change: its holder and comments as they now stand. */
export const CaseState = z.object({
  assignee: CasePersonView.nullable(),
  assignedAt: z.string().nullable(),
  comments: z.array(z.object({ by: CasePersonView, at: z.string(), text: z.string() })),
});
export type CaseState = z.infer<typeof CaseState>;
