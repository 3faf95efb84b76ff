/**
 * One-off measurement: replays ZEN's own expression-language test cases (the CSV files of the gorules/zen
 * repository, `core/expression/tests/data/{standard,unary,date}.csv`) through the installed `@gorules/zen-engine`
 * (`evaluateExpressionSync`, `evaluateUnaryExpressionSync`) and prints how many pass.
 *
 *   npx tsx scripts/replay-zen-test-cases.ts /tmp/zen-tests
 *   TZ=UTC npx tsx scripts/replay-zen-test-cases.ts /tmp/zen-tests --through-loader [--unary-field=input.valor]
 *
 * `--through-loader` replays every case as a credit policy through the product's loader and `decide` (see the
 * section "Through the product's loader" below).
 *
 * The folder is an extracted copy of the repository (or any folder holding `core/expression/tests/data/*.csv`):
 * the test data is public code and stays out of this repository; this script holds none of it.
 *
 * The files are read as ZEN's Rust harness (`core/expression/tests/isolate.rs`) reads them: the `csv` crate's
 * defaults with `;` as delimiter (first record is the header; `"` quotes a field that starts with it, `""` inside
 * is a quote; empty lines skipped; a record whose field count differs from the header's is an error the harness
 * skips), a first field starting with `#` is a comment, the input and the output are JSON5 (an empty input means
 * no context: Null). No column says a case should fail: the harness expects every case to evaluate.
 *
 * zen-engine 0.54.0 aborts the whole process (SIGABRT) on some inputs, so every case file runs in a child process
 * that logs each case before it evaluates it; when a child dies, the case it was on is reported as aborting and a
 * new child carries on from the next case.
 */
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ZenCase {
  readonly kind: 'standard' | 'unary';
  readonly expression: string;
  /** The context (JSON5 of the input column); `undefined` when the column is empty (the engine's Null). */
  readonly input: unknown;
  readonly expected: unknown;
  /** Always false in ZEN 0.54.0's files: their format has no way to say a case should fail. */
  readonly expectError: boolean;
  /** Path of the case file, relative to the folder given. */
  readonly file: string;
  /** 1-based line of the file where the case's record starts. */
  readonly line: number;
}

/** A record of a case file that ZEN's harness does not run: not three fields, or not JSON5 where it must be. */
export interface SkippedRecord {
  readonly file: string;
  readonly line: number;
  readonly reason: string;
  readonly text: string;
}

const DATA_DIR = join('core', 'expression', 'tests', 'data');

// ---------------------------------------------------------------------------------------------------------------
// CSV, as the Rust `csv` crate reads it with its defaults and `delimiter(b';')`.

interface CsvRecord {
  readonly fields: string[];
  readonly line: number;
  readonly text: string;
}

function isTerminator(ch: string | undefined): boolean {
  return ch === '\n' || ch === '\r';
}

/** Reads one quoted field starting at `start` (on the opening quote); returns the value and where it stopped. */
function readQuoted(text: string, start: number): { value: string; end: number; newlines: number } {
  let value = '';
  let newlines = 0;
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      if (text[i + 1] === '"') {
        value += '"';
        i += 2;
        continue;
      }
      i += 1;
      // After the closing quote, anything up to the delimiter or the end of the record is kept as it is.
      while (i < text.length && text[i] !== ';' && !isTerminator(text[i])) {
        value += text[i];
        i += 1;
      }
      return { value, end: i, newlines };
    }
    if (ch === '\n') newlines += 1;
    value += ch;
    i += 1;
  }
  return { value, end: i, newlines };
}

function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let i = 0;
  let line = 1;
  while (i < text.length) {
    // Empty lines are no records.
    if (isTerminator(text[i])) {
      if (text[i] === '\n') line += 1;
      i += 1;
      continue;
    }
    const start = i;
    const startLine = line;
    const fields: string[] = [];
    for (;;) {
      if (text[i] === '"') {
        const quoted = readQuoted(text, i);
        fields.push(quoted.value);
        line += quoted.newlines;
        i = quoted.end;
      } else {
        let end = i;
        while (end < text.length && text[end] !== ';' && !isTerminator(text[end])) end += 1;
        fields.push(text.slice(i, end));
        i = end;
      }
      if (text[i] === ';') {
        i += 1;
        continue;
      }
      break;
    }
    records.push({ fields, line: startLine, text: text.slice(start, i) });
  }
  return records;
}

// ---------------------------------------------------------------------------------------------------------------
// JSON5 (https://spec.json5.org), enough of it for values: what `serde_json5` accepts in the case files.

class Json5Reader {
  private i = 0;

  constructor(private readonly src: string) {}

