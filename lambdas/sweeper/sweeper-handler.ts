import {
  type SweeperDependencies,
  type SweepReport,
  sweepStuckRows,
} from '../../src/application/sweeper/sweep-stuck-rows.ts';

/**
 * The sweeper Lambda, run on a schedule: queues again the rows left stuck in a claim. It logs what it found as
 * `requeued` (a metric filter counts it, and an alarm fires when rows keep getting stuck).
 */
export function createSweeperHandler(deps: SweeperDependencies) {
  return async (): Promise<SweepReport> => {
    const report = await sweepStuckRows(deps);
    deps.logger.info('sweep done', { ...report });
    return report;
  };
}
