import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { type RecordOverrideDependencies, recordOverride } from '../application/review/record-override.ts';
import {
  type ReviewQueueDependencies,
  type ReviewRowsCache,
  reviewQueue,
} from '../application/review/review-queue.ts';
import { OverrideBody, OverrideView, ReviewPage, ReviewQuery, RowParams } from '../contract/index.ts';
import { addCaseRoutes, type CaseRouteDependencies } from './case-routes.ts';
import type { Authenticator, ConsoleEnv } from './console-env.ts';
import { json, refusals } from './openapi-parts.ts';
import { keptByFilters, queuedItemView, refused } from './review-views.ts';
import { guard, routeBasics } from './route-guard.ts';

/**
 * What the review routes read and write: the batches' results and rows, their overrides and cases, the audit log,
 * the events, and who may be given a row.
 */
export type ReviewDependencies = ReviewQueueDependencies & RecordOverrideDependencies & CaseRouteDependencies;

/** Registers the review queue and the override of a row, its author the signed-in person. */
export function addReviewRoutes(
  app: OpenAPIHono<ConsoleEnv>,
  authenticator: Authenticator,
  review: ReviewDependencies,
  /** Each decided batch's rows in review, kept between requests (an erasure in this process empties it). */
  cache: ReviewRowsCache,
): void {
  const queue = createRoute({
    ...routeBasics('review'),
    middleware: [guard('review', authenticator)] as const,
    request: { query: ReviewQuery },
    responses: {
      200: json(ReviewPage, 'A page of rows waiting for a person'),
      ...refusals(400, 401, 403, 404, 409),
    },
  });
  app.openapi(queue, async (context) => {
    const query = context.req.valid('query');
    const { limit, page } = query;
    const read = await refused(() => reviewQueue({ batchId: query.batchId }, { ...review, cache }));
    if ('error' in read) return context.json({ error: read.error }, read.status);
    const me = context.get('identity').subject;
    const now = new Date().toISOString();
    const kept = read.items.filter((item) => keptByFilters(item, query, me, now));
    const items = kept.slice(page * limit, (page + 1) * limit).map(queuedItemView);
    const queues = [...new Set(read.items.map((item) => item.queue))].sort();
    return context.json({ items, total: kept.length, queues, batches: read.batches, page, limit }, 200);
  });
  addCaseRoutes(app, authenticator, { ...review, cache });
  const override = createRoute({
    ...routeBasics('override'),
    middleware: [guard('override', authenticator)] as const,
    request: { params: RowParams, body: json(OverrideBody, 'The decision, its limit and why', true) },
    responses: {
      200: json(OverrideView, 'Recorded beside the policy’s decision'),
      ...refusals(400, 401, 403, 404, 409),
    },
  });
  app.openapi(override, async (context) => {
    const { batchId, row } = context.req.valid('param');
    const body = context.req.valid('json');
    const by = context.get('identity');
    const recorded = await refused(() =>
      recordOverride(
        { batchId, row },
        { decision: body.decision, creditLimit: body.creditLimit, reason: body.reason, by: by.name },
        review,
      ),
    );
    if ('error' in recorded) return context.json({ error: recorded.error }, recorded.status);
    review.logger.info('override recorded in the console', { batchId, row, subject: by.subject });
    return context.json(
      {
        batchId,
        row,
        decision: recorded.decision,
        creditLimit: recorded.credit_limit,
        reason: recorded.reason,
        by: recorded.by,
        at: recorded.at,
        previous: recorded.previous,
      },
      200,
    );
  });
}