  read(): unknown {
    const value = this.value();
    this.skip();
    if (this.i < this.src.length) this.fail('unexpected text after the value');
    return value;
  }

  private fail(message: string): never {
    throw new SyntaxError(`JSON5: ${message} at ${this.i} in ${JSON.stringify(this.src)}`);
  }

  private skip(): void {
    const s = this.src;
    while (this.i < s.length) {
      const ch = s[this.i] as string;
      if (/[\s\uFEFF]/u.test(ch)) {
        this.i += 1;
      } else if (s.startsWith('//', this.i)) {
        const end = s.slice(this.i).search(/[\n\r\u2028\u2029]/u);
        this.i = end < 0 ? s.length : this.i + end;
      } else if (s.startsWith('/*', this.i)) {
        const end = s.indexOf('*/', this.i + 2);
        if (end < 0) this.fail('unterminated comment');
        this.i = end + 2;
      } else {
        return;
      }
    }
  }

  private value(): unknown {
    this.skip();
    const ch = this.src[this.i];
    if (ch === '{') return this.object();
    if (ch === '[') return this.array();
    if (ch === '"' || ch === "'") return this.string();
    const word = /^(?:true|false|null)(?![\p{ID_Continue}$\u200C\u200D])/u.exec(this.src.slice(this.i))?.[0];
    if (word !== undefined) {
      this.i += word.length;
      return word === 'true' ? true : word === 'false' ? false : null;
    }
    return this.number();
  }

