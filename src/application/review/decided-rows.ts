import { type BatchManifest, resultKeys } from '../../contract/index.ts';
import type { BatchRecord } from '../../domain/batch/index.ts';
import type { BatchRecords, ObjectStore } from '../../domain/ports/index.ts';
import { type ReviewLine, reviewLineOf, type StatisticsRow } from '../../domain/summary/index.ts';
import { type ResultsCsvLayout, readSummaryCsv } from '../../domain/summary/summary-csv-reader.ts';
import { jsonLines } from '../redecide/report-lines.ts';

/** Why a batch's decisions cannot be read, in one line for the command that asked. */
export class ReviewRefusal extends Error {
  override readonly name = 'ReviewRefusal';

  /**
   * `missing`: the batch or row asked for does not exist; `refused`: it exists, and cannot be decided now (or was
   * changed meanwhile); `forbidden`: the person may not do it.
   */
  constructor(
    message: string,
    readonly kind: 'missing' | 'refused' | 'forbidden' = 'refused',
  ) {
    super(message);
  }
}

/** A finished, decided batch with its rows as its `summary.csv` holds them. */
export interface DecidedBatch {
  readonly batch: BatchRecord;
  readonly manifest: BatchManifest;
  readonly summaryKey: string;
  readonly summaryText: string;
  readonly rows: readonly StatisticsRow[];
  /** The summary's layout: its dialect and the customer's own columns, by their headers. */
  readonly layout: ResultsCsvLayout;
}

export interface DecidedRowsDependencies {
  readonly batchRecords: Pick<BatchRecords, 'getBatch'>;
  readonly objects: Pick<ObjectStore, 'readTextIfExists'>;
}

/**
 * Reads a batch's decided rows from its results (the summary holds every row's decision, whoever evaluated it):
 * refused in one line for a batch that does not exist, is not finished, or was screened without a policy.
 */
export async function readDecidedBatch(
  batchId: string,
  deps: DecidedRowsDependencies,
): Promise<DecidedBatch> {
  const { batch, manifest } = await decidedManifest(batchId, deps);
  const summaryKey = manifest.files?.summary ?? resultKeys(batchId).summary;
  const summaryText = await deps.objects.readTextIfExists(summaryKey);
  if (summaryText === null) throw new ReviewRefusal(`batch ${batchId} has no summary (${summaryKey})`);
  const rows: StatisticsRow[] = [];
  const layout = readSummaryCsv(summaryText, (row) => rows.push(row));
  return { batch, manifest, summaryKey, summaryText, rows, layout };
}

/**
 * A decided batch's rows the policy sent to a person, each once: from `review.jsonl` where finalise wrote it (a
 * fraction of the summary), else (results written before it) from the summary itself.
 */
export async function readReviewLines(
  batchId: string,
  deps: DecidedRowsDependencies & { readonly objects: Pick<ObjectStore, 'read'> },
  options: { readonly known?: BatchRecord; readonly most: number },
): Promise<{ readonly batch: BatchRecord; readonly lines: readonly ReviewLine[] }> {
  const { batch, manifest } = await decidedManifest(batchId, deps, options.known);
  if (manifest.files?.review) {
    // Written by the finaliser from this same code (an erasure drops whole lines); read only as far as is listed:
    // a batch of millions may send hundreds of thousands of rows to people.
    const lines: ReviewLine[] = [];
    for await (const chunk of jsonLines(deps.objects.read(manifest.files.review), 'review.jsonl')) {
      for (const line of chunk) lines.push(JSON.parse(line) as ReviewLine);
      if (lines.length >= options.most) break;
    }
    return { batch, lines: lines.slice(0, options.most) };
  }
  const decided = await readDecidedBatch(batchId, deps);
  const headers = decided.layout.passThroughHeaders;
  const lines = decided.rows.flatMap((row) => reviewLineOf(row, headers) ?? []);
  return { batch, lines };
}

/** A finished, decided batch and its manifest; refused in one line otherwise. */
async function decidedManifest(
  batchId: string,
  deps: DecidedRowsDependencies,
  known?: BatchRecord,
): Promise<{ readonly batch: BatchRecord; readonly manifest: BatchManifest }> {
  const batch = known ?? (await deps.batchRecords.getBatch(batchId));
  if (batch === null) throw new ReviewRefusal(`batch ${batchId} not found`, 'missing');
  if (batch.status !== 'completed')
    throw new ReviewRefusal(`batch ${batchId} is ${batch.status}: its decisions are known once it completes`);
  if (batch.policy === null)
    throw new ReviewRefusal(`batch ${batchId} was screened without a policy: its rows have no decision`);
  const manifestText = await deps.objects.readTextIfExists(resultKeys(batchId).manifest);
  if (manifestText === null)
    throw new ReviewRefusal(`batch ${batchId} has no manifest: its results are missing`);
  return { batch, manifest: JSON.parse(manifestText) as BatchManifest };
}

/** The row a duplicate repeats (`row 12` in its status detail), or null for a row that is its own. */
export function duplicateTarget(row: Pick<StatisticsRow, 'status' | 'statusDetail'>): number | null {
  if (row.status !== 'duplicate') return null;
  const match = /^row (\d+)$/.exec(row.statusDetail);
  return match ? Number(match[1]) : null;
}
