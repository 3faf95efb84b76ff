/**
 * Compiles every cell and expression of a node at load and rewrites its rules so that none fails silently.
 *
 * ZEN (0.54.0) skips a decision-table row, or a switch branch, whose expression fails, and goes on: a null score
 * compared with `< 600` skips its row and a catch-all row after it approves. Each cell is compiled here with sample
 * values of the kinds its fields can have ({@link probe}); the kinds a cell fails on (usually null, or a text where
 * it compares a number) become a test such as `type(score) == "null"`. A row with such cells gets guard rows just
 * before it: the same row with the failing cells replaced by their tests (in a column of the loader's, evaluated
 * first), one guard per combination of failing cells, and no outputs. A guard that matches stops a `first` table
 * where the row would have been decided (in a `collect` table it adds an empty result); its id in the trace tells
 * the evaluator which rule could not be evaluated and why, and the row becomes `review` with `MISSING_DATA` —
 * never a silent approval. A switch statement gets one guard statement before it. Expression nodes need no guard:
 * ZEN fails the whole evaluation there (a `POLICY_ERROR` review). Rows whose cells cannot fail cost nothing more.
 */
import { evaluateExpressionSync } from '@gorules/zen-engine';
import { DECISION_VALUES } from '../../domain/decision/index.ts';
import { type ProbeResult, probe } from './cell-probe.ts';
import { pathExpression, pathsRead } from './expression-paths.ts';
import { kindsAt, type Names, PolicyRefused } from './graph-shape.ts';
import { type DecisionTableNode, type JdmNode, nodeLabel, type SwitchNode } from './jdm-model.ts';

/** Where a guard came from: the rule it stands for and the fields that make it match. */
interface GuardOrigin {
  readonly rule: string;
  readonly row: number | null;
  readonly fields: readonly string[];
}

/** A node's rules as the trace names them: original rows by id, and the guards the loader added. */
export interface NodeRules {
  readonly rows: ReadonlyMap<string, { readonly row: number; readonly description: string | null }>;
  readonly guards: ReadonlyMap<string, GuardOrigin>;
}

/** A node of the policy as the loader checked it: the node to evaluate, its rules, and the paths it reads. */
export interface CheckedNode {
  readonly node: JdmNode;
  readonly rules: NodeRules | null;
  readonly paths: readonly (readonly string[])[];
}

/** The column the guard tests go in: first, so that a guard row that does not apply stops at its first cell. */
const GUARD_COLUMN = 'credit-screen-guard';
const GUARD_MARK = '~unknown~';
/** A row with more cells that can fail than this would need 2^n guard rows: it is refused. */
const MAX_GUARDED_CELLS = 5;
/** A table column's field: a path (`score`, `input.requested_amount`, `input["valor solicitado"]`). */
const SIMPLE_PATH = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\["[^"]*"\])*$/;

/**
 * zen-engine 0.54.0 does not fail on a remainder by zero (`x % 0`): it panics, and the panic aborts the whole Node
 * process (measured), a worker included. The operator is refused until ZEN fails on it as it fails elsewhere.
 */
const REMAINDER_REFUSED =
  'the remainder operator % is refused: zen-engine 0.54.0 stops the whole process on a remainder by zero';