  private number(): number {
    const rest = this.src.slice(this.i);
    const match =
      /^[+-]?(?:Infinity|NaN|0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(?![\p{ID_Continue}$])/u.exec(
        rest,
      );
    if (!match) this.fail('expected a value');
    const text = match[0];
    this.i += text.length;
    const sign = text.startsWith('-') ? -1 : 1;
    const body = text.replace(/^[+-]/, '');
    if (body === 'Infinity') return sign * Number.POSITIVE_INFINITY;
    if (body === 'NaN') return Number.NaN;
    return sign * Number(body);
  }

  private string(): string {
    const quote = this.src[this.i];
    this.i += 1;
    let out = '';
    while (this.i < this.src.length) {
      const ch = this.src[this.i] as string;
      this.i += 1;
      if (ch === quote) return out;
      if (ch === '\n' || ch === '\r') this.fail('line break in a string');
      if (ch !== '\\') {
        out += ch;
        continue;
      }
      out += this.escape();
    }
    return this.fail('unterminated string');
  }

  private escape(): string {
    const ch = this.src[this.i] as string;
    this.i += 1;
    const simple: Record<string, string> = {
      b: '\b',
      f: '\f',
      n: '\n',
      r: '\r',
      t: '\t',
      v: '\v',
      '0': '\0',
    };
    if (ch in simple && !(ch === '0' && /\d/.test(this.src[this.i] ?? ''))) return simple[ch] as string;
    if (ch === 'x' || ch === 'u') {
      const size = ch === 'x' ? 2 : 4;
      const hex = this.src.slice(this.i, this.i + size);
      if (!new RegExp(`^[0-9a-fA-F]{${size}}$`).test(hex)) this.fail('bad escape');
      this.i += size;
      return String.fromCharCode(Number.parseInt(hex, 16));
    }
    if (ch === '\r') {
      if (this.src[this.i] === '\n') this.i += 1;
      return '';
    }
    if (ch === '\n' || ch === '\u2028' || ch === '\u2029') return '';
    if (/[1-9]/.test(ch)) this.fail('bad escape');
    return ch;
  }

  private key(): string {
    this.skip();
    const ch = this.src[this.i];
    if (ch === '"' || ch === "'") return this.string();
    const match = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*/u.exec(this.src.slice(this.i));
    if (!match) this.fail('expected a key');
    this.i += match[0].length;
    return match[0];
  }

  private object(): Record<string, unknown> {
    this.i += 1;
    const out: Record<string, unknown> = {};
    for (;;) {
      this.skip();
      if (this.src[this.i] === '}') {
        this.i += 1;
        return out;
      }
      const key = this.key();
      this.skip();
      if (this.src[this.i] !== ':') this.fail('expected `:`');
      this.i += 1;
      Object.defineProperty(out, key, {
        value: this.value(),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.skip();
      if (this.src[this.i] === ',') this.i += 1;
      else if (this.src[this.i] !== '}') this.fail('expected `,` or `}`');
    }
  }

  private array(): unknown[] {
    this.i += 1;
    const out: unknown[] = [];
    for (;;) {
      this.skip();
      if (this.src[this.i] === ']') {
        this.i += 1;
        return out;
      }
      out.push(this.value());
      this.skip();
      if (this.src[this.i] === ',') this.i += 1;
      else if (this.src[this.i] !== ']') this.fail('expected `,` or `]`');
    }
  }
}

export function parseJson5(text: string): unknown {
  return new Json5Reader(text).read();
}

// ---------------------------------------------------------------------------------------------------------------
// Case files.

function caseFiles(folder: string): { path: string; kind: ZenCase['kind'] }[] {
  const dir = join(folder, DATA_DIR);
  return readdirSync(dir)
    .filter((name) => name.endsWith('.csv'))
    .sort()
    .map((name) => ({ path: join(dir, name), kind: name === 'unary.csv' ? 'unary' : 'standard' }));
}

/** Reads every case file of the folder: the cases ZEN's harness runs, and the records it skips. */
export function readZenCaseFiles(folder: string): { cases: ZenCase[]; skipped: SkippedRecord[] } {
  const cases: ZenCase[] = [];
  const skipped: SkippedRecord[] = [];
  for (const { path, kind } of caseFiles(folder)) {
    const file = relative(folder, path);
    const [header, ...records] = parseCsv(readFileSync(path, 'utf8'));
    const width = header?.fields.length ?? 0;
    for (const { fields, line, text } of records) {
      if ((fields[0] ?? '').startsWith('#')) continue;
      if (fields.length !== width) {
        skipped.push({ file, line, text, reason: `${fields.length} fields where the header has ${width}` });
        continue;
      }
      const [expression = '', inputText = '', outputText = ''] = fields;
      try {
        cases.push({
          kind,
          expression,
          input: inputText === '' ? undefined : parseJson5(inputText),
          expected: parseJson5(outputText),
          expectError: false,
          file,
          line,
        });
      } catch (error) {
        skipped.push({ file, line, text, reason: String(error) });
      }
    }
  }
  return { cases, skipped };
}

/** The cases of ZEN's expression test files under `folder` (`core/expression/tests/data/*.csv`), in file order. */
export function readZenCases(folder: string): ZenCase[] {
  return readZenCaseFiles(folder).cases;
}

// ---------------------------------------------------------------------------------------------------------------
// Evaluation and comparison.

/** Equality of two JSON values; objects regardless of key order (as serde_json's `Value` compares them). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => sameValue(item, b[i]))
    );
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  const aKeys = Object.keys(a);
  const bRecord = b as Record<string, unknown>;
  return (
    aKeys.length === Object.keys(b).length &&
    aKeys.every(
      (key) => Object.hasOwn(bRecord, key) && sameValue((a as Record<string, unknown>)[key], bRecord[key]),
    )
  );
}

type Outcome = 'passed' | 'failed' | 'errored' | 'aborted';

interface CaseResult {
  readonly index: number;
  readonly outcome: Outcome;
  readonly actual?: string;
  readonly error?: string;
}

function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  const json = JSON.stringify(value);
  return json === undefined ? String(value) : json;
}

function firstLine(error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  return (raw.split('\n')[0] ?? raw).slice(0, 300);
}

/** Child process: runs the cases of one file from `from`, logging each before and after it is evaluated. */
async function runWorker(folder: string, file: string, from: number, logPath: string): Promise<void> {
  const zen = await import('@gorules/zen-engine');
  const cases = readZenCases(folder).filter((c) => c.file === file);
  const log = openSync(logPath, 'a');
  try {
    for (let index = from; index < cases.length; index += 1) {
      const c = cases[index] as ZenCase;
      writeSync(log, `${JSON.stringify({ start: index })}\n`);
      let result: CaseResult;
      try {
        const actual =
          c.kind === 'unary'
            ? zen.evaluateUnaryExpressionSync(c.expression, c.input)
            : zen.evaluateExpressionSync(c.expression, c.input);
        const passed = !c.expectError && sameValue(actual, c.expected);
        result = { index, outcome: passed ? 'passed' : 'failed', actual: show(actual) };
      } catch (error) {
        result = { index, outcome: c.expectError ? 'passed' : 'errored', error: firstLine(error) };
      }
      writeSync(log, `${JSON.stringify(result)}\n`);
    }
  } finally {
    closeSync(log);
  }
}

interface FileRun {
  readonly results: CaseResult[];
  readonly aborts: { index: number; signal: string; stderr: string }[];
}

/** Parent: runs one case file in child processes, a new one after each that dies, until every case has a result. */
function runFile(folder: string, file: string, count: number, workDir: string): FileRun {
  const results: CaseResult[] = [];
  const aborts: FileRun['aborts'] = [];
  const script = fileURLToPath(import.meta.url);
  let from = 0;
  let attempt = 0;
  while (from < count) {
    attempt += 1;
    const logPath = join(workDir, `${file.replace(/[^\w.-]/g, '_')}.${attempt}.log`);
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, script, '--worker', folder, file, String(from), logPath],
      { env: { ...process.env, TZ: 'UTC' }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    let started = -1;
    let text = '';
    try {
      text = readFileSync(logPath, 'utf8');
    } catch {
      // The child died before it opened its log.
    }
    for (const line of text.split('\n').filter(Boolean)) {
      const entry = JSON.parse(line) as { start?: number } & CaseResult;
      if (entry.start !== undefined) started = entry.start;
      else {
        results.push(entry);
        from = entry.index + 1;
      }
    }
    if (from >= count) break;
    const stderr = (child.stderr ?? '').trim().split('\n').slice(-3).join(' | ').slice(0, 400);
    const signal = child.signal ?? `exit code ${child.status}`;
    const index = started >= from ? started : from;
    aborts.push({ index, signal, stderr });
    results.push({ index, outcome: 'aborted', error: `${signal}: ${stderr}` });
    from = index + 1;
  }
  return { results, aborts };
}

// ---------------------------------------------------------------------------------------------------------------
// Through the product's loader (`--through-loader`): each case becomes a credit policy, loaded by
// `loadZenCreditPolicy` and decided by `policy.decide`, as the product loads and decides a real one.
//
// - A standard case (E, context C, expected V) is an expression node `decision = (E) == <V> ? "approve" : "decline"`:
//   ZEN's expected value says approve. Not expressible (skipped, counted): an assignment (`x = 1; …`), a V with no
//   ZEN literal (ZEN strings have no escapes: a text holding ", ' and ` has none), a literal ZEN does not read back
//   as V, or a case ZEN passes directly whose wrapped form ZEN itself does not approve directly (its `==` does not
//   hold between the two: a date against its text, say). Those checks evaluate with the engine directly, in the
//   worker's own process.
// - A unary case (U, `$` = X, expected true/false) is a `first` table with one input column whose field is `valor`
//   (`--unary-field` changes it, e.g. `input.valor`): row 1 cell U → "approve", row 2 empty → "decline"; the input
//   gives `valor` = X (with the case's other keys).
//
// The decision input is the case's context as it is: the product passes on only the decision input's own fields
// (DECISION_INPUT_FIELDS) that the policy reads, so a name outside them reads null (the loader warns; counted).

const LOADER_CONCURRENCY = 16;
const SHOWN_PER_FILE = 10;
const READS_NULL_WARNING = 'which the decision input does not have';

type Verdict = 'approve' | 'decline';

type LoaderOutcome = 'unexpressible' | 'agrees' | 'refused' | 'review' | 'differs' | 'errored' | 'aborted';

interface LoaderResult {
  readonly index: number;
  readonly outcome: LoaderOutcome;
  /** Why a case is not expressible, the loader's refusal, the error, or the decision's detail. */
  readonly why?: string;
  readonly expected?: Verdict;
  readonly decided?: string;
  readonly reasons?: readonly string[];
  /** The loader warned that the policy reads a name the decision input does not have (it reads null). */
  readonly readsNull?: boolean;
  /** What ZEN answers when it evaluates the case directly, beside its test's expectation. */
  readonly zenDirect?: 'passes' | 'fails' | 'throws';
}

/** A ZEN string literal: ZEN's lexer reads up to the next quote of the same kind, with no escapes. */
function zenString(text: string): string | null {
  if (!text.includes('"')) return `"${text}"`;
  if (!text.includes("'")) return `'${text}'`;
  if (!text.includes('`') && !text.includes('${')) return `\`${text}\``;
  return null;
}

/** A ZEN literal for a JSON value, or null when there is none. */
export function zenLiteral(value: unknown): string | null {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value).replace('e+', 'e') : null;
  if (typeof value === 'string') return zenString(value);
  if (Array.isArray(value)) {
    const items = value.map(zenLiteral);
    return items.every((item) => item !== null) ? `[${items.join(', ')}]` : null;
  }
  if (typeof value !== 'object') return null;
  const entries: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    const name = /^[A-Za-z_]\w*$/.test(key) ? key : zenString(key);
    const literal = zenLiteral(item);
    if (name === null || literal === null) return null;
    entries.push(`${name}: ${literal}`);
  }
  return `{${entries.join(', ')}}`;
}

/** Whether an expression assigns (`a = 1`, `a = 1; a`): its code, strings set aside, has `;` or a lone `=`. */
function assigns(expression: string): boolean {
  const code = expression.replace(/"[^"]*"|'[^']*'|`[^`]*`/g, '""');
  return code.includes(';') || /(?<![=!<>])=(?![=>])/.test(code);
}

/** A node; input and output nodes have no content (ZEN refuses a null one). */
const node = (id: string, type: string, name: string, x: number, content?: unknown) => ({
  id,
  type,
  name,
  position: { x, y: 0 },
  ...(content === undefined ? {} : { content }),
});
const edge = (id: string, sourceId: string, targetId: string) => ({ id, sourceId, targetId, type: 'edge' });
const transformOff = { passThrough: false, inputField: null, outputPath: null, executionMode: 'single' };

function expressionPolicy(decision: string): unknown {
  return {
    nodes: [
      node('entrada', 'inputNode', 'Entrada', 0),
      node('caso', 'expressionNode', 'Caso', 300, {
        ...transformOff,
        expressions: [{ id: 'decisao', key: 'decision', value: decision }],
      }),
      node('saida', 'outputNode', 'Saída', 600),
    ],
    edges: [edge('e1', 'entrada', 'caso'), edge('e2', 'caso', 'saida')],
  };
}

function unaryPolicy(cell: string, field: string): unknown {
  return {
    nodes: [
      node('entrada', 'inputNode', 'Entrada', 0),
      node('caso', 'decisionTableNode', 'Caso', 300, {
        ...transformOff,
        hitPolicy: 'first',
        inputs: [{ id: 'valor', name: 'Valor', field }],
        outputs: [{ id: 'decisao', name: 'Decisão', field: 'decision' }],
        rules: [
          { _id: 'caso', valor: cell, decisao: '"approve"' },
          { _id: 'resto', valor: '', decisao: '"decline"' },
        ],
      }),
      node('saida', 'outputNode', 'Saída', 600),
    ],
    edges: [edge('e1', 'entrada', 'caso'), edge('e2', 'caso', 'saida')],
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Sets a dotted path in a copy of the context (`input.valor` → `{input: {valor}}`). */
function withPath(context: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head = '', ...rest] = path.split('.');
  const out = { ...context };
  const inner = isRecord(out[head]) ? (out[head] as Record<string, unknown>) : {};
  out[head] = rest.length === 0 ? value : withPath(inner, rest.join('.'), value);
  return out;
}

type Zen = typeof import('@gorules/zen-engine');

/** A case as a policy, its decision input and the verdict ZEN's expectation asks for; or why it cannot be one. */
type Built =
  | {
      readonly graph: unknown;
      readonly input: Record<string, unknown>;
      readonly expected: Verdict;
      readonly zenDirect: LoaderResult['zenDirect'];
    }
  | { readonly unexpressible: string };

function directly(run: () => unknown): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: run() };
  } catch {
    return { ok: false };
  }
}

