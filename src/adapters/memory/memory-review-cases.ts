import type { ReviewCases } from '../../domain/ports/index.ts';
import {
  type CaseComment,
  type CasePerson,
  emptyCase,
  MAX_CASE_COMMENTS,
  type ReviewCase,
} from '../../domain/review/index.ts';

type RowKey = { readonly batchId: string; readonly row: number };

/** Review cases in memory, with the DynamoDB store's rules (the same contract suite runs on both). */
export class MemoryReviewCases implements ReviewCases {
  readonly #byBatch = new Map<string, Map<number, ReviewCase>>();

  async casesOf(batchId: string): Promise<ReviewCase[]> {
    return [...(this.#byBatch.get(batchId)?.values() ?? [])]
      .sort((a, b) => a.row - b.row)
      .map((found) => structuredClone(found));
  }

  async assign(key: RowKey, to: CasePerson | null, expected: string | null, at: string): Promise<boolean> {
    const current = this.#caseOf(key);
    if ((current.assignee?.subject ?? null) !== expected) return false;
    this.#put({ ...current, assignee: to === null ? null : { ...to }, assignedAt: at });
    return true;
  }

  async addComment(key: RowKey, comment: CaseComment): Promise<boolean> {
    const current = this.#caseOf(key);
    if (current.comments.length >= MAX_CASE_COMMENTS) return false;
    this.#put({ ...current, comments: [...current.comments, structuredClone(comment)] });
    return true;
  }

  /** Deletes a row's case (an erasure); whether there was one. */
  forgetRow(batchId: string, row: number): boolean {
    return this.#byBatch.get(batchId)?.delete(row) ?? false;
  }

  #caseOf(key: RowKey): ReviewCase {
    return this.#byBatch.get(key.batchId)?.get(key.row) ?? emptyCase(key.batchId, key.row);
  }

  #put(found: ReviewCase): void {
    const cases = this.#byBatch.get(found.batchId) ?? new Map<number, ReviewCase>();
    cases.set(found.row, found);
    this.#byBatch.set(found.batchId, cases);
  }
}
