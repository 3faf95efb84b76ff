import type { CaseComment, CasePerson, ReviewCase } from '../review/index.ts';

/**
 * The cases of rows in review: who has taken each and what was written about it. Concurrent people are told apart
 * by the assignee each saw: two who take the same row at once get one winner, never a silent swap.
 */
export interface ReviewCases {
  /** The batch's cases that have an assignee or a comment, in row order. */
  casesOf(batchId: string): Promise<ReviewCase[]>;
  /**
   * Gives the row to `to` (null: to nobody), if its assignee is still `expected` (a subject; null: nobody): false
   * when someone else changed it meanwhile.
   */
  assign(
    key: { readonly batchId: string; readonly row: number },
    to: CasePerson | null,
    expected: string | null,
    at: string,
  ): Promise<boolean>;
  /** Appends a comment; false when the case holds its most comments already. */
  addComment(key: { readonly batchId: string; readonly row: number }, comment: CaseComment): Promise<boolean>;
}

/** The people who review rows (analysts and managers), whom a manager may give a row to. */
export interface ReviewerDirectory {
  reviewers(): Promise<CasePerson[]>;
  /** The reviewer of that subject; null for nobody, or someone who does not review. */
  findReviewer(subject: string): Promise<CasePerson | null>;
}
