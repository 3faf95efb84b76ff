import { answerKey, S3_LAYOUT } from '../../contract/index.ts';
import { type AuditEntry, auditTextProblem } from '../../domain/audit/index.ts';
import { type BatchRecord, type RowRecord, SETTLED_STATES } from '../../domain/batch/index.ts';
import type { AuditLog, BatchRecords, DocumentKeys, SubjectErasureStore } from '../../domain/ports/index.ts';
import { type ErasableObjects, type ObjectChanges, SubjectObjects } from './subject-objects.ts';

/** Who asks for the erasure and why: both are kept in the audit log. */
export interface ErasureRequest {
  readonly document: string;
  readonly by: string;
  readonly reason: string;
}

/** What an erasure removed (LGPD art. 18, VI), as the person who carried it out is told. */
export interface SubjectErasure {
  readonly erasedAt: string;
  /** The batches the document was in, with the rows erased in each. */
  readonly batches: readonly { readonly batchId: string; readonly rows: readonly number[] }[];
  readonly storedReports: number;
  readonly purchases: number;
  readonly overrides: number;
  readonly objects: ObjectChanges;
  /** Audit entries about the document, kept: the record that it was queried and decided (by its keyed hash). */
  readonly auditEntriesKept: number;
}

export interface SubjectErasureDependencies {
  readonly subjectErasure: SubjectErasureStore;
  readonly batchRecords: Pick<BatchRecords, 'getBatch'>;
  readonly objects: ErasableObjects;
  readonly audit: { readonly log: AuditLog; readonly documentKeys: DocumentKeys };
  readonly now?: () => Date;
}

/** An erasure that cannot be carried out now, and why, in one line; nothing was changed. */
export class ErasureRefused extends Error {
  override readonly name = 'ErasureRefused';
}

/** Batches whose results are final: nothing of the pipeline writes the document back into them. */
const FINISHED: readonly BatchRecord['status'][] = ['completed', 'failed'];

/**
 * Erases what the pipeline holds about a document: its rows' personal data in every batch (the rows stay, so each
 * batch still adds up), its stored reports (so the next screen buys it again), its purchases, the overrides of its
 * rows, its raw answers, its records in customer lists and results files. The audit log keeps its entries, which
 * name it only by its keyed hash, and gains one erasure entry per row.
 *
 * Objects go first and rows last: the rows are how an erasure finds a document, so one interrupted is finished by
 * asking again. A batch still running is refused before anything changes: its workers would write the document back.
 *
 * @throws ErasureRefused while a batch that holds the document is not finished, or when who or why holds a line
 *   break or a control character (the audit entry keeps each on one line), before anything changes
 */
export async function eraseSubject(
  request: ErasureRequest,
  deps: SubjectErasureDependencies,
): Promise<SubjectErasure> {
  const { document } = request;
  const problem = auditTextProblem('--by', request.by) ?? auditTextProblem('--reason', request.reason);
  if (problem !== null) throw new ErasureRefused(problem);
  const erasedAt = (deps.now ?? (() => new Date()))().toISOString();
  const rows = await deps.subjectErasure.rowsHolding(document);
  const batches = await batchesOf(rows, deps);
  const rawKeys = new Set((await deps.subjectErasure.reportsOf(document)).map((report) => report.rawKey));
  for (const row of rows) {
    const bureau = row.reportKey?.bureau ?? batches.get(row.batchId)?.bureau;
    if (bureau !== undefined) rawKeys.add(answerKey(bureau, row.batchId, row.row));
  }

  // In the order the batches were created (a batch whose record expired, last).
  const batchIds = [...new Set(rows.map((row) => row.batchId))].sort((a, b) =>
    (batches.get(a)?.createdAt ?? '~').localeCompare(batches.get(b)?.createdAt ?? '~'),
  );
  const objects = new SubjectObjects(deps.objects, document, erasedAt);
  // Every list under the two list prefixes is searched (a refused file has no rows to find it by); a batch's
  // source elsewhere is taken on its own, and each list is read once.
  const listPrefixes = [S3_LAYOUT.incoming, S3_LAYOUT.portfolios];
  for (const batch of batches.values())
    if (!listPrefixes.some((prefix) => batch.sourceKey.startsWith(prefix)))
      await objects.eraseFromList(batch.sourceKey).catch(ignoreMissing);
  for (const prefix of listPrefixes) await objects.eraseFromLists(prefix);
  for (const batchId of batchIds) {
    await objects.eraseFromResults(batchId);
    await objects.removeMentionsUnder(`${S3_LAYOUT.work}${batchId}/`);
  }
  await objects.removeAll(rawKeys);

  const storedReports = await deps.subjectErasure.eraseReports(document);
  const purchases = await deps.subjectErasure.erasePurchases(document);
  let overrides = 0;
  for (const row of rows) {
    overrides += await deps.subjectErasure.eraseOverrides(row.batchId, row.row);
    if (!(await deps.subjectErasure.eraseRow(row.batchId, row.row, erasedAt)))
      throw new ErasureRefused(
        `row ${row.row} of batch ${row.batchId} is being screened again: erase once it is settled`,
      );
  }
  const documentKey = await deps.audit.documentKeys.keyOf(document);
  await deps.audit.log.append(
    rows.map(
      (row): AuditEntry => ({
        kind: 'erasure',
        at: erasedAt,
        batchId: row.batchId,
        row: row.row,
        documentKey,
        by: request.by,
        reason: request.reason,
      }),
    ),
  );
  const auditEntriesKept = (await deps.audit.log.read({ documentKey })).length;
  return {
    erasedAt,
    batches: batchIds.map((batchId) => ({
      batchId,
      rows: rows.filter((row) => row.batchId === batchId).map((row) => row.row),
    })),
    storedReports,
    purchases,
    overrides,
    objects: objects.changes,
    auditEntriesKept,
  };
}

/**
 * The batches of the rows (a batch whose record expired before its rows has none), after checking that each row is
 * settled and each batch finished: otherwise a worker or the finaliser could write the document back.
 */
async function batchesOf(
  rows: readonly RowRecord[],
  deps: Pick<SubjectErasureDependencies, 'batchRecords'>,
): Promise<Map<string, BatchRecord>> {
  const batches = new Map<string, BatchRecord>();
  const refuse = (batchId: string, state: string) =>
    new ErasureRefused(
      `batch ${batchId} holds the document and is ${state.replaceAll('_', ' ')}: wait for it to end (or cancel it), then erase again; nothing was erased`,
    );
  for (const row of rows) {
    if (!SETTLED_STATES.includes(row.state)) throw refuse(row.batchId, `screening it (${row.state})`);
    if (batches.has(row.batchId)) continue;
    const batch = await deps.batchRecords.getBatch(row.batchId);
    if (batch === null) continue;
    if (!FINISHED.includes(batch.status)) throw refuse(batch.batchId, batch.status);
    batches.set(row.batchId, batch);
  }
  return batches;
}

/** A batch's list may be gone already (expired, or removed by an earlier erasure that stopped half-way). */
function ignoreMissing(error: unknown): void {
  const name = (error as { name?: string } | undefined)?.name;
  if (name !== 'NoSuchKey' && !(error instanceof Error && error.message.startsWith('no object'))) throw error;
}