/** Whether an expression's code (its strings' text set aside, a template's `${…}` kept) uses `%`. */
function usesRemainder(expression: string): boolean {
  const code = expression
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/`(?:[^`\\]|\\.)*`/g, (template) =>
      [...template.matchAll(/\$\{([^}]*)\}/g)].map((part) => part[1]).join(' '),
    );
  return code.includes('%');
}

/**
 * The numbers a policy may write: as many digits as a double holds exactly, and magnitudes whose products and
 * quotients with the decision input's figures stay inside ZEN's 28-digit decimals. Measured: a literal of 29 digits
 * multiplied by itself, or a division by 0.0000000000000000000000000001, aborts the process that evaluates it; the
 * cells are compiled here, in the loader's own process, so such a literal is refused before it is ever evaluated.
 */
const LITERAL_DIGITS = 15;
const LITERAL_LARGEST = 1e15;
const LITERAL_SMALLEST = 1e-9;
const NUMBER_LITERAL = /(?<![\w.])(\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)(?![\w.])/g;

/** The first number written in an expression's code (strings set aside) that ZEN could not hold safely, or null. */
function unsafeLiteral(expression: string): string | null {
  const code = expression.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
  for (const [literal] of code.matchAll(NUMBER_LITERAL)) {
    const digits = literal
      .replace(/[eE].*$/, '')
      .replace(/[._]/g, '')
      .replace(/^0+/, '')
      .replace(/0+$/, '');
    const value = Number(literal.replace(/_/g, ''));
    const magnitude = Math.abs(value);
    if (
      digits.length > LITERAL_DIGITS ||
      !Number.isFinite(value) ||
      magnitude >= LITERAL_LARGEST ||
      (magnitude !== 0 && magnitude < LITERAL_SMALLEST)
    )
      return literal;
  }
  return null;
}

class Reader {
  readonly paths = new Map<string, readonly string[]>();
  constructor(readonly names: Names) {}

  probe(expression: string, mode: 'unary' | 'standard', reference: readonly string[] | null): ProbeResult {
    if (usesRemainder(expression)) return { ok: false, error: REMAINDER_REFUSED };
    const literal = unsafeLiteral(expression);
    if (literal !== null)
      return {
        ok: false,
        error: `the number ${literal.length > 40 ? `${literal.slice(0, 40)}…` : literal} is refused: a policy's numbers have at most ${LITERAL_DIGITS} digits and lie between ${LITERAL_SMALLEST} and ${LITERAL_LARGEST} (ZEN's decimals overflow beyond, and stop the process)`,
      };
    const all = pathsRead(expression);
    const own = all.filter((path) => path[0] !== '$');
    const known = new Set(own.map(pathExpression));
    const paths = reference && !known.has(pathExpression(reference)) ? [reference, ...own] : own;
    if (mode === 'standard' && all.some((path) => path.length === 1 && path[0] === '$'))
      this.paths.set('$', ['$']);
    for (const path of paths) this.paths.set(pathExpression(path), path);
    return probe({ expression, mode, reference, paths }, (path) => kindsAt(this.names, path));
  }
}

const isDecisionField = (field: string) => field === 'decision' || field.endsWith('.decision');

/** A literal decision (`"maybe"`) is refused when the policy is loaded rather than on every row. */
function checkLiteralDecision(expression: string, where: string): void {
  if (pathsRead(expression).length > 0) return;
  let value: unknown;
  try {
    value = evaluateExpressionSync(expression, {});
  } catch {
    return;
  }
  if (typeof value === 'string' && !(DECISION_VALUES as readonly string[]).includes(value)) {
    throw new PolicyRefused(`${where}: decision ${JSON.stringify(value)} is not approve, review or decline`);
  }
}

interface Guardable {
  readonly column: string | null;
  readonly failsWhen: string;
  readonly fields: readonly string[];
}

function cellText(rule: Record<string, unknown>, column: string, where: string): string {
  const cell = rule[column];
  if (typeof cell !== 'string') throw new PolicyRefused(`${where}: the row has no cell for this column`);
  return cell.trim();
}

/** The cells of one row that can fail, refusing any that does not compile. */
function rowGuardables(table: DecisionTableNode, rule: Record<string, unknown>, row: number, reader: Reader) {
  const { inputs, outputs } = table.content;
  const label = `${nodeLabel(table)}, row ${row}`;
  const guardables: Guardable[] = [];
  for (const input of inputs) {
    const where = `${label}, column "${input.name ?? input.id}"`;
    const cell = cellText(rule, input.id, where);
    if (cell === '') continue;
    if (input.field && !SIMPLE_PATH.test(input.field.trim())) {
      throw new PolicyRefused(
        `${where}: the column's field "${input.field}" is not a path such as input.amount`,
      );
    }
    const reference = input.field ? (pathsRead(input.field.trim())[0] ?? null) : null;
    const result = reader.probe(cell, reference ? 'unary' : 'standard', reference);
    if (!result.ok)
      throw new PolicyRefused(`${where}: ${JSON.stringify(cell)} does not compile: ${result.error}`);
    if (result.failsWhen)
      guardables.push({ column: input.id, failsWhen: result.failsWhen, fields: result.failingPaths });
  }
  const outputFailures: Guardable[] = [];
  for (const output of outputs) {
    const where = `${label}, output "${output.name ?? output.field}"`;
    const cell = cellText(rule, output.id, where);
    if (cell === '') continue;
    const result = reader.probe(cell, 'standard', null);
    if (!result.ok)
      throw new PolicyRefused(`${where}: ${JSON.stringify(cell)} does not compile: ${result.error}`);
    if (isDecisionField(output.field)) checkLiteralDecision(cell, where);
    if (result.failsWhen)
      outputFailures.push({ column: null, failsWhen: result.failsWhen, fields: result.failingPaths });
  }
  if (outputFailures.length > 0) {
    guardables.push({
      column: null,
      failsWhen: outputFailures.map((failure) => `(${failure.failsWhen})`).join(' or '),
      fields: [...new Set(outputFailures.flatMap((failure) => failure.fields))],
    });
  }
  if (guardables.length > MAX_GUARDED_CELLS) {
    throw new PolicyRefused(
      `${label}: ${guardables.length} cells can fail on missing data (at most ${MAX_GUARDED_CELLS}): split the rule`,
    );
  }
  return guardables;
}