function buildStandard(zen: Zen, c: ZenCase): Built {
  if (assigns(c.expression)) return { unexpressible: 'an assignment' };
  const literal = zenLiteral(c.expected);
  if (literal === null) return { unexpressible: 'no ZEN literal for the expected value' };
  const readBack = directly(() => zen.evaluateExpressionSync(literal, {}));
  if (!readBack.ok || !sameValue(readBack.value, c.expected))
    return { unexpressible: 'ZEN does not read the literal back as the expected value' };
  const decision = `(${c.expression}) == ${literal} ? "approve" : "decline"`;
  const own = directly(() => zen.evaluateExpressionSync(c.expression, c.input));
  const zenDirect = !own.ok ? 'throws' : sameValue(own.value, c.expected) ? 'passes' : 'fails';
  if (zenDirect === 'passes') {
    const wrapped = directly(() => zen.evaluateExpressionSync(decision, c.input));
    if (!wrapped.ok || wrapped.value !== 'approve')
      return {
        unexpressible: "ZEN's == does not hold between the value and its literal (evaluated directly)",
      };
  }
  const input = isRecord(c.input) ? c.input : {};
  return { graph: expressionPolicy(decision), input, expected: 'approve', zenDirect };
}

function buildUnary(zen: Zen, c: ZenCase, field: string): Built {
  if (typeof c.expected !== 'boolean') return { unexpressible: 'the expected value is not true or false' };
  const context = isRecord(c.input) ? c.input : {};
  const { $: value = null, ...rest } = context;
  const own = directly(() => zen.evaluateUnaryExpressionSync(c.expression, c.input));
  const zenDirect = !own.ok ? 'throws' : own.value === c.expected ? 'passes' : 'fails';
  return {
    graph: unaryPolicy(c.expression, field),
    input: withPath(rest, field, value),
    expected: c.expected ? 'approve' : 'decline',
    zenDirect,
  };
}

