/**
 * Decides a batch again from its stored results, with no bureau request: each row's report from `reports.jsonl`
 * and its customer columns from `summary.csv`, read side by side as streams (the reports file has one line per
 * summary row with a report, in the summary's order), decided by a new policy, written to `decisions.csv` in row
 * order and counted against the decision the batch gave each row. Memory stays bounded whatever the batch's size:
 * a chunk of each file, the decisions in flight, and the decisions of rows that duplicates repeat until their last
 * duplicate has passed.
 */
import type { BatchManifest } from '../../contract/index.ts';
import { csvLine, csvPreamble } from '../../domain/csv/csv-format.ts';
import {
  type Decision,
  type DecisionFigures,
  type DecisionInput,
  decisionFigures,
  decisionInput,
  POLICY_ERROR,
} from '../../domain/decision/index.ts';
import { maskDocument } from '../../domain/documents/format-document.ts';
import type { CreditPolicy } from '../../domain/ports/index.ts';
import { reasonsCell } from '../../domain/summary/index.ts';
import { ResultsFileError } from '../../domain/summary/summary-csv-reader.ts';
import { FlipTally } from './flip-tally.ts';
import { jsonLines, type PreviousReasons, storedReport } from './report-lines.ts';
import type { ResultFiles, TextSink } from './result-files.ts';
import { openSummary, type SummaryLayout, type SummaryLine, scanDuplicateCells } from './summary-stream.ts';

/** The columns of `decisions.csv`. */
const DECISIONS_COLUMNS = [
  'row',
  'document',
  'decision',
  'reasons',
  'risk_band',
  'credit_limit',
  'previous_decision',
] as const;

/**
 * Batches of rows decided ahead of the one being written: ZEN evaluates in child processes, one per core
 * (zen-process-pool.ts), so this process reads the next rows while they decide the previous ones. Enough to keep
 * every child busy while a batch is written (measured on a million rows: 8 batches ahead left one ZEN process idle
 * half the time), few enough to keep memory flat.
 */
const BATCHES_AHEAD = 16;

/**
 * Rows read, decided and written together. Small batches keep what is alive at a collection of the young generation
 * small: with a whole chunk of the summary (about 190 rows) in flight, its reports and inputs outlived two
 * collections and were copied into the old generation (2.8 MB at each), and `decide` took 8 % longer.
 */
const ROWS_PER_BATCH = 32;

/** What a run did. */
export interface RedecideOutcome {
  readonly layout: SummaryLayout;
  /** Data rows of the summary. */
  readonly rows: number;
  /** Rows decided (duplicates of a decided row included). */
  readonly decided: number;
  /** Of them, rows whose policy could not decide (`POLICY_ERROR`), and the first one's detail. */
  readonly policyErrors: { readonly rows: number; readonly first: string | null };
  readonly tally: FlipTally;
}

const NO_REASONS: PreviousReasons = { read: () => [] };

interface Item {
  readonly line: SummaryLine;
  readonly input: DecisionInput | null;
  readonly previous: PreviousReasons;
}

/** A decision remembered for the duplicates still to come. */
interface Remembered {
  readonly decision: Decision | null;
  /** Read already: a stored report would keep the chunk of text its line was cut from. */
  readonly previousReasons: readonly string[];
  remaining: number;
}

const hasReport = (line: SummaryLine) => line.status === 'screened' || line.status === 'cached';
const decidedBy = (manifest: BatchManifest | null): boolean | null =>
  manifest?.policy === undefined ? null : manifest.policy !== null;

/**
 * Rows that duplicates repeat, with how many duplicates each has: read beforehand, so that only their decisions
 * are kept. A manifest that counts no duplicate spares the read. One that counts them lets a scan of the text do
 * (a tenth of the time of parsing it): the scan finds every duplicate the summary's writer wrote, and a customer's
 * cells that look like one could only add a match, so as many matches as the manifest counts are exactly the
 * duplicates. Otherwise, or without a manifest, the summary is parsed.
 */
