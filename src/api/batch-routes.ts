import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import {
  type BatchControlDependencies,
  cancelBatch,
  decideBatchApproval,
  redriveBatch,
} from '../application/batch-control/batch-control.ts';
import {
  ApprovalRequest,
  ApprovalResult,
  BatchesQuery,
  BatchIdParams,
  BatchPage,
  BatchView,
  CancelResult,
  RedriveRequest,
  RedriveResult,
} from '../contract/index.ts';
import { batchViewOf } from './batch-view.ts';
import type { Authenticator, ConsoleEnv } from './console-env.ts';
import { json, refusals } from './openapi-parts.ts';
import { guard, routeBasics } from './route-guard.ts';

/** What the batch routes act on: the pipeline's stores and queues, through the batch-control use cases. */
export interface BatchRouteDependencies {
  readonly authenticator: Authenticator;
  readonly batches: BatchControlDependencies;
}

/** Registers the routes that list batches, show one, approve or reject its spend, and cancel it. */
export function addBatchRoutes(app: OpenAPIHono<ConsoleEnv>, deps: BatchRouteDependencies): void {
  addListing(app, deps);
  addApproval(app, deps);
  addCancel(app, deps);
  addRedrive(app, deps);
}

function addRedrive(app: OpenAPIHono<ConsoleEnv>, { authenticator, batches }: BatchRouteDependencies): void {
  const route = createRoute({
    ...routeBasics('redrive'),
    middleware: [guard('redrive', authenticator)] as const,
    request: { params: BatchIdParams, body: json(RedriveRequest, 'Which failed rows', true) },
    responses: {
      200: json(RedriveResult, 'Sent back (or nothing to)'),
      ...refusals(400, 401, 403, 404, 409),
    },
  });
  app.openapi(route, async (context) => {
    const { batchId } = context.req.valid('param');
    const { chargeUnknown } = context.req.valid('json');
    const outcome = await redriveBatch(batchId, batches, chargeUnknown ? 'charge_unknown' : 'not_charged');
    if (!('left' in outcome))
      return outcome.outcome === 'not_found'
        ? context.json({ error: `no batch ${batchId}` }, 404)
        : context.json(
            { error: `batch ${batchId} has not completed: its failed rows are known once it does` },
            409,
          );
    batches.logger.info('batch redriven in the console', {
      batchId,
      chargeUnknown,
      subject: context.get('identity').subject,
    });
    const requeued = outcome.outcome === 'redriven' ? outcome.requeued : 0;
    return context.json({ batchId, outcome: outcome.outcome, requeued, left: outcome.left }, 200);
  });
}

function addListing(app: OpenAPIHono<ConsoleEnv>, { authenticator, batches }: BatchRouteDependencies): void {
  const list = createRoute({
    ...routeBasics('batches'),
    middleware: [guard('batches', authenticator)] as const,
    request: { query: BatchesQuery },
    responses: { 200: json(BatchPage, 'A page of batches, newest first'), ...refusals(400, 401, 403) },
  });
  app.openapi(list, async (context) => {
    const { limit, page } = context.req.valid('query');
    // One more than the page holds says whether an older page has any.
    const read = await batches.batchRecords.listBatches((page + 1) * limit + 1);
    const shown = read.slice(page * limit, (page + 1) * limit);
    return context.json(
      { batches: shown.map(batchViewOf), page, limit, hasMore: read.length > (page + 1) * limit },
      200,
    );
  });
  const one = createRoute({
    ...routeBasics('batch'),
    middleware: [guard('batch', authenticator)] as const,
    request: { params: BatchIdParams },
    responses: { 200: json(BatchView, 'Where the batch stands'), ...refusals(400, 401, 403, 404) },
  });
  app.openapi(one, async (context) => {
    const { batchId } = context.req.valid('param');
    const batch = await batches.batchRecords.getBatch(batchId);
    if (batch === null) return context.json({ error: `no batch ${batchId}` }, 404);
    return context.json(batchViewOf(batch), 200);
  });
}

function addApproval(app: OpenAPIHono<ConsoleEnv>, { authenticator, batches }: BatchRouteDependencies): void {
  const route = createRoute({
    ...routeBasics('approval'),
    middleware: [guard('approval', authenticator)] as const,
    request: { params: BatchIdParams, body: json(ApprovalRequest, 'The decision', true) },
    responses: {
      200: json(ApprovalResult, 'Decided (or decided before, and what it left undone finished)'),
      ...refusals(400, 401, 403, 404, 409),
    },
  });
  app.openapi(route, async (context) => {
    const { batchId } = context.req.valid('param');
    const { decision } = context.req.valid('json');
    const by = context.get('identity');
    const outcome = await decideBatchApproval(batchId, decision, batches, by.name);
    if (outcome.outcome === 'not_found') return context.json({ error: `no batch ${batchId}` }, 404);
    if (outcome.outcome === 'not_awaiting_approval') {
      const before = outcome.approval === null ? '' : ` (it was ${outcome.approval} before)`;
      return context.json(
        { error: `batch ${batchId} is ${outcome.status}, not waiting for approval${before}` },
        409,
      );
    }
    batches.logger.info('batch approval decided in the console', { batchId, decision, subject: by.subject });
    // Decided before: the answer names who decided then, as the batch records.
    const decidedBy = outcome.outcome.startsWith('already_')
      ? ((await batches.batchRecords.getBatch(batchId))?.approvalBy ?? 'the command line')
      : by.name;
    return context.json({ batchId, outcome: outcome.outcome, rows: outcome.rows, by: decidedBy }, 200);
  });
}

const CANCEL_REFUSALS = {
  still_ingesting: (batchId: string) => `batch ${batchId} is still being read; cancel it again in a moment`,
  already_finished: (batchId: string) => `batch ${batchId} has already finished`,
} as const;

function addCancel(app: OpenAPIHono<ConsoleEnv>, { authenticator, batches }: BatchRouteDependencies): void {
  const route = createRoute({
    ...routeBasics('cancel'),
    middleware: [guard('cancel', authenticator)] as const,
    request: { params: BatchIdParams },
    responses: {
      200: json(CancelResult, 'Cancelled: queued documents are settled without a query'),
      ...refusals(400, 401, 403, 404, 409),
    },
  });
  app.openapi(route, async (context) => {
    const { batchId } = context.req.valid('param');
    const by = context.get('identity');
    const outcome = await cancelBatch(batchId, batches);
    if (outcome.outcome === 'not_found') return context.json({ error: `no batch ${batchId}` }, 404);
    if (outcome.outcome !== 'cancelled')
      return context.json({ error: CANCEL_REFUSALS[outcome.outcome](batchId) }, 409);
    batches.logger.info('batch cancelled in the console', { batchId, subject: by.subject });
    return context.json({ batchId, cancelledRows: outcome.cancelledRows, by: by.name }, 200);
  });
}