type Loader = typeof import('../src/adapters/decision/zen-credit-policy.ts');
type Input = import('../src/domain/decision/index.ts').DecisionInput;

async function decideCase(
  name: string,
  built: Extract<Built, { graph: unknown }>,
  loading: ReturnType<Loader['loadZenCreditPolicy']>,
): Promise<Omit<LoaderResult, 'index'>> {
  const { expected, zenDirect } = built;
  const loaded = await loading;
  if (!loaded.ok)
    return { outcome: 'refused', why: loaded.error.slice(name.length + 2), expected, zenDirect };
  const readsNull = loaded.warnings.some((warning) => warning.includes(READS_NULL_WARNING));
  const decision = await loaded.policy.decide(built.input as unknown as Input);
  const reasons = decision.reasons.map((reason) => reason.code);
  const base = { expected, zenDirect, readsNull, decided: decision.decision, reasons };
  if (decision.decision === expected) return { ...base, outcome: 'agrees' };
  if (reasons.includes('POLICY_ERROR') || reasons.includes('MISSING_DATA'))
    return { ...base, outcome: 'review', why: decision.detail ?? '' };
  return { ...base, outcome: 'differs' };
}

/** Child process: runs the given cases of one file through the loader, logging each start, load and result. */
async function runLoaderWorker(
  folder: string,
  file: string,
  listPath: string,
  logPath: string,
  field: string,
) {
  const zen = await import('@gorules/zen-engine');
  const loader: Loader = await import('../src/adapters/decision/zen-credit-policy.ts');
  const cases = readZenCases(folder).filter((c) => c.file === file);
  const indexes = JSON.parse(readFileSync(listPath, 'utf8')) as number[];
  const log = openSync(logPath, 'a');
  const write = (entry: unknown) => writeSync(log, `${JSON.stringify(entry)}\n`);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < indexes.length) {
      const index = indexes[next] as number;
      next += 1;
      const c = cases[index] as ZenCase;
      // Everything that runs ZEN in this process (the direct checks, the loader's compiling of the cells) runs
      // between `start` and `loaded`: a case that aborts the process is the one started and not loaded.
      write({ start: index });
      let result: Omit<LoaderResult, 'index'>;
      try {
        const built = c.kind === 'unary' ? buildUnary(zen, c, field) : buildStandard(zen, c);
        if ('unexpressible' in built) {
          write({ loaded: index });
          result = { outcome: 'unexpressible', why: built.unexpressible };
        } else {
          const name = `caso-${index + 1}.json`;
          const loading = loader.loadZenCreditPolicy(name, JSON.stringify(built.graph));
          write({ loaded: index });
          result = await decideCase(name, built, loading);
        }
      } catch (error) {
        result = { outcome: 'errored', why: firstLine(error) };
      }
      write({ index, ...result });
    }
  };
  await Promise.all(Array.from({ length: LOADER_CONCURRENCY }, lane));
  closeSync(log);
  process.exit(0);
}

