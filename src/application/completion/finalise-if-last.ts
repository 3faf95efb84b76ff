import type { BatchRecords, WorkQueue } from '../../domain/ports/index.ts';

/**
 * After rows of a batch were settled (by a worker, the dead-letter handler, a cancellation, the sweeper, or ingest
 * itself): if none is left, exactly one caller wins the finalisation claim and queues the finaliser. Every use case
 * that settles rows ends with this, so completion fires once whoever settles last.
 */
export async function finaliseIfLast(
  batchId: string,
  deps: {
    readonly batchRecords: Pick<BatchRecords, 'getBatch' | 'claimFinalisation'>;
    readonly queue: WorkQueue;
  },
): Promise<void> {
  const batch = await deps.batchRecords.getBatch(batchId);
  if (batch?.status !== 'running' || batch.toScreen === null || batch.settled < batch.toScreen) return;
  if (await deps.batchRecords.claimFinalisation(batchId))
    await deps.queue.sendFinalise({ version: 1, batchId });
}