/** Guard rows for one row: one per non-empty combination of its failing cells. */
function guardRows(
  table: DecisionTableNode,
  rule: Record<string, unknown>,
  id: string,
  guardables: readonly Guardable[],
): { rows: Record<string, unknown>[]; origins: [string, readonly string[]][] } {
  const rows: Record<string, unknown>[] = [];
  const origins: [string, readonly string[]][] = [];
  for (let mask = 1; mask < 1 << guardables.length; mask += 1) {
    const chosen = guardables.filter((_, index) => mask & (1 << index));
    const guardId = `${id}${GUARD_MARK}${mask}`;
    const guard: Record<string, unknown> = {
      _id: guardId,
      [GUARD_COLUMN]: chosen.map((g) => `(${g.failsWhen})`).join(' and '),
    };
    for (const input of table.content.inputs) {
      guard[input.id] = chosen.some((g) => g.column === input.id) ? '' : rule[input.id];
    }
    for (const output of table.content.outputs) guard[output.id] = '';
    rows.push(guard);
    origins.push([guardId, [...new Set(chosen.flatMap((g) => g.fields))]]);
  }
  return { rows, origins };
}

function checkTable(table: DecisionTableNode, reader: Reader): CheckedNode {
  const rows = new Map<string, { row: number; description: string | null }>();
  const guards = new Map<string, GuardOrigin>();
  const rewritten: Record<string, unknown>[] = [];
  table.content.rules.forEach((rule, index) => {
    const row = index + 1;
    const id = typeof rule._id === 'string' && rule._id !== '' ? rule._id : `row-${row}`;
    if (rows.has(id)) throw new PolicyRefused(`${nodeLabel(table)}, row ${row}: its _id ${id} is used twice`);
    rows.set(id, { row, description: typeof rule._description === 'string' ? rule._description : null });
    const guarded = guardRows(table, rule, id, rowGuardables(table, rule, row, reader));
    for (const [guardId, fields] of guarded.origins) guards.set(guardId, { rule: id, row, fields });
    rewritten.push(...guarded.rows, { ...rule, _id: id, [GUARD_COLUMN]: '' });
  });
  const content = {
    ...table.content,
    inputs: [{ id: GUARD_COLUMN, name: 'credit-screen guard' }, ...table.content.inputs],
    rules: rewritten,
  };
  return { node: { ...table, content }, rules: { rows, guards }, paths: [...reader.paths.values()] };
}

function checkSwitch(node: SwitchNode, reader: Reader): CheckedNode {
  const guards = new Map<string, GuardOrigin>();
  const statements = node.content.statements.flatMap((statement) => {
    const condition = statement.condition.trim();
    if (condition === '') return [statement];
    const result = reader.probe(condition, 'standard', null);
    if (!result.ok) {
      throw new PolicyRefused(
        `${nodeLabel(node)}, condition ${statement.id}: ${JSON.stringify(condition)} does not compile: ${result.error}`,
      );
    }
    if (!result.failsWhen) return [statement];
    const guardId = `${statement.id}${GUARD_MARK}`;
    guards.set(guardId, { rule: statement.id, row: null, fields: result.failingPaths });
    return [{ id: guardId, condition: result.failsWhen }, statement];
  });
  return {
    node: { ...node, content: { ...node.content, statements } },
    rules: { rows: new Map(), guards },
    paths: [...reader.paths.values()],
  };
}

function checkExpressions(node: Extract<JdmNode, { type: 'expressionNode' }>, reader: Reader): CheckedNode {
  for (const item of node.content.expressions) {
    if (item.key === '' || item.value.trim() === '') continue;
    const where = `${nodeLabel(node)}, expression "${item.key}"`;
    const result = reader.probe(item.value, 'standard', null);
    if (!result.ok)
      throw new PolicyRefused(`${where}: ${JSON.stringify(item.value)} does not compile: ${result.error}`);
    if (isDecisionField(item.key)) checkLiteralDecision(item.value, where);
  }
  return { node, rules: null, paths: [...reader.paths.values()] };
}

/** Checks one node with the names that reach it, and rewrites its rules with guards. */
export function checkNode(node: JdmNode, names: Names): CheckedNode {
  const reader = new Reader(names);
  switch (node.type) {
    case 'decisionTableNode':
      return checkTable(node, reader);
    case 'switchNode':
      return checkSwitch(node, reader);
    case 'expressionNode':
      return checkExpressions(node, reader);
    default:
      return { node, rules: null, paths: [] };
  }
}

/** Whether a node writes a `decision` field (a table's output column, an expression's key). */
export function writesDecision(node: JdmNode): boolean {
  if (node.type === 'decisionTableNode')
    return node.content.outputs.some((output) => isDecisionField(output.field));
  if (node.type === 'expressionNode')
    return node.content.expressions.some((item) => isDecisionField(item.key));
  return false;
}
