/**
 * A JDM graph compiled to JavaScript closures, answering what ZEN answers for it (zen-engine 0.54.0) at a small part
 * of the cost: a call into ZEN through its Node binding costs about 55 µs before it evaluates anything, which holds
 * `credit-screen decide` far below the 20,000 decisions a second a re-decision of a large portfolio needs.
 *
 * ZEN stays the reference. The loader compiles a policy only when every node and expression is in what this module
 * reproduces (else {@link compileGraph} answers null and ZEN evaluates everything); an evaluation that meets anything
 * it is not sure of throws {@link DeferToZen}, and the caller asks ZEN for that one; the caller also checks a sample
 * of answers against ZEN (zen-credit-policy.ts). How ZEN walks a graph, as measured and as its source reads
 * (`decision_graph/walker.rs`):
 *
 * - nodes are evaluated after all the nodes that feed them; a node's input is the merge of what they gave;
 * - a switch passes its input on and keeps only the edges of the statements taken (`first`: the first true one,
 *   `collect`: all); a statement that fails is false; nodes left without an input are not evaluated;
 * - a decision table matches a row when every non-empty cell holds (a cell that fails does not) and every non-empty
 *   output evaluates; `first` answers the first row's outputs or null, `collect` the list of them;
 * - an expression node writes each key in order; one that fails fails the evaluation (left to ZEN, for its message);
 * - `outputPath` nests the output under a path, `passThrough` merges it over the node's input;
 * - the answer is the output node's input.
 *
 * Compiled only: one input and one output node, every other node fed and feeding (no dead end, no orphan), no cycle,
 * no `inputField` or `loop`.
 */
import type { JdmGraph, JdmNode } from '../jdm-model.ts';
import {
  type Compiled,
  compileStandard,
  compileUnary,
  type Scope,
  Unsupported,
} from './expression-compiler.ts';
import {
  DEFER,
  DeferToZen,
  dotInsert,
  isObject,
  merge,
  mergeInputs,
  type ZenValue,
  ZenVmError,
} from './zen-semantics.ts';

/** One cell of a row: whether it holds, given the scope of its column (the node's input and the column's value). */
type Cell = { readonly column: number; readonly holds: (scope: Scope) => boolean };

/** A row compiled; null when a cell is missing (ZEN never matches such a row). */
type Row = {
  readonly cells: readonly Cell[];
  readonly outputs: readonly { readonly field: string; readonly value: Compiled }[];
} | null;

interface Step {
  readonly index: number;
  /** Edges in: the source's index and, from a switch, the statement the edge belongs to. */
  readonly incoming: readonly { readonly source: number; readonly handle: string | null }[];
  /** A node's own work on its input. */
  readonly run: (input: Record<string, ZenValue>) => ZenValue;
  /** A switch's: the statements it took. */
  readonly statements?: (input: Record<string, ZenValue>) => ReadonlySet<string>;
}

const NO_INPUT: Record<string, ZenValue> = {};

type TableContent = Extract<JdmNode, { type: 'decisionTableNode' }>['content'];

function tableCell(text: string, column: number, field: Compiled | null): Cell {
  if (field === null) {
    const condition = compileStandard(text);
    return { column, holds: (scope) => condition(scope) === true };
  }
  return { column, holds: compileUnary(text) };
}

function compileRow(
  rule: Record<string, unknown>,
  content: TableContent,
  fields: readonly (Compiled | null)[],
): Row {
  const cells: Cell[] = [];
  for (const [column, input] of content.inputs.entries()) {
    const text = rule[input.id];
    if (typeof text !== 'string') return null;
    if (text.trim() !== '') cells.push(tableCell(text, column, fields[column] ?? null));
  }
  const outputs: { field: string; value: Compiled }[] = [];
  for (const column of content.outputs) {
    const text = rule[column.id];
    if (typeof text !== 'string') return null;
    if (text.trim() !== '') outputs.push({ field: column.field, value: compileStandard(text) });
  }
  return { cells, outputs };
}

