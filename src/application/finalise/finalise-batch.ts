import type { BatchManifest } from '../../contract/index.ts';
import { resultKeys } from '../../contract/index.ts';
import type { FinaliseMessage } from '../../domain/batch/index.ts';
import type { DocumentChangedEvent } from '../../domain/ports/index.ts';
import type { FinaliseDependencies } from './finalise-dependencies.ts';
import { composeParts, finalisePart, finalisePartsOf, startParts } from './finalise-parts.ts';
import { emptyTotals, finalisingBatch, finishBatch, once } from './finish-batch.ts';
import { resultFilesOf, writeRangeFiles } from './result-files.ts';

export type { FinaliseDependencies } from './finalise-dependencies.ts';

/** Does what a finalise message asks: a whole batch, one part of a big one, or the join of its parts. */
export async function handleFinaliseMessage(
  message: FinaliseMessage,
  deps: FinaliseDependencies,
): Promise<BatchManifest | null> {
  // The size the split cut the parts at travels with them; a message without one is cut at the current setting.
  const cut = message.partRows === undefined ? deps : { ...deps, partRows: message.partRows };
  if (message.compose) return composeParts(message.batchId, cut);
  if (message.part !== undefined) {
    await finalisePart(message.batchId, message.part, cut);
    return null;
  }
  return finaliseBatch(message.batchId, deps);
}

/**
 * Writes a finished batch's results: `summary.csv` (one line per input row, in input order), `reports.jsonl` (one
 * normalised report per screened or cached document), `changes.csv` for a re-screen, `report.html` (the page
 * people read, gathered from the same rows as the summary) and, last, `manifest.json`; then marks the batch complete
 * and publishes `BatchCompleted`. A batch bigger than one part is not written here: it is split into one message
 * per part (see finalise-parts.ts), and null is returned. Runs once per batch (the finalisation claim); safe to run
 * again after a crash.
 */
export async function finaliseBatch(
  batchId: string,
  deps: FinaliseDependencies,
): Promise<BatchManifest | null> {
  const batch = await finalisingBatch(batchId, deps);
  if (batch === null) return null;
  const parts = finalisePartsOf(batch, deps);
  if (batch.failure === null && parts.length > 1) {
    await startParts(batch, parts, deps);
    return null;
  }
  const keys = resultKeys(batchId);
  if (batch.failure !== null) return finishBatch(batch, emptyTotals(), null, noDocuments(), deps);
  const results = await writeRangeFiles(batch, keys, { withHeaders: true }, keys.changes, deps);
  const totals = { ...results, worstChanges: results.changeAlerts?.worstChanges ?? [] };
  const documents = results.changeAlerts?.documentEvents ?? [];
  return finishBatch(batch, totals, resultFilesOf(batch, keys), once(documents), deps);
}

async function* noDocuments(): AsyncGenerator<readonly DocumentChangedEvent[]> {}
