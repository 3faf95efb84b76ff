import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  ErasureRefused,
  eraseSubject,
  type SubjectErasure,
} from '../../src/application/data-subject/subject-erasure.ts';
import { exportSubject } from '../../src/application/data-subject/subject-export.ts';
import { SubjectObjects } from '../../src/application/data-subject/subject-objects.ts';
import { S3_LAYOUT } from '../../src/contract/index.ts';
import { maskDocument, parseDocument } from '../../src/domain/documents/index.ts';
import { CliError } from '../cli-error.ts';
import { FolderObjects } from '../local/folder-objects.ts';
import { checkNamedFile, type NamedFile, writeNamedFile } from '../named-file.ts';
import { addTableAction } from '../option-parsers.ts';
import type { CommandOptions } from '../option-types.ts';
import { type PipelineConnection, withConnection } from '../pipeline-connection.ts';
import { printable, printableLines } from '../terminal-text.ts';

type SubjectOptions = CommandOptions<'subject'>;

/** Where `screen`, `rescreen` and `submit` download results unless told otherwise. */
const DEFAULT_RESULTS_FOLDER = 'out';

const counted = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/**
 * A data subject's access request (LGPD art. 18, II): everything held about one document, in one private file, which
 * is checked before the state or the stack is opened.
 */
async function exportHeld(document: string, file: NamedFile, options: SubjectOptions): Promise<void> {
  await checkNamedFile(file);
  await withConnection(options, async (connection) => {
    // Recorded under --by and --reason when given (the command line has no signed-in person).
    const held = await exportSubject(
      document,
      connection,
      options.by && options.reason ? { by: options.by, reason: options.reason } : undefined,
    );
    await writeNamedFile(file, `${JSON.stringify(held, null, 2)}\n`);
    const rows = held.batches.reduce((sum, batch) => sum + batch.rows.length, 0);
    process.stdout.write(
      `${printableLines(
        `${printable(file.path)}: ${maskDocument(document)} in ${counted(held.batches.length, 'batch', 'batches')} (${counted(rows, 'row', 'rows')}), ${counted(held.reports.length, 'stored report', 'stored reports')}, ${counted(held.rawResponses.length, 'raw answer', 'raw answers')}, ${counted(held.audit.length, 'audit entry', 'audit entries')}`,
      )}\n`,
    );
  });
}

/** The batch a results folder's manifest names; null for a file that is not a manifest. */
function batchIdOf(manifest: string): unknown {
  try {
    return (JSON.parse(manifest) as { batchId?: unknown } | null)?.batchId ?? null;
  } catch {
    return null;
  }
}

/**
 * The results folders downloaded for the erased batches, erased the same way as the bucket's results: `folder` is
 * one batch's folder (`screen --out results`: its manifest names the batch) or holds them by batch id (`out/`).
 */
async function eraseDownloadedResults(
  document: string,
  erasure: SubjectErasure,
  folder: string,
): Promise<SubjectObjects['changes']> {
  const changes: SubjectObjects['changes'] = { rewritten: [], removed: [] };
  const manifest = await readFile(join(folder, 'manifest.json'), 'utf8').catch(() => null);
  const folderBatch = manifest === null ? null : batchIdOf(manifest);
  for (const { batchId } of erasure.batches) {
    const batchFolder = folderBatch === batchId ? folder : join(folder, batchId);
    if (!(await stat(batchFolder).catch(() => null))?.isDirectory()) continue;
    const prefix = `${S3_LAYOUT.results}${batchId}/`;
    const objects = new SubjectObjects(new FolderObjects(batchFolder, prefix), document, erasure.erasedAt);
    await objects.eraseFromResults(batchId);
    const local = (key: string) => join(batchFolder, key.slice(prefix.length));
    changes.rewritten.push(...objects.changes.rewritten.map(local));
    changes.removed.push(...objects.changes.removed.map(local));
  }
  return changes;
}

function describeErasure(
  document: string,
  where: string,
  erasure: SubjectErasure,
  downloaded: SubjectObjects['changes'],
): string {
  const rows = erasure.batches.reduce((sum, batch) => sum + batch.rows.length, 0);
  const lines = [
    `erased ${maskDocument(document)} from ${where} at ${erasure.erasedAt}`,
    `  rows      ${counted(rows, 'row', 'rows')} in ${counted(erasure.batches.length, 'batch', 'batches')} emptied (document, input, customer columns, report, decision); states and charges kept`,
    ...erasure.batches.map((batch) => `            batch ${batch.batchId}: rows ${batch.rows.join(', ')}`),
    `  table     ${counted(erasure.storedReports, 'stored report', 'stored reports')}, ${counted(erasure.purchases, 'purchase', 'purchases')}, ${counted(erasure.overrides, 'override', 'overrides')} deleted (the next screen buys it again)`,
    `  bucket    ${counted(erasure.objects.rewritten.length, 'object', 'objects')} rewritten without it, ${counted(erasure.objects.removed.length, 'object', 'objects')} removed`,
    ...erasure.objects.rewritten.map((key) => `            rewritten ${key}`),
    ...erasure.objects.removed.map((key) => `            removed   ${key}`),
    ...downloaded.rewritten.map((path) => `  folder    rewritten ${path}`),
    ...downloaded.removed.map((path) => `  folder    removed   ${path}`),
    `  audit     ${counted(erasure.auditEntriesKept, 'entry', 'entries')} kept under its keyed hash (the record of its queries and of this erasure)`,
  ];
  return printableLines(lines.join('\n'));
}

/** A data subject's erasure request (LGPD art. 18, VI). */
async function erase(document: string, options: SubjectOptions): Promise<void> {
  const folder = resolve(options.out ?? DEFAULT_RESULTS_FOLDER);
  await withConnection(options, async (connection: PipelineConnection) => {
    let erasure: SubjectErasure;
    try {
      erasure = await eraseSubject(
        { document, by: options.by as string, reason: options.reason as string },
        {
          subjectErasure: connection.subjectErasure,
          batchRecords: connection.batchRecords,
          objects: connection.objects,
          audit: connection.audit,
        },
      );
    } catch (error) {
      if (error instanceof ErasureRefused) throw new CliError(error.message);
      throw error;
    }
    const downloaded = await eraseDownloadedResults(document, erasure, folder);
    // Locally, the deleted items must not linger in DynamoDB Local's file either (rewritten once it has stopped).
    connection.local?.stack.compactDatabaseAtStop();
    if (options.json) process.stdout.write(`${JSON.stringify({ ...erasure, downloaded }, null, 2)}\n`);
    else process.stdout.write(`${describeErasure(document, connection.where, erasure, downloaded)}\n`);
  });
}

async function subject(documentArgument: string, options: SubjectOptions): Promise<void> {
  const parsed = parseDocument(documentArgument);
  if (!parsed.valid) throw new CliError(`not a CPF or CNPJ: ${parsed.reason}`);
  if (options.erase) return erase(parsed.document, options);
  if (options.export === undefined)
    throw new CliError('give --export <file> (what is held about the document) or --erase (erase it)');
  return exportHeld(
    parsed.document,
    { option: '--export', path: resolve(options.export), force: options.force === true },
    options,
  );
}

export function registerSubjectCommand(program: Command): void {
  addTableAction(
    program
      .command('subject')
      .description(
        "A data subject's request: --export writes everything held about a document (batches, rows, decisions, overrides, reports, raw answers' locations, audit entries) to one private JSON file; --erase erases it",
      )
      .argument('<cpf|cnpj>', 'the document'),
    'subject',
    async (options, document: string) => subject(document, options),
  );
}
