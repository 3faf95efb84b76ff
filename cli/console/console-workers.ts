import { type BatchBureau, openBatchBureau, resumableNow } from '../batch-bureau.ts';
import { RESUME_LOOKBACK } from '../local/local-pipeline.ts';
import { keepStateBureau } from '../local/state-bureau.ts';
import type { PipelineConnection } from '../pipeline-connection.ts';

/** Batches the console may take further: running, finalising, or waiting for someone to approve them. */
const OPEN_STATUSES = new Set(['running', 'finalising', 'awaiting_approval']);

/**
 * Starts the local pipeline's workers for the console, as `resume` would: for the state's open batches (those
 * waiting for approval included, so that one approved in the browser runs at once), against the bureau they were
 * started with. What cannot be taken further here (another bureau's batches without its BUREAU_TOKEN) is said in a
 * line through `say` and left as it is. Returns the bureau to close once the workers have stopped.
 */
export async function startConsoleWorkers(
  connection: PipelineConnection,
  options: { readonly state: string; readonly epoch: number },
  say: (line: string) => void,
): Promise<BatchBureau | null> {
  const local = connection.local;
  if (local === null) return null;
  const open = (await connection.store.listBatches(RESUME_LOOKBACK)).filter((batch) =>
    OPEN_STATUSES.has(batch.status),
  );
  const { resume, later } = resumableNow(open);
  if (later !== null) say(later);
  const bureau = await openBatchBureau(resume, options.epoch);
  // A state keeps one bureau's reports: batches it would buy for must be that bureau's (as `resume` checks).
  if (resume.length > 0)
    await keepStateBureau(options.state, bureau.target.bureauEndpoint ?? '', connection.store, {
      record: false,
    });
  await local.startWorkers(bureau.target, { batches: resume.map((batch) => batch.batchId) });
  if (local.resumed !== null)
    say(`resumed ${resume.length} unfinished batches (${local.resumed.requeued} documents queued again)`);
  return bureau;
}
