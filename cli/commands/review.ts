import { join } from 'node:path';
import type { Command } from 'commander';
import { ReviewRefusal } from '../../src/application/review/decided-rows.ts';
import { exportDecisions } from '../../src/application/review/export-decisions.ts';
import { recordOverride } from '../../src/application/review/record-override.ts';
import { type ReviewItem, reviewQueue } from '../../src/application/review/review-queue.ts';
import { isBatchIdShape, MAX_BATCH_ID_LENGTH } from '../../src/domain/batch/index.ts';
import { formatBrl } from '../../src/domain/spend/index.ts';
import { FINAL_DECISION_COLUMNS } from '../../src/domain/summary/index.ts';
import { CliError } from '../cli-error.ts';
import { downloadBatchResults } from '../local/batch-results.ts';
import { addTableAction } from '../option-parsers.ts';
import type { CommandOptions } from '../option-types.ts';
import { type PipelineConnection, withConnection } from '../pipeline-connection.ts';
import { checkResultsDirectoryOption, resultsDirectory } from '../results-directory.ts';
import { printable, printableLines } from '../terminal-text.ts';

function checkBatchId(batchId: string): string {
  if (!isBatchIdShape(batchId))
    throw new CliError(
      `not a batch id: ${printable(batchId, { maxLength: MAX_BATCH_ID_LENGTH })} (letters, digits, - and _, at most ${MAX_BATCH_ID_LENGTH})`,
    );
  return batchId;
}

/** A refusal of the review use cases is one line and exit 2, like any bad input. */
async function refusingInOneLine<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof ReviewRefusal) throw new CliError(error.message);
    throw error;
  }
}

/** The lines of one row waiting for a person: the row with its customer's cells, then the policy's reasons. */
function describeItem(item: ReviewItem): string[] {
  const customer = Object.entries(item.customer)
    .map(([header, value]) => `${header}=${value}`)
    .join(', ');
  const limit = item.credit_limit === null ? '' : `, limit ${formatBrl(item.credit_limit)}`;
  const band = item.risk_band === null ? '' : `, band ${item.risk_band}`;
  const reasons = item.reasons.map((reason) => `    ${reason.code}: ${reason.text}`);
  return [
    `${item.batchId} row ${item.row}  ${item.document}${customer ? `  (${customer})` : ''}${band}${limit}`,
    ...(reasons.length > 0 ? reasons : ['    (no reason given by the policy)']),
  ];
}

async function listQueue(batchId: string | undefined, options: CommandOptions<'review'>): Promise<void> {
  const scope = batchId === undefined ? {} : { batchId: checkBatchId(batchId) };
  await withConnection(options, (connection) =>
    refusingInOneLine(async () => {
      const { items, batches } = await reviewQueue(scope, connection);
      if (options.json) {
        process.stdout.write(`${printableLines(JSON.stringify({ items, batches }, null, 2))}\n`);
        return;
      }
      const where =
        batchId === undefined ? `${batches} decided batches in ${connection.where}` : `batch ${batchId}`;
      const lines = [
        `${items.length} ${items.length === 1 ? 'row waits' : 'rows wait'} for a person (${where})`,
        ...items.flatMap(describeItem),
        ...(items.length > 0
          ? [
              '',
              'decide one: credit-screen override <batchId> --row <n> --decision approve|decline --reason "…" --by "…"',
            ]
          : []),
      ];
      // Line by line: a customer's cell or a reason holding a line break must not print as a line of its own.
      process.stdout.write(`${lines.map((line) => printable(line)).join('\n')}\n`);
    }),
  );
}

async function override(batchId: string, options: CommandOptions<'override'>): Promise<void> {
  checkBatchId(batchId);
  await withConnection(options, (connection: PipelineConnection) =>
    refusingInOneLine(async () => {
      const recorded = await recordOverride(
        { batchId, row: options.row },
        {
          decision: options.decision,
          creditLimit: options.limit ?? null,
          reason: options.reason,
          by: options.by,
        },
        connection,
      );
      if (options.json) {
        process.stdout.write(`${printableLines(JSON.stringify(recorded, null, 2))}\n`);
        return;
      }
      const limit = recorded.credit_limit === null ? '' : `, limit ${formatBrl(recorded.credit_limit)}`;
      process.stdout.write(
        `${printableLines(
          [
            `batch ${batchId} row ${recorded.row}: ${recorded.previous} → ${recorded.decision}${limit}, by ${recorded.by} at ${recorded.at}`,
            `the policy's decision is kept; credit-screen export ${batchId} writes the final decisions into summary.csv`,
          ].join('\n'),
        )}\n`,
      );
    }),
  );
}

async function exportBatch(batchId: string, options: CommandOptions<'export'>): Promise<void> {
  checkBatchId(batchId);
  await checkResultsDirectoryOption(options.out, 'results');
  await withConnection(options, (connection) =>
    refusingInOneLine(async () => {
      const exported = await exportDecisions(batchId, connection);
      const directory = resultsDirectory(options.out, batchId);
      await downloadBatchResults(connection.objects, batchId, directory);
      process.stdout.write(
        options.json
          ? `${JSON.stringify({ ...exported, directory })}\n`
          : `${printableLines(
              `${join(directory, 'summary.csv')}: ${exported.rows} rows with ${FINAL_DECISION_COLUMNS.join(', ')}; ${exported.overridden} decided by a person, ${exported.stillInReview} still in review`,
            )}\n`,
      );
    }),
  );
}

export function registerReviewCommands(program: Command): void {
  addTableAction(
    program
      .command('review')
      .description(
        'List the rows waiting for a person (decision review, not yet overridden), with their reasons',
      )
      .argument('[batchId]', 'one batch; without it, the recent finished batches with a policy'),
    'review',
    async (options, batchId: string | undefined) => listQueue(batchId, options),
  );
  addTableAction(
    program
      .command('override')
      .description(
        "Record a person's final decision on a decided row; the policy's own decision is kept beside it",
      )
      .argument('<batchId>', 'the batch the row belongs to'),
    'override',
    async (options, batchId: string) => override(batchId, options),
  );
  addTableAction(
    program
      .command('export')
      .description(
        "Rewrite a finished batch's summary.csv with each row's final decision (a person's override, else the policy's)",
      )
      .argument('<batchId>', 'the batch'),
    'export',
    async (options, batchId: string) => exportBatch(batchId, options),
  );
}
