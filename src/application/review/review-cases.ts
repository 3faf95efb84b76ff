import type { ReviewCases } from '../../domain/ports/index.ts';
import { type CasePerson, emptyCase, type ReviewCase } from '../../domain/review/index.ts';
import { ReviewRefusal } from './decided-rows.ts';
import { type ReviewQueueDependencies, reviewItemOf } from './review-queue.ts';

/** What working a case needs: the queue (to know the row is in review) and the cases. */
export interface ReviewCaseDependencies extends ReviewQueueDependencies {
  readonly reviewCases: ReviewCases;
  /** @default the clock */
  readonly now?: () => Date;
}

/** Who acts on a case: the signed-in person, and whether they may give rows to others (a manager). */
export interface CaseActor {
  readonly person: CasePerson;
  readonly assignsOthers: boolean;
}

type RowKey = { readonly batchId: string; readonly row: number };

/**
 * Gives a row in review to `to` (null: back to nobody), from the assignee the person saw (`expected`). Anyone who
 * reviews takes a free row for themselves and gives back their own; only a manager gives rows to others or takes
 * them from others. Refused when someone changed the row meanwhile: two people never both believe they hold it.
 */
export async function assignReviewRow(
  key: RowKey,
  change: { readonly to: CasePerson | null; readonly expected: string | null },
  actor: CaseActor,
  deps: ReviewCaseDependencies,
): Promise<ReviewCase> {
  await reviewItemOf(key, deps);
  // A row a person decided has left the queue: there is nothing to hold (its case still takes comments).
  if ((await deps.overrides.overridesOf(key.batchId)).some((override) => override.row === key.row))
    throw new ReviewRefusal(`row ${key.row} was decided by a person already`);
  const self = actor.person.subject;
  if (!actor.assignsOthers) {
    if (change.to !== null && change.to.subject !== self)
      throw new ReviewRefusal('only a manager gives a row to someone else', 'forbidden');
    if (change.expected !== null && change.expected !== self)
      throw new ReviewRefusal('the row is someone else’s: only a manager takes it from them', 'forbidden');
  }
  const at = (deps.now ?? (() => new Date()))().toISOString();
  if (!(await deps.reviewCases.assign(key, change.to, change.expected, at)))
    throw new ReviewRefusal(`row ${key.row} was assigned by someone else meanwhile: reload the queue`);
  return caseOf(key, deps);
}

/** Adds a comment to a row in review, signed by the person; refused when the case holds its most comments. */
export async function commentOnReviewRow(
  key: RowKey,
  text: string,
  by: CasePerson,
  deps: ReviewCaseDependencies,
): Promise<ReviewCase> {
  await reviewItemOf(key, deps);
  const at = (deps.now ?? (() => new Date()))().toISOString();
  if (!(await deps.reviewCases.addComment(key, { by, at, text })))
    throw new ReviewRefusal(`row ${key.row} has as many comments as a case keeps`);
  return caseOf(key, deps);
}

/** A row's case as it stands (an empty one when nobody has taken it or written about it). */
export async function caseOf(
  key: RowKey,
  deps: Pick<ReviewCaseDependencies, 'reviewCases'>,
): Promise<ReviewCase> {
  const cases = await deps.reviewCases.casesOf(key.batchId);
  return cases.find((found) => found.row === key.row) ?? emptyCase(key.batchId, key.row);
}
