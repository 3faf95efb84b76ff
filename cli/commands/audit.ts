import type { Command } from 'commander';
import type { AuditEntry } from '../../src/domain/audit/index.ts';
import { isBatchIdShape, MAX_BATCH_ID_LENGTH } from '../../src/domain/batch/index.ts';
import { maskDocument, parseDocument } from '../../src/domain/documents/index.ts';
import { CliError } from '../cli-error.ts';
import { addTableAction } from '../option-parsers.ts';
import type { CommandOptions } from '../option-types.ts';
import { type PipelineConnection, withConnection } from '../pipeline-connection.ts';
import { printable, printableLines } from '../terminal-text.ts';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A window end as the log's instants are written (UTC); a bare day stays a day, which `to` takes whole. */
const utc = (value: string | undefined): string | undefined =>
  value === undefined || DAY.test(value) ? value : new Date(value).toISOString();

function describeEntry(entry: AuditEntry): string {
  const where = `batch ${entry.batchId} row ${entry.row}`;
  switch (entry.kind) {
    case 'bureau_request':
      return `${entry.at}  bureau request  ${where}  bureau ${entry.bureau.toUpperCase()}, ${entry.httpStatus ?? 'no answer'}, ${entry.charge}; ${entry.purpose}; ${entry.legalBasis}`;
    case 'decision':
      return `${entry.at}  decision        ${where}  ${entry.decision}${entry.reasons.length > 0 ? ` (${entry.reasons.join(', ')})` : ''} by ${entry.policy.name} (sha256 ${entry.policy.sha256.slice(0, 12)})`;
    case 'override':
      return `${entry.at}  override        ${where}  ${entry.previous} → ${entry.decision} by ${entry.by}: ${entry.reason}`;
    case 'erasure':
      return `${entry.at}  erasure         ${where}  personal data erased by ${entry.by}: ${entry.reason}`;
    case 'access':
      return `${entry.at}  access          ${where}  everything held read by ${entry.by}: ${entry.reason}`;
  }
}

/** The documents of a batch's rows (its audit entries are kept under each document's key). */
async function documentsOf(connection: PipelineConnection, batchId: string): Promise<string[]> {
  if ((await connection.batchRecords.getBatch(batchId)) === null)
    throw new CliError(`batch ${batchId} not found (its rows name the documents its entries are kept under)`);
  const documents = new Set<string>();
  for await (const page of connection.batchRows.rows(batchId))
    for (const row of page) if (row.document !== null) documents.add(row.document);
  return [...documents];
}

async function audit(options: CommandOptions<'audit'>): Promise<void> {
  if ((options.document === undefined) === (options.batch === undefined))
    throw new CliError('give --document <cpf|cnpj> or --batch <id>, one of the two');
  let document: string | null = null;
  if (options.document !== undefined) {
    const parsed = parseDocument(options.document);
    if (!parsed.valid) throw new CliError(`--document: ${parsed.reason}`);
    document = parsed.document;
  }
  if (options.batch !== undefined && !isBatchIdShape(options.batch))
    throw new CliError(
      `--batch: not a batch id: ${printable(options.batch, { maxLength: MAX_BATCH_ID_LENGTH })}`,
    );
  const window = { from: utc(options.from), to: utc(options.to) };
  await withConnection(options, async (connection) => {
    const { log, documentKeys } = connection.audit;
    const entries =
      document !== null
        ? await log.read({ documentKey: await documentKeys.keyOf(document), ...window })
        : await log.read({
            batchId: options.batch as string,
            documentKeys: await Promise.all(
              (await documentsOf(connection, options.batch as string)).map((each) =>
                documentKeys.keyOf(each),
              ),
            ),
            ...window,
          });
    if (options.json) {
      process.stdout.write(`${printableLines(JSON.stringify({ entries }, null, 2))}\n`);
      return;
    }
    const subject = document !== null ? `document ${maskDocument(document)}` : `batch ${options.batch}`;
    const requests = entries.filter((entry) => entry.kind === 'bureau_request').length;
    // Each entry is escaped as one line: a line break in a reason stored before they were refused must not print
    // as a second entry.
    const lines = [
      `${entries.length} audit ${entries.length === 1 ? 'entry' : 'entries'} for ${subject} in ${connection.where}: ${requests} bureau ${requests === 1 ? 'request' : 'requests'}`,
      ...entries.map(describeEntry),
    ];
    process.stdout.write(`${lines.map((line) => printable(line)).join('\n')}\n`);
  });
}

export function registerAuditCommand(program: Command): void {
  addTableAction(
    program
      .command('audit')
      .description(
        'Read the audit log: every bureau request, decision and override about a document or in a batch (documents kept only as a keyed hash)',
      ),
    'audit',
    async (options) => audit(options),
  );
}
