/**
 * A row in review as people work it: who has taken it and what they wrote about it. The policy's decision and any
 * override are kept elsewhere (the row, the overrides); a case only organises the work around them.
 */

/** A signed-in person as a case names them: the identity's stable subject, and the name shown beside it. */
export interface CasePerson {
  readonly subject: string;
  readonly name: string;
}

/** A note on a case, kept in the order written; never edited, so the case reads as it happened. */
export interface CaseComment {
  readonly by: CasePerson;
  /** ISO 8601, UTC. */
  readonly at: string;
  readonly text: string;
}

export interface ReviewCase {
  readonly batchId: string;
  readonly row: number;
  /** Who works the row now; null when nobody has taken it (or it was given back). */
  readonly assignee: CasePerson | null;
  /** When it was last assigned or given back (ISO 8601, UTC); null when never. */
  readonly assignedAt: string | null;
  readonly comments: readonly CaseComment[];
}

/** Most comments a case keeps: a case is a row's discussion, not a chat; one item must hold them all. */
export const MAX_CASE_COMMENTS = 100;

/** Longest comment, in characters. */
export const MAX_COMMENT_LENGTH = 1000;

/**
 * How long rows in review may wait, in hours, per queue: a queue is the policy that sent the rows to review (a
 * policy's rows are one kind of work), `default` for the policies not named.
 */
export interface ReviewSla {
  readonly defaultHours: number;
  readonly hoursByPolicy: Readonly<Record<string, number>>;
}

/** Most hours a queue may give its rows: thirty days, beyond which a due date no longer says anything. */
export const MAX_REVIEW_SLA_HOURS = 720;

/** The queue's hours for a batch decided by `policy`. */
export const slaHoursOf = (sla: ReviewSla, policy: string): number =>
  sla.hoursByPolicy[policy] ?? sla.defaultHours;

/** When a row in review is due: its batch's completion plus its queue's hours (ISO 8601, UTC). */
export function reviewDueAt(completedAt: string, hours: number): string {
  return new Date(Date.parse(completedAt) + hours * 3_600_000).toISOString();
}

/** The case of a row nobody has taken or written about. */
export const emptyCase = (batchId: string, row: number): ReviewCase => ({
  batchId,
  row,
  assignee: null,
  assignedAt: null,
  comments: [],
});
