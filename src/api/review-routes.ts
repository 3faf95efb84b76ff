import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { ReviewRefusal } from '../application/review/decided-rows.ts';
import { type RecordOverrideDependencies, recordOverride } from '../application/review/record-override.ts';
import {
  type ReviewQueueDependencies,
  type ReviewRowsCache,
  reviewQueue,
} from '../application/review/review-queue.ts';
import { OverrideBody, OverrideView, ReviewPage, ReviewQuery, RowParams } from '../contract/index.ts';
import type { Authenticator, ConsoleEnv } from './console-env.ts';
import { json, refusals } from './openapi-parts.ts';
import { guard, routeBasics } from './route-guard.ts';

/** What the review routes read and write: the batches' results, their overrides, the audit log, the events. */
export type ReviewDependencies = ReviewQueueDependencies & RecordOverrideDependencies;

/** Registers the review queue and the override of a row, its author the signed-in person. */
export function addReviewRoutes(
  app: OpenAPIHono<ConsoleEnv>,
  authenticator: Authenticator,
  review: ReviewDependencies,
): void {
  // A process answers many requests: each decided batch's rows in review are read once per revision.
  const cache: ReviewRowsCache = new Map();
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
    const { batchId, limit, page } = context.req.valid('query');
    const read = await refused(() => reviewQueue({ batchId }, { ...review, cache }));
    if ('error' in read)
      return read.status === 404
        ? context.json({ error: read.error }, 404)
        : context.json({ error: read.error }, 409);
    const items = read.items.slice(page * limit, (page + 1) * limit).map((item) => ({
      batchId: item.batchId,
      row: item.row,
      document: item.document,
      documentType: item.documentType,
      reasons: item.reasons,
      riskBand: item.risk_band,
      creditLimit: item.credit_limit,
      customer: item.customer,
      batchCreatedAt: item.batchCreatedAt,
    }));
    return context.json({ items, total: read.items.length, batches: read.batches, page, limit }, 200);
  });
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
    if ('error' in recorded)
      return recorded.status === 404
        ? context.json({ error: recorded.error }, 404)
        : context.json({ error: recorded.error }, 409);
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

/**
 * What `action` answers, or its one-line refusal with its status: 404 for a batch or row that does not exist, 409 for
 * one that cannot be decided now (not finished, no policy, no decision).
 */
export async function refused<T>(
  action: () => Promise<T>,
): Promise<T | { readonly error: string; readonly status: 404 | 409 }> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof ReviewRefusal)
      return { error: error.message, status: error.kind === 'missing' ? 404 : 409 };
    throw error;
  }
}
