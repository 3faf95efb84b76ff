import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ReviewRefusal } from '../application/review/decided-rows.ts';
import {
  assignReviewRow,
  caseOf,
  commentOnReviewRow,
  type ReviewCaseDependencies,
} from '../application/review/review-cases.ts';
import { reviewItemOf } from '../application/review/review-queue.ts';
import {
  AssignBody,
  CaseState,
  CommentBody,
  ReportFiguresView,
  ReviewCaseView as ReviewCaseSchema,
  type ReviewCaseView,
  ReviewerList,
  RowParams,
} from '../contract/index.ts';
import type { BatchRecords, BatchRows, Logger, ReviewerDirectory } from '../domain/ports/index.ts';
import type { CasePerson, ReviewCase } from '../domain/review/index.ts';
import type { Authenticator, ConsoleEnv } from './console-env.ts';
import { json, refusals } from './openapi-parts.ts';
import { queuedItemView, refused } from './review-views.ts';
import { guard, routeBasics } from './route-guard.ts';

/** What the case routes read besides the queue: the rows (their decisions' rules), the cases, the reviewers. */
export interface CaseRouteDependencies extends ReviewCaseDependencies {
  readonly batchRecords: ReviewCaseDependencies['batchRecords'] & Pick<BatchRecords, 'getBatch'>;
  readonly batchRows: Pick<BatchRows, 'getRows'>;
  readonly overrides: ReviewCaseDependencies['overrides'];
  /** Without it, rows are only taken and given back, never given to others. */
  readonly reviewers?: ReviewerDirectory;
  readonly logger: Pick<Logger, 'info'>;
}

const stateOf = (found: ReviewCase) => ({
  assignee: found.assignee,
  assignedAt: found.assignedAt,
  comments: [...found.comments],
});

/** Registers a row's case: reading it, taking or giving it, commenting on it; the person is the signed-in one. */
export function addCaseRoutes(
  app: OpenAPIHono<ConsoleEnv>,
  authenticator: Authenticator,
  deps: CaseRouteDependencies,
): void {
  const read = createRoute({
    ...routeBasics('reviewCase'),
    middleware: [guard('reviewCase', authenticator)] as const,
    request: { params: RowParams },
    responses: { 200: json(ReviewCaseSchema, 'The row’s case'), ...refusals(400, 401, 403, 404, 409) },
  });
  app.openapi(read, async (context) => {
    const found = await refused(() => caseView(context.req.valid('param'), deps));
    return 'error' in found ? refusal(context, found) : context.json(found, 200);
  });
  const assign = createRoute({
    ...routeBasics('assign'),
    middleware: [guard('assign', authenticator)] as const,
    request: { params: RowParams, body: json(AssignBody, 'Who holds the row, and who held it', true) },
    responses: { 200: json(CaseState, 'The case as it now stands'), ...refusals(400, 401, 403, 404, 409) },
  });
  app.openapi(assign, async (context) => {
    const key = context.req.valid('param');
    const body = context.req.valid('json');
    const identity = context.get('identity');
    const person = { subject: identity.subject, name: identity.name };
    const assignsOthers = identity.roles.includes('manager');
    const changed = await refused(async () => {
      const to = body.to === 'me' ? person : body.to === null ? null : await reviewer(body.to.subject, deps);
      return assignReviewRow(key, { to, expected: body.expected }, { person, assignsOthers }, deps);
    });
    if ('error' in changed) return refusal(context, changed);
    deps.logger.info('review row assigned in the console', { ...key, subject: identity.subject });
    return context.json(stateOf(changed), 200);
  });
  const reviewers = createRoute({
    ...routeBasics('reviewers'),
    middleware: [guard('reviewers', authenticator)] as const,
    responses: { 200: json(ReviewerList, 'The people a row may be given to'), ...refusals(401, 403) },
  });
  app.openapi(reviewers, async (context) =>
    context.json({ reviewers: (await deps.reviewers?.reviewers()) ?? [] }, 200),
  );
  const comment = createRoute({
    ...routeBasics('comment'),
    middleware: [guard('comment', authenticator)] as const,
    request: { params: RowParams, body: json(CommentBody, 'What the person has to say', true) },
    responses: { 200: json(CaseState, 'The case as it now stands'), ...refusals(400, 401, 403, 404, 409) },
  });
  app.openapi(comment, async (context) => {
    const identity = context.get('identity');
    const by = { subject: identity.subject, name: identity.name };
    const changed = await refused(() =>
      commentOnReviewRow(context.req.valid('param'), context.req.valid('json').text, by, deps),
    );
    return 'error' in changed ? refusal(context, changed) : context.json(stateOf(changed), 200);
  });
}

/** A refusal as the routes answer it: its one line, with its status. */
function refusal(context: Context<ConsoleEnv>, refused: { error: string; status: 403 | 404 | 409 }) {
  return context.json({ error: refused.error }, refused.status);
}

/** The person a manager named, if they review; refused in one line otherwise. */
async function reviewer(subject: string, deps: CaseRouteDependencies): Promise<CasePerson> {
  if (deps.reviewers === undefined)
    throw new ReviewRefusal('this console gives rows to others once it can list its reviewers', 'refused');
  const found = await deps.reviewers.findReviewer(subject);
  if (found === null) throw new ReviewRefusal('no reviewer has that id', 'missing');
  return found;
}

/** The row in review with what a person needs to decide it: figures, the rules that fired, its case. */
async function caseView(
  key: { readonly batchId: string; readonly row: number },
  deps: CaseRouteDependencies,
): Promise<ReviewCaseView> {
  const item = await reviewItemOf(key, deps);
  const [batch, [record], found, overrides] = await Promise.all([
    deps.batchRecords.getBatch(key.batchId),
    deps.batchRows.getRows(key.batchId, [key.row]),
    caseOf(key, deps),
    deps.overrides.overridesOf(key.batchId),
  ]);
  const report = record?.report ?? null;
  return {
    item: queuedItemView({ ...item, assignee: found.assignee, comments: found.comments.length }),
    policy: batch?.policy ? { name: batch.policy.name, sha256: batch.policy.sha256 } : null,
    figures:
      report === null
        ? null
        : (Object.fromEntries(
            Object.keys(ReportFiguresView.shape).map((name) => [name, report[name as keyof typeof report]]),
          ) as ReviewCaseView['figures']),
    rulesFired:
      record?.decision?.trace.map((rule) => ({
        node: rule.node,
        rule: rule.rule,
        row: rule.row,
        description: rule.description,
      })) ?? null,
    ...stateOf(found),
    overrides: overrides
      .filter((override) => override.row === key.row)
      .map((override) => ({
        decision: override.decision,
        creditLimit: override.credit_limit,
        reason: override.reason,
        by: override.by,
        at: override.at,
        previous: override.previous,
      })),
  };
}
