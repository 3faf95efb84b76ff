import { INCOMING_PREFIX } from './batch-identity.ts';

/**
 * How a batch's work messages share the work queue with other batches. The queue is an SQS fair queue: SQS tells
 * tenants apart by `MessageGroupId`, and when one tenant holds a disproportionate share of the messages in flight (or
 * of recent processing time) it serves the other tenants' messages first, so a flood from one batch does not hold up
 * a small one. The lane decides the tenant:
 *
 * - `priority`: an upload under `incoming/<bureau>/priority/…`. Its messages carry no group, so each one is a tenant
 *   of its own that can never be the noisy one: they go ahead of every flooding batch.
 * - `upload`: any other upload. Its group is the batch, so each upload gets its share and a large one yields to
 *   smaller ones.
 * - `scheduled`: a portfolio re-screen. Every scheduled run of a bureau shares one group, so all of them together
 *   count as one tenant: the lowest priority, whatever their number or size.
 *
 * Only the order of delivery changes: every message still passes the global rate limiter and the row's claim, so
 * neither the rate limit nor exactly-once depend on the lane.
 */
export const DELIVERY_LANES = ['priority', 'upload', 'scheduled'] as const;
export type DeliveryLane = (typeof DELIVERY_LANES)[number];

/** Folder, right under the bureau's, that asks for the priority lane: `incoming/a/priority/list.csv`. */
const PRIORITY_FOLDER = 'priority';

/** The lane of a batch, from what started it: the upload's key, or the portfolio it re-screens. */
export function deliveryLaneFor(source: {
  readonly key: string;
  readonly portfolio: string | null;
}): DeliveryLane {
  if (source.portfolio !== null) return 'scheduled';
  if (!source.key.startsWith(INCOMING_PREFIX)) return 'upload';
  const [, folder, ...rest] = source.key.slice(INCOMING_PREFIX.length).split('/');
  return folder === PRIORITY_FOLDER && rest.length > 0 ? 'priority' : 'upload';
}

/**
 * The lane of a batch already written, for every message sent after ingest (an approval, the sweeper, a resume, a
 * redrive): the same lane as its first messages, so a re-sent priority row stays ahead and a scheduled run's rows
 * stay in the scheduled tenant.
 */
export const laneOfBatch = (batch: {
  readonly sourceKey: string;
  readonly portfolio: string | null;
}): DeliveryLane => deliveryLaneFor({ key: batch.sourceKey, portfolio: batch.portfolio });

/**
 * The SQS `MessageGroupId` of a work message on the fair queue, or undefined for none (a tenant of its own). A
 * message without a lane (a sweeper's or redrive's re-send) is grouped with its batch.
 */
export function messageGroupFor(message: {
  readonly lane?: DeliveryLane | undefined;
  readonly bureau: string;
  readonly batchId: string;
}): string | undefined {
  switch (message.lane ?? 'upload') {
    case 'priority':
      return undefined;
    case 'scheduled':
      return `scheduled-${message.bureau}`;
    case 'upload':
      return message.batchId;
  }
}
