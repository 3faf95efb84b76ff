/** How long a worker holds a row, when a held row counts as stuck, and how often the sweeper looks for those. */

import { workQueueVisibilitySeconds } from './queues.ts';
import type { PipelineSettings } from './settings.ts';

/**
 * How long after its lease ran out a claimed row counts as stuck. A message still in the queue comes back within
 * the queue's visibility timeout of the receive that claimed the row, and takes the row over: past that, the
 * message is gone (deleted while the claim stayed, or expired) and the sweeper queues the row again.
 */
export function stuckClaimSeconds(settings: PipelineSettings): number {
  return workQueueVisibilitySeconds(settings);
}

/** How often the sweeper looks for stuck rows (a scheduled function in AWS, a timer in a local run). */
export const SWEEP_INTERVAL_MINUTES = 5;

/** How long a worker's claim on a row lasts: a bureau call with its timeout, plus margin. A crash frees it then. */
export function claimLeaseSeconds(settings: PipelineSettings): number {
  return settings.bureauTimeoutSeconds * 2 + 10;
}