/** Parent: runs one file's cases through the loader in child processes, a new one after each that dies. */
function runLoaderFile(
  folder: string,
  file: string,
  count: number,
  workDir: string,
  field: string,
): LoaderResult[] {
  const results = new Map<number, LoaderResult>();
  const script = fileURLToPath(import.meta.url);
  let remaining = Array.from({ length: count }, (_, index) => index);
  for (let attempt = 1; remaining.length > 0; attempt += 1) {
    const stem = join(workDir, `${file.replace(/[^\w.-]/g, '_')}.loader.${attempt}`);
    writeFileSync(`${stem}.json`, JSON.stringify(remaining));
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, script, '--loader-worker', folder, file, `${stem}.json`, `${stem}.log`, field],
      { env: { ...process.env, TZ: 'UTC' }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    const started = new Set<number>();
    let text = '';
    try {
      text = readFileSync(`${stem}.log`, 'utf8');
    } catch {
      // The child died before it opened its log.
    }
    for (const line of text.split('\n').filter(Boolean)) {
      const entry = JSON.parse(line) as { start?: number; loaded?: number } & LoaderResult;
      if (entry.start !== undefined) started.add(entry.start);
      else if (entry.loaded !== undefined) started.delete(entry.loaded);
      else results.set(entry.index, entry);
    }
    const before = remaining.length;
    remaining = remaining.filter((index) => !results.has(index));
    if (remaining.length === 0) break;
    const stderr = (child.stderr ?? '').trim().split('\n').slice(-3).join(' | ').slice(0, 300);
    const signal = child.signal ?? `exit code ${child.status}`;
    // The case the process died in (started, not loaded); or, when it died elsewhere, the first one left.
    const culprit = [...started][0] ?? (remaining.length === before ? remaining[0] : undefined);
    if (culprit !== undefined) {
      results.set(culprit, { index: culprit, outcome: 'aborted', why: `${signal}: ${stderr}` });
      remaining = remaining.filter((index) => index !== culprit);
    }
  }
  return [...results.values()].sort((a, b) => a.index - b.index);
}

