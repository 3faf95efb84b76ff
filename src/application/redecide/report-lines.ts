/**
 * Reads `reports.jsonl` as a stream: one normalised report a line (with the decision the batch's policy gave it,
 * when it had one), in the order of the summary's rows that have a report.
 */
import { DECISION_VALUES } from '../../domain/decision/index.ts';
import { BUREAUS, type NormalisedReport } from '../../domain/report/index.ts';
import { ResultsFileError } from '../../domain/summary/summary-csv-reader.ts';

/** A line longer than this is not a report: a file that is not the batch's reports (or has no line breaks). */
const MAX_LINE_CHARACTERS = 64 << 20;

/** The non-empty lines of a JSON Lines stream, in batches (one per chunk read); errors name `fileName`. */
export async function* jsonLines(
  chunks: AsyncIterable<Uint8Array>,
  fileName = 'reports.jsonl',
): AsyncGenerator<string[]> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let carried = '';
  const split = (text: string): string[] => {
    const lines: string[] = [];
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      const line = text.slice(start, text.charCodeAt(end - 1) === 13 ? end - 1 : end);
      if (line !== '') lines.push(line);
      start = end + 1;
    }
    carried = text.slice(start);
    if (carried.length > MAX_LINE_CHARACTERS)
      throw new ResultsFileError(`${fileName}: a line is longer than 64 MiB: not a file of reports`);
    return lines;
  };
  try {
    for await (const chunk of chunks) {
      const lines = split(carried + decoder.decode(chunk, { stream: true }));
      if (lines.length > 0) yield lines;
    }
    const last = (carried + decoder.decode()).trim();
    if (last !== '') yield [last];
  } catch (error) {
    if (error instanceof TypeError) throw new ResultsFileError(`${fileName}: not UTF-8 text`);
    throw error;
  }
}

/**
 * The reason codes of the decision the batch gave a report: read when asked, since only a row whose decision flips
 * needs them, and the stored decision (its trace above all) is a fifth of the line. Holds none of the report, so
 * that a row waiting for its new decision keeps a few bytes alive, not the report's objects (kept, they outlived
 * the young generation's collections and `decide` spent a quarter of its time collecting garbage).
 */
export interface PreviousReasons {
  /** @throws ResultsFileError naming the line when the stored decision is not JSON */
  read(): readonly string[];
}

/** A line of `reports.jsonl`: the report, and the reason codes of the decision the batch gave it. */
export interface StoredReport {
  readonly report: NormalisedReport;
  readonly previousReasons: PreviousReasons;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isSection = (value: unknown): boolean => isRecord(value) && typeof value.count === 'number';

/** What `decisionFigures` reads of a report, checked, so that a foreign line is said instead of crashing. */
function looksLikeReport(value: Record<string, unknown>): boolean {
  return (
    value.schemaVersion === 1 &&
    typeof value.document === 'string' &&
    (value.documentType === 'cpf' || value.documentType === 'cnpj') &&
    (BUREAUS as readonly unknown[]).includes(value.bureau) &&
    typeof value.fetchedAt === 'string' &&
    isSection(value.protests) &&
    isSection(value.pendingDebts) &&
    isSection(value.bouncedCheques) &&
    (value.stoppedCheques === null || isSection(value.stoppedCheques)) &&
    (value.subject === null || isRecord(value.subject)) &&
    (value.score === null || isRecord(value.score)) &&
    (value.queryHistory === null || Array.isArray(value.queryHistory)) &&
    (value.companyParticipations === null || Array.isArray(value.companyParticipations))
  );
}

function reasonCodes(decision: unknown): string[] {
  if (!isRecord(decision) || !(DECISION_VALUES as readonly unknown[]).includes(decision.decision)) return [];
  const reasons = Array.isArray(decision.reasons) ? decision.reasons : [];
  return reasons.flatMap((reason) =>
    isRecord(reason) && typeof reason.code === 'string' ? [reason.code] : [],
  );
}

/**
 * What starts the decision the finaliser writes after a report, as the line's last key
 * (`{...report, "decision": {...}}`).
 */
const DECISION_KEY = ',"decision":{';

const notJson = (lineNumber: number) => new ResultsFileError(`reports.jsonl line ${lineNumber}: not JSON`);

/**
 * The report of a line whose decision comes last, parsed without the decision: null when the line has none, or is
 * not of that form. Sound because the line is split at a key of its top level: a text cut inside a nested value or a
 * string does not parse once closed with one brace.
 */
function reportBeforeDecision(line: string, lineNumber: number): StoredReport | null {
  const at = line.lastIndexOf(DECISION_KEY);
  if (at === -1) return null;
  let value: unknown;
  try {
    value = JSON.parse(`${line.slice(0, at)}}`);
  } catch {
    return null;
  }
  if (!isRecord(value) || !looksLikeReport(value)) return null;
  return {
    report: value as unknown as NormalisedReport,
    previousReasons: new DecisionText(line.slice(at + 1), lineNumber),
  };
}

/** A stored decision's text, parsed when asked (a class: no function made for each line). */
class DecisionText implements PreviousReasons {
  constructor(
    /** The line from the decision's key on: `"decision":{…}}`. */
    readonly rest: string,
    readonly lineNumber: number,
  ) {}

  read(): readonly string[] {
    try {
      return reasonCodes((JSON.parse(`{${this.rest}`) as { decision?: unknown }).decision);
    } catch {
      throw notJson(this.lineNumber);
    }
  }
}

/**
 * One line read as a stored report.
 *
 * @throws ResultsFileError naming the line when it is not JSON or not a normalised report
 */
export function storedReport(line: string, lineNumber: number): StoredReport {
  const fast = reportBeforeDecision(line, lineNumber);
  if (fast !== null) return fast;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw notJson(lineNumber);
  }
  if (!isRecord(value) || !looksLikeReport(value))
    throw new ResultsFileError(`reports.jsonl line ${lineNumber}: not a normalised report`);
  const reasons = reasonCodes(value.decision);
  return { report: value as unknown as NormalisedReport, previousReasons: { read: () => reasons } };
}