export async function duplicateTargets(files: ResultFiles): Promise<Map<number, number>> {
  const expected = files.manifest?.counts.duplicate;
  if (expected === 0) return new Map();
  if (expected !== undefined) {
    const scanned = await scanDuplicateCells(files.open('summary'));
    if (scanned.duplicates === expected) return scanned.targets;
  }
  const targets = new Map<number, number>();
  const summary = await openSummary(files.open('summary'), decidedBy(files.manifest));
  for await (const lines of summary.lines) {
    for (const line of lines) {
      if (line.duplicateOf !== null) targets.set(line.duplicateOf, (targets.get(line.duplicateOf) ?? 0) + 1);
    }
  }
  return targets;
}

function figuresOf(line: string, lineNumber: number, summaryLine: SummaryLine) {
  const stored = storedReport(line, lineNumber);
  const { report } = stored;
  if (report.document !== summaryLine.document)
    throw new ResultsFileError(
      `reports.jsonl line ${lineNumber} is document ${maskDocument(report.document)} where summary.csv row ${summaryLine.row} is ${maskDocument(summaryLine.document)}: the two files are not of the same batch`,
    );
  let figures: DecisionFigures;
  try {
    figures = decisionFigures(report);
  } catch {
    throw new ResultsFileError(`reports.jsonl line ${lineNumber}: not a normalised report`);
  }
  return { figures, previous: stored.previousReasons };
}

/**
 * The summary's rows, a chunk at a time, with, for each one that has a report, its decision input and its previous
 * reasons (the reports read alongside, line for line).
 */
async function* itemBatches(
  summaryLines: AsyncIterable<SummaryLine[]>,
  reports: AsyncGenerator<string[]>,
  headers: readonly string[],
): AsyncGenerator<Item[]> {
  let batch: string[] = [];
  let index = 0;
  let lineNumber = 0;
  const refill = async (): Promise<boolean> => {
    while (index >= batch.length) {
      const next = await reports.next();
      if (next.done) return false;
      batch = next.value;
      index = 0;
    }
    return true;
  };
  for await (const lines of summaryLines) {
    let items: Item[] = [];
    for (const line of lines) {
      if (items.length === ROWS_PER_BATCH) {
        yield items;
        items = [];
      }
      if (!hasReport(line)) {
        items.push({ line, input: null, previous: NO_REASONS });
        continue;
      }
      if (index >= batch.length && !(await refill()))
        throw new ResultsFileError(
          `summary.csv row ${line.row} has a report, but reports.jsonl ends after ${lineNumber} lines: the two files are not of the same batch`,
        );
      const { figures, previous } = figuresOf(batch[index++] as string, ++lineNumber, line);
      items.push({ line, input: decisionInput(figures, headers, line.customerCells), previous });
    }
    yield items;
  }
  if (await refill())
    throw new ResultsFileError(
      `reports.jsonl has more lines than summary.csv has rows with a report (${lineNumber}): the two files are not of the same batch`,
    );
}

/** Decides a batch's rows together (a row without a report has no decision). */
function decideAll(items: readonly Item[], policy: CreditPolicy): Promise<(Decision | null)[]> {
  return Promise.all(items.map((item) => (item.input === null ? null : policy.decide(item.input))));
}

/** The batches with their decisions, in order, up to {@link BATCHES_AHEAD} of them decided ahead of the one given. */
async function* decidedAhead(
  batches: AsyncIterable<Item[]>,
  policy: CreditPolicy,
  ahead: number,
): AsyncGenerator<{ items: Item[]; decisions: (Decision | null)[] }> {
  const pending: { items: Item[]; decisions: Promise<(Decision | null)[]> }[] = [];
  for await (const items of batches) {
    const decisions = decideAll(items, policy);
    // A failure surfaces when its batch's turn comes; until then it must not count as unhandled.
    decisions.catch(() => {});
    pending.push({ items, decisions });
    if (pending.length > ahead) {
      const next = pending.shift() as (typeof pending)[number];
      yield { items: next.items, decisions: await next.decisions };
    }
  }
  for (const next of pending) yield { items: next.items, decisions: await next.decisions };
}

/**
 * The rows read against what the batch's manifest counts: a summary cut short (a partial download, a file
 * truncated by hand) or a manifest of another batch is refused, naming the first count that differs, instead of
 * "decided 50 of 50 rows" for a batch of 311.
 */