/** A refusal's reason without what is particular to the case: the node, the cell and the values it names. */
function refusalGroup(message: string): string {
  return message
    .replace(/^node "Caso"(, row \d+)?(, (column|expression|output) "[^"]*")?: /, '')
    .replace(/^"(?:[^"\\]|\\.)*" does not compile: /, 'does not compile: ')
    .replace(/the number \S+ is refused/, 'the number N is refused')
    .replace(/"(?:[^"\\]|\\.)*"|`[^`]*`|'[^']*'/g, '…')
    .replace(/\b\d+(\.\d+)?\b/g, 'N')
    .slice(0, 140);
}

function caseLine(c: ZenCase, r: LoaderResult): string {
  const direct = r.zenDirect === 'passes' ? '' : ` (ZEN directly: ${r.zenDirect})`;
  const dropped = r.readsNull ? ' [reads a name the decision input lacks: null]' : '';
  const why = r.why ? `: ${r.why.slice(0, 160)}` : '';
  return (
    `${c.file}:${c.line} ${c.expression}  input=${show(c.input)} expected=${show(c.expected)} ⇒ ${r.expected}; ` +
    `product ${r.decided} ${show(r.reasons)}${why}${direct}${dropped}`
  );
}

function printLoaderReport(cases: readonly ZenCase[], byFile: Map<string, LoaderResult[]>): void {
  const refusals = new Map<string, string[]>();
  const dangerous: string[] = [];
  const declined: string[] = [];
  const outcomes: LoaderOutcome[] = ['agrees', 'refused', 'review', 'differs', 'errored', 'aborted'];
  for (const [file, results] of byFile) {
    const fileCases = cases.filter((c) => c.file === file);
    const count = (outcome: LoaderOutcome) => results.filter((r) => r.outcome === outcome).length;
    const unexpressible = new Map<string, number>();
    for (const r of results.filter((r) => r.outcome === 'unexpressible'))
      unexpressible.set(r.why ?? '', (unexpressible.get(r.why ?? '') ?? 0) + 1);
    const off = results.filter((r) => r.outcome === 'review' || r.outcome === 'differs');
    console.log(
      `\n${file}: ${results.length} cases, ${count('unexpressible')} not expressible; of the rest ` +
        outcomes.map((o) => `${count(o)} ${o === 'review' ? 'review instead' : o}`).join(', '),
    );
    for (const [why, n] of unexpressible) console.log(`  not expressible: ${n} ${why}`);
    console.log(
      `  of the ${off.length} review/differs: ${off.filter((r) => r.readsNull).length} read a name the decision ` +
        `input lacks (null); ${off.filter((r) => r.zenDirect !== 'passes').length} ZEN itself misses directly`,
    );
    for (const r of results) {
      const c = fileCases[r.index] as ZenCase;
      if (r.outcome === 'refused') {
        const key = `${file}: ${refusalGroup(r.why ?? '')}`;
        refusals.set(key, [...(refusals.get(key) ?? []), `${c.expression} → ${r.why}`]);
      }
      if (r.outcome === 'differs' && r.decided === 'approve') dangerous.push(caseLine(c, r));
      if (r.outcome === 'differs' && r.decided === 'decline') declined.push(caseLine(c, r));
    }
    for (const kind of ['differs', 'review', 'errored', 'aborted'] as const) {
      const listed = results.filter((r) => r.outcome === kind);
      if (listed.length === 0) continue;
      console.log(`  ${kind} (${listed.length}; first ${Math.min(SHOWN_PER_FILE, listed.length)}):`);
      for (const r of listed.slice(0, SHOWN_PER_FILE))
        console.log(`    ${caseLine(fileCases[r.index] as ZenCase, r)}`);
    }
  }
  console.log('\nRefusals by reason (count, then up to 3 examples):');
  for (const [group, examples] of [...refusals].sort((a, b) => b[1].length - a[1].length)) {
    console.log(`  ${examples.length}  ${group}`);
    for (const example of examples.slice(0, 3)) console.log(`       ${example.slice(0, 220)}`);
  }
  console.log(`\nThe product APPROVES where ZEN's expectation says decline (${dangerous.length}):`);
  for (const line of dangerous) console.log(`  ${line}`);
  console.log(`\nThe product DECLINES where ZEN's expectation says approve (${declined.length}):`);
  for (const line of declined) console.log(`  ${line}`);
}

