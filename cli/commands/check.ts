import type { Command } from 'commander';
import { freshReports } from '../../src/application/reuse/fresh-reports.ts';
import { DEFAULT_SETTINGS, longestBatchSeconds } from '../../src/contract/index.ts';
import { formatDocument, maskDigits, maskDocument } from '../../src/domain/documents/index.ts';
import {
  type CustomerListLayout,
  type CustomerRow,
  type DocumentColumnUse,
  IntakeTally,
} from '../../src/domain/intake/index.ts';
import {
  describeOverrun,
  formatBrl,
  formatDuration,
  overrunOf,
  type Quote,
  type QuoteOverrun,
  quoteOf,
} from '../../src/domain/spend/index.ts';
import { givenPrice, pricesOf } from '../bureau-prices.ts';
import { DEFAULT_STATE_DIRECTORY } from '../local/local-state.ts';
import { addTableAction } from '../option-parsers.ts';
import type { CommandOptions } from '../option-types.ts';
import { type PolicyOption, readPolicyOption } from '../policy-option.ts';
import { readCustomerListFile, rowsOf } from '../read-customer-list.ts';
import { printable } from '../terminal-text.ts';

type CheckOptions = CommandOptions<'check'>;

/**
 * The quote of a list: with `--state` or `--stack`, the stored reports there that are still fresh count as
 * reusable (the same rule ingest applies, so the run that follows buys `to_buy`); without, reuse is unknown.
 */
async function quoteList(
  unique: number,
  documents: readonly string[],
  options: CheckOptions,
): Promise<Quote> {
  const bureau = options.bureau;
  const freshnessHours = options.freshnessHours ?? DEFAULT_SETTINGS.freshnessHours;
  let reusable: number | null = null;
  if (options.state !== undefined || options.stack !== undefined) {
    const target = { stack: options.stack, state: options.state ?? DEFAULT_STATE_DIRECTORY };
    // Loaded only here: the AWS SDK and the local services cost a check without --state or --stack most of its start.
    const { withConnection } = await import('../pipeline-connection.ts');
    reusable = await withConnection(target, async (connection) => {
      const request = { bureau, documents, freshnessHours, nowMs: Date.now() };
      return (await freshReports(connection.store, request)).size;
    });
  }
  const price = pricesOf(options)[bureau];
  return quoteOf({
    bureau,
    unique,
    reusable,
    pricePerQuery: price,
    ratePerSecond: options.rateLimit ?? DEFAULT_SETTINGS.bureaus[bureau].rateLimitPerSecond,
  });
}

/** The rate `check` quotes at: `--rate-limit`, else the bureau's default. */
const rateOf = (quote: Quote, options: CheckOptions): number =>
  options.rateLimit ?? DEFAULT_SETTINGS.bureaus[quote.bureau].rateLimitPerSecond;

/** Whether the quoted queries outlast what the pipeline keeps waiting for them, at the default retention. */
const overrunOfList = (quote: Quote, options: CheckOptions): QuoteOverrun | null =>
  overrunOf(quote, rateOf(quote, options), longestBatchSeconds(DEFAULT_SETTINGS));

function quoteLines(quote: Quote, options: CheckOptions): string[] {
  const rate = rateOf(quote, options);
  const freshness = options.freshnessHours ?? DEFAULT_SETTINGS.freshnessHours;
  const configured = givenPrice(options, quote.bureau) !== undefined;
  const line = (label: string, value: string, note: string) =>
    `  ${label.padEnd(12)}${value.padStart(13)}   ${note}`;
  return [
    `Quote (bureau ${quote.bureau.toUpperCase()}):`,
    quote.reusable === null
      ? line(
          'reusable',
          'unknown',
          `give --state or --stack to count stored reports younger than ${freshness} h`,
        )
      : line(
          'reusable',
          String(quote.reusable),
          `stored reports younger than ${freshness} h, not bought again`,
        ),
    line(
      'to buy',
      String(quote.to_buy),
      `at ${formatBrl(quote.price_per_query)} per query${configured ? '' : ` (list price; set --price-${quote.bureau})`}`,
    ),
    line('cost', formatBrl(quote.estimated_cost), quote.reusable === null ? 'at most' : 'estimated'),
    line('time', formatDuration(quote.estimated_seconds), `at ${rate} queries per second`),
    ...[overrunOfList(quote, options)].flatMap((overrun) =>
      overrun === null ? [] : [`  ${describeOverrun(overrun)}`],
    ),
  ];
}

/** How a row's document and cell are shown: whole with `--reveal`, masked otherwise (LGPD: a terminal is seen). */
interface Shown {
  document(document: string): string;
  input(input: string): string;
}

const REVEALED: Shown = { document: (document) => document, input: (input) => input };
const MASKED: Shown = { document: maskDocument, input: maskDigits };

