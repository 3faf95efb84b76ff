import { resolve } from 'node:path';
import type { Command } from 'commander';
import { exportSubject } from '../../../src/application/data-subject/subject-export.ts';
import { maskDocument, parseDocument } from '../../../src/domain/documents/index.ts';
import { fileErrorReason, writePrivateFile } from '../../local/private-files.ts';
import { CliError } from '../cli-error.ts';
import { addTableOptions } from '../option-parsers.ts';
import { type TargetOptions, withConnection } from '../pipeline-connection.ts';
import { printable, printableLines } from '../terminal-text.ts';

interface SubjectOptions extends TargetOptions {
  readonly export: string;
}

const counted = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** A data subject's access request (LGPD art. 18, II): everything held about one document, in one private file. */
async function subject(documentArgument: string, options: SubjectOptions): Promise<void> {
  const parsed = parseDocument(documentArgument);
  if (!parsed.valid) throw new CliError(`not a CPF or CNPJ: ${parsed.reason}`);
  const file = resolve(options.export);
  await withConnection(options, async (connection) => {
    const held = await exportSubject(parsed.document, connection);
    try {
      await writePrivateFile(file, `${JSON.stringify(held, null, 2)}\n`);
    } catch (error) {
      throw new CliError(`--export ${printable(file)}: ${fileErrorReason(error)}`);
    }
    const rows = held.batches.reduce((sum, batch) => sum + batch.rows.length, 0);
    process.stdout.write(
      `${printableLines(
        `${printable(file)}: ${maskDocument(parsed.document)} in ${counted(held.batches.length, 'batch', 'batches')} (${counted(rows, 'row', 'rows')}), ${counted(held.reports.length, 'stored report', 'stored reports')}, ${counted(held.rawResponses.length, 'raw answer', 'raw answers')}, ${counted(held.audit.length, 'audit entry', 'audit entries')}`,
      )}\n`,
    );
  });
}

export function registerSubjectCommand(program: Command): void {
  addTableOptions(
    program
      .command('subject')
      .description(
        "A data subject's access request: writes everything held about a document (batches, rows, decisions, overrides, reports, raw answers' locations, audit entries) to one private JSON file",
      )
      .argument('<cpf|cnpj>', 'the document'),
    'subject',
  ).action(async (document: string, options: SubjectOptions) => subject(document, options));
}