/** The row's output, or null when a cell does not hold or a cell or output fails. */
function matchRow(
  row: NonNullable<Row>,
  scopes: readonly (Scope | null)[],
  plain: Scope,
): Record<string, ZenValue> | null {
  try {
    for (const cell of row.cells) {
      // A column whose field fails fails every non-empty cell of it.
      const scope = scopes[cell.column];
      if (scope === null || scope === undefined || !cell.holds(scope)) return null;
    }
    const output: Record<string, ZenValue> = {};
    for (const { field, value } of row.outputs) dotInsert(output, field, value(plain));
    return output;
  } catch (error) {
    if (error instanceof ZenVmError) return null;
    throw error;
  }
}

function compileTable(node: Extract<JdmNode, { type: 'decisionTableNode' }>): Step['run'] {
  const { content } = node;
  const fields = content.inputs.map((input) =>
    input.field === null || input.field === undefined || input.field.trim() === ''
      ? null
      : compileStandard(input.field),
  );
  const rows = content.rules.map((rule) => compileRow(rule, content, fields));
  const first = content.hitPolicy === 'first';
  return (input) => {
    const plain: Scope = { input, reference: null };
    // Each column's value once per evaluation (ZEN reads it per cell: the same value, as reading is pure).
    const scopes = fields.map((field): Scope | null => {
      if (field === null) return plain;
      try {
        return { input, reference: field(plain) };
      } catch (error) {
        if (error instanceof ZenVmError) return null;
        throw error;
      }
    });
    const outputs: ZenValue[] = [];
    for (const row of rows) {
      const output = row && matchRow(row, scopes, plain);
      if (output === null) continue;
      if (first) return output;
      outputs.push(output);
    }
    return first ? null : outputs;
  };
}

function compileExpressions(node: Extract<JdmNode, { type: 'expressionNode' }>): Step['run'] {
  const items = node.content.expressions
    .filter((item) => item.key !== '' && item.value !== '')
    .map((item) => ({ key: item.key, value: compileStandard(item.value) }));
  return (input) => {
    const output: Record<string, ZenValue> = {};
    try {
      for (const { key, value } of items) dotInsert(output, key, value({ input, reference: null }));
    } catch (error) {
      // ZEN fails the whole evaluation here; its answer (and its message) is the one given.
      if (error instanceof ZenVmError) throw DEFER;
      throw error;
    }
    return output;
  };
}

function compileSwitch(node: Extract<JdmNode, { type: 'switchNode' }>): Step['statements'] {
  const statements = node.content.statements.map((statement) => ({
    id: statement.id,
    holds:
      statement.condition === ''
        ? () => true
        : ((condition: Compiled) => (input: Record<string, ZenValue>) => {
            try {
              return condition({ input, reference: null }) === true;
            } catch (error) {
              if (error instanceof ZenVmError) return false;
              throw error;
            }
          })(compileStandard(statement.condition)),
  }));
  const first = node.content.hitPolicy !== 'collect';
  return (input) => {
    const taken = new Set<string>();
    for (const statement of statements) {
      if (!statement.holds(input)) continue;
      taken.add(statement.id);
      if (first) break;
    }
    return taken;
  };
}

/** Wraps a node's own work with its transform: `outputPath`, then `passThrough`. */
function withTransform(run: Step['run'], node: JdmNode): Step['run'] {
  if (node.type !== 'decisionTableNode' && node.type !== 'expressionNode') return run;
  const { passThrough, outputPath, inputField, executionMode } = node.content;
  if ((inputField ?? '') !== '' || (executionMode ?? 'single') !== 'single')
    throw new Unsupported('inputField or loop');
  const path = outputPath ?? '';
  return (input) => {
    let output = run(input);
    if (path !== '') {
      if (output === null && path.includes('.')) throw DEFER;
      const nested: Record<string, ZenValue> = {};
      dotInsert(nested, path, output);
      output = nested;
    }
    return passThrough === true ? merge(input, output) : output;
  };
}

/** The nodes in an order where each comes after those that feed it, or null when the graph has a cycle. */
function topologicalOrder(
  count: number,
  edges: readonly { source: number; target: number }[],
): number[] | null {
  const waiting = new Array<number>(count).fill(0);
  for (const edge of edges) waiting[edge.target] = (waiting[edge.target] as number) + 1;
  const ready = [...waiting.keys()].filter((index) => waiting[index] === 0);
  const order: number[] = [];
  while (ready.length > 0) {
    const index = ready.shift() as number;
    order.push(index);
    for (const edge of edges) {
      if (edge.source !== index) continue;
      waiting[edge.target] = (waiting[edge.target] as number) - 1;
      if (waiting[edge.target] === 0) ready.push(edge.target);
    }
  }
  return order.length === count ? order : null;
}

