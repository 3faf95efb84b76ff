import type { Command } from 'commander';
import { formatDocument } from '../../lambdas/core/documents/index.ts';
import { type CustomerRow, DEFAULT_MAX_ROWS, IntakeTally } from '../../lambdas/core/intake/index.ts';
import { positiveInteger } from '../option-parsers.ts';
import { readCustomerListFile, rowsOf } from '../read-customer-list.ts';
import { printable } from '../terminal-text.ts';

interface CheckOptions {
  readonly json?: boolean;
  readonly maxRows: number;
  readonly show: number;
}

/** One row of `check --json`'s `rows_detail`: snake_case, the shape downstream scripts read. */
function rowDetail(row: CustomerRow): Record<string, unknown> {
  const detail: Record<string, unknown> = {
    row: row.row,
    document: row.document,
    type: row.type,
    status: row.status,
  };
  if (row.status === 'invalid') {
    detail.reason = row.reason;
    detail.input = row.input;
  }
  if (row.status === 'duplicate') detail.duplicate_of = row.duplicateOf;
  return detail;
}

function describeProblem(row: CustomerRow): string {
  const place = `row ${String(row.row).padStart(7)}`;
  if (row.status === 'duplicate' && row.document !== null && row.type !== null) {
    return `${place}  ${formatDocument(row.document, row.type).padEnd(24)} duplicate of row ${row.duplicateOf}`;
  }
  return `${place}  ${JSON.stringify(row.input.slice(0, 40)).padEnd(24)} ${row.reason}`;
}

async function check(path: string, options: CheckOptions): Promise<void> {
  const list = await readCustomerListFile(path, { maxRows: options.maxRows });
  const tally = new IntakeTally();
  const details: string[] = [];
  const problems: string[] = [];
  let problemCount = 0;
  for await (const row of rowsOf(path, list)) {
    tally.add(row);
    // Pre-serialised so a million-row report holds strings, not a million objects.
    if (options.json) details.push(JSON.stringify(rowDetail(row)));
    else if (row.status !== 'valid' && problemCount++ < options.show) problems.push(describeProblem(row));
  }
  const counts = tally.counts;

  if (options.json) {
    const head = JSON.stringify({
      rows: counts.rows,
      valid: counts.valid,
      invalid: counts.invalid,
      duplicates: counts.duplicates,
      unique: counts.unique,
      byType: counts.byType,
    });
    process.stdout.write(`${head.slice(0, -1)},"rows_detail":[`);
    const pageSize = 10_000;
    for (let start = 0; start < details.length; start += pageSize) {
      process.stdout.write((start > 0 ? ',' : '') + details.slice(start, start + pageSize).join(','));
    }
    process.stdout.write(']}\n');
    return;
  }

  const { layout } = list;
  const delimiter =
    layout.delimiter === null ? 'single column' : `delimiter ${JSON.stringify(layout.delimiter)}`;
  const header = layout.hasHeader
    ? `document column ${JSON.stringify(layout.documentColumn)}`
    : 'no header row';
  const lines = [
    `${printable(path)}: ${counts.rows} rows (${layout.encoding}, ${delimiter}, ${printable(header)})`,
    `  valid       ${String(counts.valid).padStart(9)}   CPF ${counts.byType.cpf}, CNPJ ${counts.byType.cnpj} (all rows)`,
    `  duplicates  ${String(counts.duplicates).padStart(9)}   included in valid; never queried twice`,
    `  invalid     ${String(counts.invalid).padStart(9)}`,
    `  to query    ${String(counts.unique).padStart(9)}   unique valid documents, one bureau credit each`,
  ];
  if (counts.restoredLeadingZeros > 0) {
    lines.push(
      `  ${counts.restoredLeadingZeros} documents had leading zeros restored (numeric spreadsheet column)`,
    );
  }
  if (problems.length > 0) {
    const more = problemCount > problems.length ? ` (first ${problems.length} of ${problemCount})` : '';
    lines.push('', `Problems${more}:`, ...problems.map((line) => `  ${line}`));
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description('Validate a customer list without querying anyone (spends no credits)')
    .argument('<file>', 'CSV file of CPFs/CNPJs')
    .option('--json', 'print one JSON object with counts and every row')
    .option(
      '--max-rows <n>',
      'refuse files with more data rows than this',
      positiveInteger('--max-rows'),
      DEFAULT_MAX_ROWS,
    )
    .option('--show <n>', 'how many problem rows to list', positiveInteger('--show'), 20)
    .action(async (file: string, options: CheckOptions) => check(file, options));
}
