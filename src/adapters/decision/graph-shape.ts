/**
 * The shape of a policy's graph: its nodes in evaluation order, which names reach each node and from which node, and
 * the kinds of value a path can hold there. Refuses a graph without exactly one input and one output node, an edge
 * to nowhere, a cycle, a node in loop mode, and two results that would overwrite each other where nodes meet (ZEN
 * merges the outputs of a node's sources: a second `decision` would silently replace the first, and a collect
 * table's list of results would be dropped).
 */
import { DECISION_INPUT_FIELDS, DECISION_INPUT_KINDS } from '../../domain/decision/index.ts';
import type { PathKinds, ValueKind } from './cell-probe.ts';
import { type JdmGraph, type JdmNode, nodeLabel } from './jdm-model.ts';

/** A refusal: the one line that says why, without the file's name (the loader adds it). */
export class PolicyRefused extends Error {}

const NON_NULLABLE: ReadonlySet<string> = new Set([
  'input_version',
  'document_type',
  'bureau',
  'protests_count',
  'pending_debts_count',
  'bounced_cheques_count',
  'screened_at',
  'input',
]);

/** Where the names a node reads come from: the decision input, or the node that wrote them. */
export type Names = Map<string, string>;
/** The origin of a name that comes from the decision input. */
export const FROM_INPUT = '';

export interface GraphShape {
  readonly byId: ReadonlyMap<string, JdmNode>;
  readonly incoming: ReadonlyMap<string, readonly string[]>;
  readonly order: readonly JdmNode[];
  /** Whether two nodes lie on different branches of a `first` switch: at most one of them is evaluated. */
  readonly exclusive: (a: string, b: string) => boolean;
}

export function shapeOf(graph: JdmGraph): GraphShape {
  const byId = new Map<string, JdmNode>();
  for (const node of graph.nodes) {
    if (byId.has(node.id)) throw new PolicyRefused(`${nodeLabel(node)}: its id ${node.id} is used twice`);
    byId.set(node.id, node);
  }
  const count = (type: string) => graph.nodes.filter((node) => node.type === type).length;
  if (count('inputNode') !== 1 || count('outputNode') !== 1) {
    throw new PolicyRefused(
      `a policy has exactly one inputNode and one outputNode (this one has ${count('inputNode')} and ${count('outputNode')})`,
    );
  }
  const incoming = new Map<string, string[]>(graph.nodes.map((node) => [node.id, []]));
  for (const edge of graph.edges) {
    const missing = [edge.sourceId, edge.targetId].find((end) => !byId.has(end));
    if (missing !== undefined)
      throw new PolicyRefused(`edge ${edge.id} leads to node ${missing}, which does not exist`);
    incoming.get(edge.targetId)?.push(edge.sourceId);
  }
  return {
    byId,
    incoming,
    order: topologicalOrder(graph, byId, incoming),
    exclusive: exclusiveBranches(graph, byId),
  };
}

function reachable(
  starts: readonly string[],
  next: (id: string) => readonly string[],
  avoid?: string,
): Set<string> {
  const seen = new Set<string>();
  const stack = [...starts];
  while (stack.length > 0) {
    const id = stack.pop() as string;
    if (seen.has(id) || id === avoid) continue;
    seen.add(id);
    stack.push(...next(id));
  }
  return seen;
}

/**
 * For each `first` switch, the nodes only one of its statements leads to (and that the input does not reach around
 * the switch): two nodes under different statements are never both evaluated, so their results cannot collide.
 */
function exclusiveBranches(
  graph: JdmGraph,
  byId: ReadonlyMap<string, JdmNode>,
): (a: string, b: string) => boolean {
  const outgoing = (id: string) =>
    graph.edges.filter((edge) => edge.sourceId === id).map((edge) => edge.targetId);
  const input = graph.nodes.find((node) => node.type === 'inputNode') as JdmNode;
  const branchOf = new Map<string, Map<string, string>>();
  for (const node of byId.values()) {
    if (node.type !== 'switchNode' || (node.content.hitPolicy ?? 'first') !== 'first') continue;
    const around = reachable([input.id], outgoing, node.id);
    const under = node.content.statements.map((statement) => {
      const targets = graph.edges.filter(
        (edge) => edge.sourceId === node.id && edge.sourceHandle === statement.id,
      );
      return {
        statement: statement.id,
        nodes: reachable(
          targets.map((edge) => edge.targetId),
          outgoing,
        ),
      };
    });
    const branches = new Map<string, string>();
    for (const { statement, nodes } of under) {
      for (const id of nodes) {
        const elsewhere = under.some((other) => other.statement !== statement && other.nodes.has(id));
        if (!elsewhere && !around.has(id)) branches.set(id, statement);
      }
    }
    branchOf.set(node.id, branches);
  }
  return (a, b) =>
    [...branchOf.values()].some((branches) => {
      const [first, second] = [branches.get(a), branches.get(b)];
      return first !== undefined && second !== undefined && first !== second;
    });
}

