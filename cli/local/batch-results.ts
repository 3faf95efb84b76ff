import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BatchManifest } from '../../src/contract/index.ts';
import { resultKeys } from '../../src/contract/index.ts';
import type { BatchRecord } from '../../src/domain/batch/index.ts';
import type { BatchStore, ObjectStore } from '../../src/domain/ports/index.ts';
import { makePrivateDirectory, writePrivateFile } from './private-files.ts';

/** A batch's manifest, or null while it has none (results are complete only once it exists). */
export async function readManifest(objects: ObjectStore, batchId: string): Promise<BatchManifest | null> {
  const text = await objects.readTextIfExists(resultKeys(batchId).manifest);
  return text === null ? null : (JSON.parse(text) as BatchManifest);
}

/**
 * Copies a finished batch's result files (summary, reports, changes for a re-screen, the HTML report, and the
 * manifest) from the pipeline bucket into `directory`, the same from the local services or a deployed one. They hold
 * personal data: the directories created are 0700 and the files 0600.
 */
export async function downloadBatchResults(
  objects: ObjectStore,
  batchId: string,
  directory: string,
): Promise<BatchManifest> {
  const manifest = await readManifest(objects, batchId);
  if (manifest === null) throw new Error(`batch ${batchId} has no results yet`);
  await makePrivateDirectory(directory);
  const files = manifest.files;
  const keys = [files?.summary, files?.reports, files?.changes, files?.report, resultKeys(batchId).manifest];
  for (const key of keys) {
    if (key === undefined) continue;
    const text = await objects.readTextIfExists(key);
    if (text !== null) await writePrivateFile(join(directory, basename(key)), text);
  }
  return manifest;
}

/** How far a batch has come: rows with a final status out of the file's rows. */
export interface BatchProgress {
  readonly batchId: string;
  readonly status: BatchRecord['status'];
  /** Rows with a final status. */
  readonly settledRows: number;
  /** Data rows of the file (known once ingest has read it). */
  readonly totalRows: number | null;
}

/** How far a batch record says it has come. */
export function progressOf(batch: BatchRecord): BatchProgress {
  return {
    batchId: batch.batchId,
    status: batch.status,
    settledRows: batch.settled + batch.invalid + batch.duplicates,
    totalRows: batch.toScreen !== null ? batch.rows : null,
  };
}

export async function batchProgress(store: BatchStore, batchId: string): Promise<BatchProgress> {
  const batch = await store.getBatch(batchId);
  if (!batch) throw new Error(`batch ${batchId} does not exist`);
  return progressOf(batch);
}

/** Resolves when the batch is completed (or failed as a file), reporting progress on the way. */
export async function waitForBatch(
  store: BatchStore,
  batchId: string,
  options: { onProgress?: (progress: BatchProgress) => void; signal?: AbortSignal; pollMs?: number } = {},
): Promise<BatchProgress> {
  for (;;) {
    options.signal?.throwIfAborted();
    const progress = await batchProgress(store, batchId);
    options.onProgress?.(progress);
    if (progress.status === 'completed' || progress.status === 'failed') return progress;
    await sleep(options.pollMs ?? 200);
  }
}
