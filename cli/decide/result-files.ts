/**
 * Where `decide` reads a batch's results from, as streams: a results folder (what `screen` downloads), or the
 * pipeline bucket (the local state's, or a stack's with `--stack`). Nothing here calls the bureau: the local state
 * is opened without workers, as `report` opens it.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { RESULT_FILE_NAMES, type ResultFiles } from '../../src/application/redecide/result-files.ts';
import { type BatchManifest, resultKeys } from '../../src/contract/index.ts';
import { isBatchIdShape, MAX_BATCH_ID_LENGTH } from '../../src/domain/batch/index.ts';
import { CliError } from '../cli-error.ts';
import type { TargetOptions } from '../pipeline-connection.ts';
import { resultsDirectory } from '../results-directory.ts';
import { printable } from '../terminal-text.ts';

/**
 * Reads of 64 KiB. Bigger reads were slower (1 MiB: about a third more time): every line read is a slice of its
 * chunk's text and keeps it alive, so big chunks outlive the young generation and cost the garbage collector.
 */
const READ_CHUNK_BYTES = 64 * 1024;

/**
 * A local file's chunks, read on the main thread: `decide` has nothing else to do while it waits for the next
 * chunk, and on one core each read handed to libuv's thread pool costs two switches of thread. Each chunk is a fresh
 * buffer, as the text decoded from it may still be referenced.
 */
async function* fileChunks(path: string): AsyncGenerator<Uint8Array> {
  const descriptor = openSync(path, 'r');
  try {
    for (;;) {
      const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
      const read = readSync(descriptor, chunk, 0, READ_CHUNK_BYTES, null);
      if (read === 0) return;
      yield chunk.subarray(0, read);
    }
  } finally {
    closeSync(descriptor);
  }
}

function parseManifest(text: string, where: string): BatchManifest {
  try {
    const manifest = JSON.parse(text) as BatchManifest;
    if (manifest?.manifestVersion !== 1 || typeof manifest.batchId !== 'string')
      throw new Error('not a manifest');
    return manifest;
  } catch {
    throw new CliError(`${where}: not a batch manifest`);
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** A results folder: `summary.csv` and `reports.jsonl`, and `manifest.json` when it has one. */
async function folderFiles(directory: string): Promise<ResultFiles> {
  const where = printable(directory);
  for (const name of Object.values(RESULT_FILE_NAMES)) {
    if (!(await isFile(join(directory, name))))
      throw new CliError(`${where}: no ${name} here (not a results folder)`);
  }
  const manifestPath = join(directory, 'manifest.json');
  const manifest = (await isFile(manifestPath))
    ? parseManifest(await readFile(manifestPath, 'utf8'), printable(manifestPath))
    : null;
  return {
    where,
    manifest,
    defaultOut: directory,
    open: (file) => fileChunks(join(directory, RESULT_FILE_NAMES[file])),
  };
}

/** Opens a batch's results in the bucket the options name and runs `body` while the connection is open. */
async function withBucketFiles<T>(
  batchId: string,
  options: TargetOptions & { readonly out?: string },
  body: (files: ResultFiles) => Promise<T>,
): Promise<T> {
  // Opening a local state that is not there would create it: a typo is said, not made into a directory.
  if (!options.stack && !(await isDirectory(options.state)))
    throw new CliError(
      `${printable(batchId)}: no such results folder, and no local state ${printable(options.state)} to find a batch of that id in`,
    );
  // Imported here: the connection brings the AWS SDK and the local services (about 0.7 s and 60 MB at start), which a
  // results folder does not need.
  const { withConnection } = await import('../pipeline-connection.ts');
  return withConnection(options, async (connection) => {
    const keys = resultKeys(batchId);
    const where = `batch ${batchId} in ${connection.where}`;
    const text = await connection.objects.readTextIfExists(keys.manifest);
    if (text === null) throw new CliError(`batch ${batchId} has no results in ${connection.where}`);
    const manifest = parseManifest(text, keys.manifest);
    const files = manifest.files;
    if (files === null) throw new CliError(`${where}: the batch has no result files (${manifest.status})`);
    for (const key of [files.summary, files.reports]) {
      if (!(await connection.objects.exists(key))) throw new CliError(`${where}: ${key} is missing`);
    }
    const keyOf = { summary: files.summary, reports: files.reports };
    return body({
      where,
      manifest,
      defaultOut: resultsDirectory(options.out, batchId),
      open: (file) => connection.objects.read(keyOf[file]),
    });
  });
}

/**
 * Runs `body` over the results `target` names: a folder when it is one (and no `--stack` is given), else a batch id
 * in the local state or the stack. A target that is neither is refused in one line before anything is opened.
 */
export async function withResultFiles<T>(
  target: string,
  options: TargetOptions & { readonly out?: string },
  body: (files: ResultFiles) => Promise<T>,
): Promise<T> {
  if (!options.stack && (await isDirectory(target))) return body(await folderFiles(resolve(target)));
  if (!isBatchIdShape(target)) {
    const shown = printable(target, { maxLength: 200 });
    throw new CliError(
      options.stack
        ? `not a batch id: ${printable(target, { maxLength: MAX_BATCH_ID_LENGTH })}`
        : `${shown}: no such results folder`,
    );
  }
  return withBucketFiles(target, options, body);
}