function topologicalOrder(
  graph: JdmGraph,
  byId: ReadonlyMap<string, JdmNode>,
  incoming: ReadonlyMap<string, readonly string[]>,
): JdmNode[] {
  const order: JdmNode[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string): void => {
    if (state.get(id) === 'done') return;
    const node = byId.get(id) as JdmNode;
    if (state.get(id) === 'visiting')
      throw new PolicyRefused(`${nodeLabel(node)}: the graph has a cycle through it`);
    state.set(id, 'visiting');
    for (const source of incoming.get(id) ?? []) visit(source);
    state.set(id, 'done');
    order.push(node);
  };
  for (const node of graph.nodes) visit(node.id);
  return order;
}

/** The top-level names a node writes (its own results), or `array` for a collect table without an output path. */
function writes(node: JdmNode): readonly string[] | 'array' {
  const root = (path: string) => path.split('.')[0] as string;
  if (node.type === 'decisionTableNode') {
    if (node.content.outputPath) return [root(node.content.outputPath)];
    if (node.content.hitPolicy === 'collect') return 'array';
    return node.content.outputs.map((output) => root(output.field));
  }
  if (node.type === 'expressionNode') {
    if (node.content.outputPath) return [root(node.content.outputPath)];
    return node.content.expressions.filter((item) => item.key !== '').map((item) => root(item.key));
  }
  return [];
}

/** The names that reach each node, and from which node; refuses results that would overwrite each other. */
function collision(shape: GraphShape, name: string, origins: readonly string[], at: JdmNode): string {
  const writers = origins.map((origin) =>
    origin === FROM_INPUT ? 'the decision input' : nodeLabel(shape.byId.get(origin) as JdmNode),
  );
  return `${writers.join(' and ')} both bring "${name}" to ${nodeLabel(at)}: one would overwrite the other (give a table an outputPath, or chain the nodes)`;
}

export function namesReaching(shape: GraphShape): Map<string, Names> {
  const reaching = new Map<string, Names>();
  const leaving = new Map<string, Names>();
  for (const node of shape.order) {
    const names: Names = new Map();
    const sources = shape.incoming.get(node.id) ?? [];
    for (const source of sources) {
      const sourceNode = shape.byId.get(source) as JdmNode;
      const others = sources.filter((other) => other !== source && !shape.exclusive(source, other));
      if (writes(sourceNode) === 'array' && others.length > 0) {
        throw new PolicyRefused(
          `${nodeLabel(sourceNode)}: a collect table that meets other nodes at ${nodeLabel(node)} needs an outputPath (its list of results would be lost in the merge)`,
        );
      }
      for (const [name, origin] of leaving.get(source) ?? []) {
        const earlier = names.get(name);
        if (earlier !== undefined && earlier !== origin && !shape.exclusive(earlier, origin)) {
          throw new PolicyRefused(collision(shape, name, [earlier, origin], node));
        }
        names.set(name, origin);
      }
    }
    reaching.set(node.id, names);
    leaving.set(node.id, namesLeaving(node, names));
  }
  return reaching;
}

function namesLeaving(node: JdmNode, reaching: Names): Names {
  if (node.type === 'inputNode') return new Map(DECISION_INPUT_FIELDS.map((field) => [field, FROM_INPUT]));
  if (node.type === 'switchNode' || node.type === 'outputNode') return new Map(reaching);
  if ((node.content.executionMode ?? 'single') !== 'single' || node.content.inputField) {
    throw new PolicyRefused(
      `${nodeLabel(node)}: loop mode and inputField are not supported in a credit policy`,
    );
  }
  const own = writes(node);
  const names: Names = node.content.passThrough ? new Map(reaching) : new Map();
  if (own !== 'array') for (const name of own) names.set(name, node.id);
  return names;
}

const ANY_KIND: readonly ValueKind[] = ['number', 'string', 'bool', 'object', 'array'];

/** The kinds a path can hold at a node, from where its name comes from. */
export function kindsAt(names: Names, path: readonly string[]): PathKinds {
  const [root = '', ...rest] = path;
  const origin = names.get(root);
  if (origin === undefined) return { compileWith: ['number', 'string'], atRuntime: ['null'] };
  if (origin !== FROM_INPUT) return { compileWith: ANY_KIND, atRuntime: [...ANY_KIND, 'null'] };
  const kind = DECISION_INPUT_KINDS[root as keyof typeof DECISION_INPUT_KINDS];
  if (root === 'input') {
    if (rest.length === 0) return { compileWith: ['object'], atRuntime: ['object'] };
    if (rest.length === 1)
      return { compileWith: ['number', 'string'], atRuntime: ['number', 'string', 'null'] };
    return { compileWith: ['null'], atRuntime: ['null'] };
  }
  if (rest.length > 0) return { compileWith: ['null'], atRuntime: ['null'] };
  return { compileWith: [kind], atRuntime: NON_NULLABLE.has(root) ? [kind] : [kind, 'null'] };
}