async function mainThroughLoader(folder: string, field: string): Promise<void> {
  const { cases } = readZenCaseFiles(folder);
  const files = [...new Set(cases.map((c) => c.file))];
  const workDir = mkdtempSync(join(tmpdir(), 'zen-replay-loader-'));
  const byFile = new Map<string, LoaderResult[]>();
  try {
    for (const file of files) {
      const started = Date.now();
      const count = cases.filter((c) => c.file === file).length;
      byFile.set(file, runLoaderFile(folder, file, count, workDir, field));
      console.error(`${file}: ${count} cases through the loader in ${Date.now() - started} ms`);
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  console.log(`Through the product's loader (unary column field: ${field}); TZ=UTC.`);
  printLoaderReport(cases, byFile);
}

async function main(argv: readonly string[]): Promise<void> {
  if (argv[0] === '--worker') {
    const [, folder = '', file = '', from = '0', logPath = ''] = argv;
    await runWorker(folder, file, Number(from), logPath);
    return;
  }
  if (argv[0] === '--loader-worker') {
    const [, folder = '', file = '', listPath = '', logPath = '', field = 'valor'] = argv;
    await runLoaderWorker(folder, file, listPath, logPath, field);
    return;
  }
  if (argv.includes('--through-loader')) {
    const positional = argv.filter((arg) => !arg.startsWith('--'));
    const field = argv.find((arg) => arg.startsWith('--unary-field='))?.slice('--unary-field='.length);
    await mainThroughLoader(resolve(positional[0] ?? ''), field || 'valor');
    process.exit(0);
  }
  const folder = resolve(argv[0] ?? '');
  if (!argv[0]) {
    console.error('usage: npx tsx scripts/replay-zen-test-cases.ts <folder of the extracted zen repository>');
    process.exitCode = 2;
    return;
  }
  const maxShown = Number(argv[1] ?? 15);
  const { cases, skipped } = readZenCaseFiles(folder);
  const files = [...new Set(cases.map((c) => c.file))];
  const workDir = mkdtempSync(join(tmpdir(), 'zen-replay-'));
  const totals: Record<Outcome, number> = { passed: 0, failed: 0, errored: 0, aborted: 0 };
  const problems: string[] = [];
  const abortLines: string[] = [];
  try {
    for (const file of files) {
      const fileCases = cases.filter((c) => c.file === file);
      const started = Date.now();
      const { results } = runFile(folder, file, fileCases.length, workDir);
      const counts: Record<Outcome, number> = { passed: 0, failed: 0, errored: 0, aborted: 0 };
      for (const result of results.sort((a, b) => a.index - b.index)) {
        counts[result.outcome] += 1;
        totals[result.outcome] += 1;
        if (result.outcome === 'passed') continue;
        const c = fileCases[result.index] as ZenCase;
        const where = `${c.file}:${c.line} [${c.kind}] ${c.expression}  input=${show(c.input)}`;
        if (result.outcome === 'aborted') abortLines.push(`${where}\n    ${result.error}`);
        else {
          const got = result.outcome === 'failed' ? `got ${result.actual}` : `threw ${result.error}`;
          problems.push(`${result.outcome.toUpperCase()} ${where}\n    expected ${show(c.expected)}, ${got}`);
        }
      }
      console.log(
        `${file}: ${fileCases.length} cases, ${counts.passed} passed, ${counts.failed} failed, ` +
          `${counts.errored} errored, ${counts.aborted} aborted (${Date.now() - started} ms)`,
      );
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  console.log(
    `TOTAL: ${cases.length} cases, ${totals.passed} passed, ${totals.failed} failed, ` +
      `${totals.errored} errored, ${totals.aborted} aborted the process`,
  );
  console.log(`\nRecords ZEN's harness skips too (${skipped.length}):`);
  for (const s of skipped) console.log(`  ${s.file}:${s.line} ${s.reason}: ${s.text}`);
  console.log(`\nCases that abort the process (${abortLines.length}):`);
  for (const line of abortLines) console.log(`  ${line}`);
  console.log(`\nMismatches and errors (${problems.length}; first ${Math.min(maxShown, problems.length)}):`);
  for (const line of problems.slice(0, maxShown)) console.log(`  ${line}`);
}

const invokedAs = process.argv[1] ? resolve(process.argv[1]) : '';
if (invokedAs === fileURLToPath(import.meta.url)) {
  await main(process.argv.slice(2));
}
