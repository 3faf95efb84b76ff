/** The ingest's first pass: the whole file must be usable, and its hash and layout are kept, before anything is queued. */

import { createHash } from 'node:crypto';
import type { FileFailure } from '../../domain/batch/index.ts';
import { CustomerListError, openCustomerList } from '../../domain/intake/index.ts';
import type { BatchRecords, ObjectStore } from '../../domain/ports/index.ts';

/** Passes a stream's chunks on, feeding each to `hash`. */
export async function* hashing(
  source: AsyncIterable<Uint8Array>,
  hash: ReturnType<typeof createHash>,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    hash.update(chunk);
    yield chunk;
  }
}

/** What the first pass found in a usable file. */
export interface FileCheck {
  readonly sha256: string;
  readonly validRows: number;
}

/** Pass 1: reads the whole file and records its hash and layout; refuses the file if any of it is unusable. */
export async function checkWholeFile(
  key: string,
  batchId: string,
  deps: {
    readonly objects: ObjectStore;
    readonly batchRecords: BatchRecords;
    readonly settings: { readonly maxRows: number };
  },
): Promise<FileCheck | { readonly failure: FileFailure }> {
  const hash = createHash('sha256');
  let validRows = 0;
  let layout: Awaited<ReturnType<typeof openCustomerList>>['layout'];
  try {
    // Validation only: duplicates are found (and counted) by the second pass, so this one keeps no table of them.
    const list = await openCustomerList(hashing(deps.objects.read(key), hash), {
      maxRows: deps.settings.maxRows,
      detectDuplicates: false,
    });
    // Read to the end: the file is usable only if every row parses within the limits.
    for await (const row of list.rows) if (row.status !== 'invalid') validRows++;
    layout = list.layout;
  } catch (error) {
    if (!(error instanceof CustomerListError)) throw error;
    return { failure: { code: error.code, message: error.message } };
  }
  const sha256 = hash.digest('hex');
  await deps.batchRecords.recordSourceCheck(batchId, sha256, {
    documentColumns: layout.documentColumns.map((column) => column.header),
    passThroughColumns: layout.passThroughColumns,
    encoding: layout.encoding,
    delimiter: layout.delimiter,
    hasHeader: layout.hasHeader,
  });
  return { sha256, validRows };
}
