/**
 * Which rules fired, without ZEN's trace. The trace is most of an evaluation's cost (it copies every node's whole
 * input and output into JavaScript objects: ~370 µs per decision against ~110 µs without it, bench/results/decide.md),
 * so the loader gives the policy a second, marked form that says which rules fired in its own answer:
 *
 * - every decision-table row (the policy's and the guards the loader added) writes its mark in a hidden output
 *   column (`credit-screen-fired-<node>`), the row's number in {@link FiredMarks.marks};
 * - every switch statement gets a hidden expression node on its branch that writes the statement's mark and leads
 *   straight to the output node.
 *
 * The adapter reads the marks out of the answer (and removes them) instead of reading the trace. A policy is marked
 * only when every mark is sure to reach the answer and no expression can see one: every table's results reach the
 * output node through pass-through nodes only (no switch after it, no dead end), no collect table answers a bare list,
 * and no expression reads objects whole (`keys`, `values`, `len`, `$`). Otherwise ({@link markFiredRules} answers
 * null) the policy is evaluated with the trace, as before.
 *
 * Marks say which rules fired, not in which order the engine evaluated their nodes; that order depends only on which
 * switch statements were taken, so the adapter learns it from one traced evaluation per set of switch statements and
 * checks there that both forms agree (see zen-credit-policy.ts).
 */
import type { CheckedNode } from './guard-rules.ts';
import type { JdmGraph, JdmNode } from './jdm-model.ts';

/** The reserved prefix of every mark's key (a policy's own fields never start with it: see {@link markFiredRules}). */
const MARK_PREFIX = 'credit-screen-fired-';
const MARK_COLUMN = 'credit-screen-fired';

/** One mark: the rule (a table row's `_id`, a statement's id) of a node. */
interface Mark {
  readonly nodeId: string;
  readonly rule: string;
  /** Whether it is a switch statement (whose mark tells the branch taken). */
  readonly statement: boolean;
}

export interface FiredMarks {
  /** The marked graph, to evaluate without the trace. */
  readonly graph: JdmGraph;
  /** Each mark's rule, by the number the answer carries. */
  readonly marks: readonly Mark[];
}