function stepOf(node: JdmNode, index: number, incoming: Step['incoming']): Step {
  switch (node.type) {
    case 'decisionTableNode':
      return { index, incoming, run: withTransform(compileTable(node), node) };
    case 'expressionNode':
      return { index, incoming, run: withTransform(compileExpressions(node), node) };
    case 'switchNode':
      return { index, incoming, run: (input) => input, statements: compileSwitch(node) };
    default:
      return { index, incoming, run: (input) => input };
  }
}

/** A policy's graph as closures: `evaluate` answers ZEN's result for a context, or throws {@link DeferToZen}. */
export interface CompiledGraph {
  evaluate(context: Record<string, ZenValue>): ZenValue;
}

function shapeOf(graph: JdmGraph) {
  const index = new Map(graph.nodes.map((node, position) => [node.id, position]));
  const edges = graph.edges.map((edge) => {
    const source = index.get(edge.sourceId);
    const target = index.get(edge.targetId);
    if (source === undefined || target === undefined) throw new Unsupported('an edge to a missing node');
    return { source, target, handle: edge.sourceHandle ?? null };
  });
  const inputs = graph.nodes.flatMap((node, position) => (node.type === 'inputNode' ? [position] : []));
  const outputs = graph.nodes.flatMap((node, position) => (node.type === 'outputNode' ? [position] : []));
  if (inputs.length !== 1 || outputs.length !== 1) throw new Unsupported('one input and one output node');
  graph.nodes.forEach((node, position) => {
    const feeds = edges.some((edge) => edge.source === position);
    const fed = edges.some((edge) => edge.target === position);
    if (node.type !== 'outputNode' && !feeds) throw new Unsupported('a dead end');
    if (node.type !== 'inputNode' && !fed) throw new Unsupported('a node nothing feeds');
    if (node.type === 'outputNode' && feeds) throw new Unsupported('an output node that feeds');
  });
  const order = topologicalOrder(graph.nodes.length, edges);
  if (order === null) throw new Unsupported('a cycle');
  return { edges, input: inputs[0] as number, output: outputs[0] as number, order };
}

/**
 * Compiles a policy's graph (as the loader checked and marked it), or answers null when anything in it is outside
 * what the compiled evaluator reproduces.
 */
export function compileGraph(graph: JdmGraph): CompiledGraph | null {
  try {
    const { edges, input, output, order } = shapeOf(graph);
    const steps = order.map((position) => {
      const incoming = edges.filter((edge) => edge.target === position);
      return stepOf(graph.nodes[position] as JdmNode, position, incoming);
    });
    return { evaluate: (context) => evaluateSteps(steps, graph.nodes.length, input, output, context) };
  } catch (error) {
    if (error instanceof Unsupported) return null;
    throw error;
  }
}

function evaluateSteps(
  steps: readonly Step[],
  count: number,
  input: number,
  output: number,
  context: Record<string, ZenValue>,
): ZenValue {
  const data = new Array<ZenValue | undefined>(count);
  const taken = new Array<ReadonlySet<string> | undefined>(count);
  for (const step of steps) {
    if (step.index === input) {
      data[input] = context;
      continue;
    }
    const sources: ZenValue[] = [];
    for (const edge of step.incoming) {
      const value = data[edge.source];
      if (value === undefined) continue;
      const statements = taken[edge.source];
      if (statements !== undefined && (edge.handle === null || !statements.has(edge.handle))) continue;
      sources.push(value);
    }
    if (sources.length === 0) continue;
    // One input is taken as it is: ZEN's copy of it differs only by its null keys, which read as null all the same
    // (the answer's are dropped below, as ZEN's merge drops them).
    const merged = sources.length === 1 ? (sources[0] as ZenValue) : mergeInputs(sources);
    const nodeInput = isObject(merged) ? merged : NO_INPUT;
    if (!isObject(merged) && merged !== null) throw DEFER;
    if (step.statements) taken[step.index] = step.statements(nodeInput);
    data[step.index] = step.run(nodeInput);
  }
  const answer = data[output];
  if (answer === undefined) throw DEFER;
  return merge({}, answer);
}

export { DeferToZen };