/** One row of `check --json`'s `rows_detail`: snake_case, the shape downstream scripts read. */
function rowDetail(row: CustomerRow, shown: Shown): Record<string, unknown> {
  const detail: Record<string, unknown> = {
    row: row.row,
    document: row.document === null ? null : shown.document(row.document),
    type: row.type,
    status: row.status,
  };
  if (row.status === 'invalid') {
    detail.reason = row.reason;
    detail.input = shown.input(row.input);
  }
  if (row.status === 'duplicate') detail.duplicate_of = row.duplicateOf;
  return detail;
}

function describeProblem(row: CustomerRow, shown: Shown): string {
  const place = `row ${String(row.row).padStart(7)}`;
  if (row.status === 'duplicate' && row.document !== null && row.type !== null) {
    const document = shown === REVEALED ? formatDocument(row.document, row.type) : maskDocument(row.document);
    return `${place}  ${document.padEnd(24)} duplicate of row ${row.duplicateOf}`;
  }
  return `${place}  ${JSON.stringify(shown.input(row.input.slice(0, 40))).padEnd(24)} ${row.reason}`;
}

// A column named for one type reads short numbers as that type (see parseDocument): worth saying.
const HOLDS_LABEL: Readonly<Record<DocumentColumnUse['holds'], string>> = {
  cpf: ' (CPFs)',
  cnpj: ' (CNPJs)',
  either: '',
};

/** Which columns the documents were read from, for the first line of the text report. */
function describeColumns(layout: CustomerListLayout): string {
  if (!layout.hasHeader)
    return layout.documentColumns[0]?.seen === 'cnpj' ? 'no header row, CNPJs' : 'no header row';
  const columns = layout.documentColumns.map(
    (column) =>
      `${JSON.stringify(column.header)}${HOLDS_LABEL[column.holds]}` +
      (column.seen === 'cnpj' ? ' (its values: CNPJs)' : ''),
  );
  return columns.length === 1
    ? `document column ${columns[0]}`
    : `document columns ${columns.join(' and ')}, one filled per row`;
}

async function check(path: string, options: CheckOptions): Promise<void> {
  const policy = await readPolicyOption(options.policy);
  const list = await readCustomerListFile(path, { maxRows: options.maxRows });
  const tally = new IntakeTally();
  const shown = options.reveal ? REVEALED : MASKED;
  const details: string[] = [];
  const problems: string[] = [];
  let problemCount = 0;
  // The unique documents are kept only to look them up in a state's stored reports.
  const documents: string[] = [];
  for await (const row of rowsOf(path, list)) {
    tally.add(row);
    if ((options.state ?? options.stack) !== undefined && row.status === 'valid' && row.document !== null)
      documents.push(row.document);
    // Pre-serialised so a million-row report holds strings, not a million objects.
    if (options.json) details.push(JSON.stringify(rowDetail(row, shown)));
    else if (row.status !== 'valid' && problemCount++ < options.show)
      problems.push(describeProblem(row, shown));
  }
  const counts = tally.counts;
  const quote = await quoteList(counts.unique, documents, options);

  const { layout } = list;
  if (options.json) {
    const head = JSON.stringify({
      encoding: layout.encoding,
      documentColumns: layout.documentColumns,
      rows: counts.rows,
      valid: counts.valid,
      invalid: counts.invalid,
      duplicates: counts.duplicates,
      unique: counts.unique,
      byType: counts.byType,
      quote,
      overrun: overrunOfList(quote, options),
    });
    process.stdout.write(`${head.slice(0, -1)},"rows_detail":[`);
    const pageSize = 10_000;
    for (let start = 0; start < details.length; start += pageSize) {
      process.stdout.write((start > 0 ? ',' : '') + details.slice(start, start + pageSize).join(','));
    }
    process.stdout.write(']}\n');
    return;
  }

  const delimiter =
    layout.delimiter === null ? 'single column' : `delimiter ${JSON.stringify(layout.delimiter)}`;
  const lines = [
    `${printable(path)}: ${counts.rows} rows (${layout.encoding}, ${delimiter}, ${printable(describeColumns(layout))})`,
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
  lines.push('', ...quoteLines(quote, options));
  if (policy !== null) lines.push('', ...policyLines(policy, layout));
  if (problems.length > 0) {
    const more = problemCount > problems.length ? ` (first ${problems.length} of ${problemCount})` : '';
    lines.push('', `Problems${more}:`, ...problems.map((line) => `  ${line}`));
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** What `check --policy` says: the policy compiles, and which of the customer columns it reads the list lacks. */
function policyLines(policy: PolicyOption, layout: CustomerListLayout): string[] {
  const present = new Set(layout.passThroughColumns);
  const missing = policy.policy.customerColumnsRead.filter((column) => !present.has(column));
  return [
    `policy ${printable(policy.name)}: compiles (sha256 ${policy.policy.sha256.slice(0, 12)}…)`,
    ...missing.map(
      (column) =>
        `  the list has no column ${printable(column)}: the policy reads input.${printable(column)} as null`,
    ),
  ];
}

export function registerCheckCommand(program: Command): void {
  addTableAction(
    program
      .command('check')
      .description('Validate a customer list without querying anyone (spends no credits)')
      .argument('<file>', 'CSV file of CPFs/CNPJs'),
    'check',
    async (options, file: string) => check(file, options),
  );
}