/** Functions that could see a mark inside an object (a policy using them is evaluated with the trace). */
const READS_OBJECTS = /\b(?:keys|values|len|merge|mergeDeep)\s*\(/;
/** `$` in a standard expression: the whole input. (In a table's input cell it is the column's value.) */
const READS_ROOT = /(?<![\w$.])\$(?![\w$])/;

/** Whether an expression of a node could see a mark: an object read whole, or a mark's key named. */
function couldSeeMarks(node: JdmNode): boolean {
  const texts: { text: string; standard: boolean }[] = [];
  if (node.type === 'decisionTableNode') {
    const unary = new Set(node.content.inputs.filter((input) => input.field).map((input) => input.id));
    for (const rule of node.content.rules) {
      for (const [key, cell] of Object.entries(rule)) {
        if (typeof cell === 'string' && !key.startsWith('_'))
          texts.push({ text: cell, standard: !unary.has(key) });
      }
    }
  }
  if (node.type === 'expressionNode') {
    for (const item of node.content.expressions) texts.push({ text: item.value, standard: true });
  }
  if (node.type === 'switchNode') {
    for (const statement of node.content.statements)
      texts.push({ text: statement.condition, standard: true });
  }
  return texts.some(
    ({ text, standard }) =>
      READS_OBJECTS.test(text) || text.includes(MARK_PREFIX) || (standard && READS_ROOT.test(text)),
  );
}

/** Whether a node's own output (and so a mark in it) is sure to reach the output node. */
function reachesOutput(
  id: string,
  outgoing: ReadonlyMap<string, readonly string[]>,
  byId: ReadonlyMap<string, JdmNode>,
  seen = new Set<string>(),
): boolean {
  const next = outgoing.get(id) ?? [];
  if (next.length === 0 || seen.has(id)) return false;
  seen.add(id);
  return next.every((target) => {
    const node = byId.get(target);
    if (node === undefined) return false;
    if (node.type === 'outputNode') return true;
    if (node.type !== 'decisionTableNode' && node.type !== 'expressionNode') return false;
    return node.content.passThrough === true && reachesOutput(target, outgoing, byId, seen);
  });
}

/**
 * The marked form of a checked policy, or null when its marks could be lost or seen on the way to the answer (the
 * policy is then evaluated with the trace).
 *
 * @param graph the policy as loaded (its edges)
 * @param checked its nodes as the loader rewrote them (guards included)
 */
export function markFiredRules(graph: JdmGraph, checked: readonly CheckedNode[]): FiredMarks | null {
  const nodes = checked.map((entry) => entry.node);
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const output = nodes.find((node) => node.type === 'outputNode');
  if (output === undefined) return null;
  const outgoing = new Map<string, string[]>();
  for (const edge of graph.edges)
    outgoing.set(edge.sourceId, [...(outgoing.get(edge.sourceId) ?? []), edge.targetId]);
  const marks: Mark[] = [];
  const markedNodes: JdmNode[] = [];
  const extraNodes: JdmNode[] = [];
  const extraEdges: JdmGraph['edges'] = [];
  for (const [index, node] of nodes.entries()) {
    if (couldSeeMarks(node)) return null;
    if (node.type === 'decisionTableNode') {
      const { content } = node;
      if (content.hitPolicy === 'collect' && !content.outputPath) return null;
      if (content.outputs.some((column) => column.field.startsWith(MARK_PREFIX))) return null;
      if (!reachesOutput(node.id, outgoing, byId)) return null;
      const rules = content.rules.map((rule) => {
        marks.push({ nodeId: node.id, rule: String(rule._id), statement: false });
        return { ...rule, [MARK_COLUMN]: String(marks.length - 1) };
      });
      const outputs = [
        ...content.outputs,
        { id: MARK_COLUMN, name: 'credit-screen fired rule', field: `${MARK_PREFIX}${index}` },
      ];
      markedNodes.push({ ...node, content: { ...content, outputs, rules } });
      continue;
    }
    if (node.type === 'switchNode') {
      for (const [position, statement] of node.content.statements.entries()) {
        marks.push({ nodeId: node.id, rule: statement.id, statement: true });
        const markerId = `${MARK_PREFIX}${index}-${position}`;
        extraNodes.push({
          id: markerId,
          type: 'expressionNode',
          name: markerId,
          content: {
            passThrough: false,
            inputField: null,
            outputPath: null,
            executionMode: 'single',
            expressions: [{ id: markerId, key: markerId, value: String(marks.length - 1) }],
          },
        });
        extraEdges.push(
          { id: `${markerId}-in`, sourceId: node.id, sourceHandle: statement.id, targetId: markerId },
          { id: `${markerId}-out`, sourceId: markerId, targetId: output.id },
        );
      }
    }
    markedNodes.push(node);
  }
  return {
    graph: { ...graph, nodes: [...markedNodes, ...extraNodes], edges: [...graph.edges, ...extraEdges] },
    marks,
  };
}

/** Gathers the numbers of the marks in a value, at any depth (module-level: it runs for every decision). */
function gatherMarks(value: unknown, found: number[]): void {
  if (Array.isArray(value)) {
    for (const item of value) gatherMarks(item, found);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key.startsWith(MARK_PREFIX)) found.push(Number(record[key]));
    else gatherMarks(record[key], found);
  }
}

/**
 * The marks in an answer (every key that starts with {@link MARK_PREFIX}, at any depth): their numbers, each once, in
 * increasing order. The answer is left as it is: its marks are no result field, so a decision reads it the same, and
 * removing keys would cost more than the rest of reading it (see {@link withoutMarks} for a clean copy).
 */
export function readMarks(answer: unknown): number[] {
  const found: number[] = [];
  gatherMarks(answer, found);
  if (found.length < 2) return found;
  found.sort((a, b) => a - b);
  let kept = 1;
  for (let index = 1; index < found.length; index++) {
    if (found[index] !== found[kept - 1]) found[kept++] = found[index] as number;
  }
  found.length = kept;
  return found;
}

/** A copy of an answer without its marks: what the policy's own form answers, for comparisons and messages. */
export function withoutMarks(answer: unknown): unknown {
  if (Array.isArray(answer)) return answer.map(withoutMarks);
  if (typeof answer !== 'object' || answer === null) return answer;
  // fromEntries defines own properties: a key named `__proto__` (a customer's column passed through) stays a key.
  return Object.fromEntries(
    Object.entries(answer).flatMap(([key, value]) =>
      key.startsWith(MARK_PREFIX) ? [] : [[key, withoutMarks(value)]],
    ),
  );
}