function checkAgainstManifest(
  manifest: BatchManifest | null,
  rows: number,
  statuses: ReadonlyMap<string, number>,
): void {
  if (manifest === null || typeof manifest.counts !== 'object' || manifest.counts === null) return;
  const read: Record<string, number> = { rows, ...Object.fromEntries(statuses) };
  for (const [name, counted] of Object.entries(manifest.counts)) {
    if ((read[name] ?? 0) === counted) continue;
    const what = name === 'rows' ? 'rows' : `${name} rows`;
    throw new ResultsFileError(
      `summary.csv has ${read[name] ?? 0} ${what} where manifest.json counts ${counted}: the folder is incomplete, or its files are not of one batch`,
    );
  }
}

/** A credit limit as the summary writes money: two decimals, a decimal comma in the Excel dialect. */
function money(reais: number | null, dialect: SummaryLayout['dialect']): string {
  if (reais === null) return '';
  const cents = Math.round(reais * 100);
  const text = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  return dialect === 'excel' ? text.replace('.', ',') : text;
}

/**
 * Decides every row of the batch's results with `policy` and writes `decisions.csv` to `sink`, in the summary's
 * dialect. A duplicate repeats its original row's decision; a row without a report gets an empty one.
 *
 * @throws ResultsFileError when the files are not what the pipeline writes, or not of the same batch
 */
export async function redecide(
  files: ResultFiles,
  policy: CreditPolicy,
  sink: TextSink,
  options: {
    /** Batches decided ahead of the one being written; {@link BATCHES_AHEAD} by default. */
    readonly ahead?: number;
    readonly warn?: (message: string) => void;
    /** Stops the run between two rows (Ctrl-C), throwing its reason. */
    readonly signal?: AbortSignal;
  } = {},
): Promise<RedecideOutcome> {
  const targets = await duplicateTargets(files);
  const summary = await openSummary(files.open('summary'), decidedBy(files.manifest));
  const { layout } = summary;
  const missing = policy.customerColumnsRead.filter((column) => !layout.customerHeaders.includes(column));
  for (const column of missing)
    options.warn?.(`the policy reads input.${column}, which summary.csv does not have: it reads null`);
  const batches = itemBatches(summary.lines, jsonLines(files.open('reports')), layout.customerHeaders);
  const tally = new FlipTally(layout.decided);
  const remembered = new Map<number, Remembered>();
  await sink.write(csvPreamble(layout.dialect) + csvLine(DECISIONS_COLUMNS, layout.dialect));
  const statuses = new Map<string, number>();
  let rows = 0;
  let decided = 0;
  let policyErrors = 0;
  let firstPolicyError: string | null = null;
  for await (const { items, decisions } of decidedAhead(batches, policy, options.ahead ?? BATCHES_AHEAD)) {
    let text = '';
    for (const [position, item] of items.entries()) {
      options.signal?.throwIfAborted();
      const { line } = item;
      let decision = decisions[position] ?? null;
      let original: Remembered | undefined;
      if (line.duplicateOf !== null) {
        original = remembered.get(line.duplicateOf);
        decision = original?.decision ?? null;
        if (original !== undefined && --original.remaining === 0) remembered.delete(line.duplicateOf);
      } else if (targets.has(line.row)) {
        const remaining = targets.get(line.row) ?? 0;
        remembered.set(line.row, { decision, previousReasons: item.previous.read(), remaining });
      }
      rows++;
      statuses.set(line.status, (statuses.get(line.status) ?? 0) + 1);
      if (decision !== null) {
        decided++;
        if (decision.reasons.some((reason) => reason.code === POLICY_ERROR)) {
          policyErrors++;
          firstPolicyError ??= decision.detail;
        }
        const previousReasons =
          line.duplicateOf === null ? () => item.previous.read() : (original?.previousReasons ?? []);
        tally.add(line.previous ?? 'none', decision, previousReasons);
      }
      text += csvLine(
        [
          String(line.row),
          line.document,
          decision?.decision ?? '',
          decision === null ? '' : reasonsCell(decision),
          decision?.risk_band ?? '',
          money(decision?.credit_limit ?? null, layout.dialect),
          line.previous ?? '',
        ],
        layout.dialect,
      );
    }
    await sink.write(text);
  }
  checkAgainstManifest(files.manifest, rows, statuses);
  return { layout, rows, decided, tally, policyErrors: { rows: policyErrors, first: firstPolicyError } };
}
