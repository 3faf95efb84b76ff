/**
 * A policy file read as a JDM graph and analysed before ZEN sees it: its bytes, its JSON, its graph's shape, every
 * node checked and guarded (guard-rules.ts), what it reads of the decision input, and what it cannot have. Nothing
 * here evaluates a decision; a refusal is a {@link PolicyRefused} naming the node.
 */
import { DECISION_INPUT_FIELDS } from '../../domain/decision/index.ts';
import { pathExpression } from './expression-paths.ts';
import { FROM_INPUT, namesReaching, PolicyRefused, shapeOf } from './graph-shape.ts';
import { type CheckedNode, checkNode, writesDecision } from './guard-rules.ts';
import { type JdmGraph, type JdmNode, jdmGraphSchema, NODE_TYPES, nodeLabel } from './jdm-model.ts';

function parseJson(contents: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(contents);
  } catch {
    throw new PolicyRefused('not UTF-8 text');
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new PolicyRefused(`not JSON: ${(error as Error).message}`);
  }
}

function parseGraph(json: unknown): JdmGraph {
  const shape = json as { nodes?: unknown; edges?: unknown } | null;
  if (
    typeof shape !== 'object' ||
    shape === null ||
    !Array.isArray(shape.nodes) ||
    !Array.isArray(shape.edges)
  ) {
    throw new PolicyRefused('not a JDM decision graph: it needs "nodes" and "edges" lists');
  }
  for (const node of shape.nodes as { id?: unknown; name?: string; type?: unknown }[]) {
    if (typeof node?.type === 'string' && !NODE_TYPES.includes(node.type)) {
      throw new PolicyRefused(
        `${nodeLabel({ id: String(node.id), name: node.name })}: type ${node.type} is not supported (a policy uses ${NODE_TYPES.join(', ')})`,
      );
    }
  }
  const parsed = jdmGraphSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const [list, index, ...rest] = issue?.path ?? [];
  const node =
    list === 'nodes' && typeof index === 'number' ? (shape.nodes[index] as JdmNode | undefined) : undefined;
  const where = node ? `${nodeLabel(node)}: ${rest.join('.') || 'the node'}` : (issue?.path.join('.') ?? '');
  throw new PolicyRefused(`not a JDM decision graph: ${where}: ${issue?.message}`);
}

/** A policy as the loader checked it: its graph, each node checked and guarded, and what it reads. */
export interface Analysis {
  readonly graph: JdmGraph;
  readonly checked: readonly CheckedNode[];
  readonly warnings: readonly string[];
  /** The decision input's fields the policy reads; null when it reads the input whole (`$`). */
  readonly fieldsRead: ReadonlySet<string> | null;
  readonly customerColumnsRead: readonly string[];
}

/** Checks and rewrites every node; gathers what the policy reads and warns about what it cannot have. */
function analyse(graph: JdmGraph): Analysis {
  const shape = shapeOf(graph);
  const reaching = namesReaching(shape);
  const warnings = new Set<string>();
  const fields = new Set<string>();
  const columns = new Set<string>();
  let readsWholeInput = false;
  const checked = shape.order.map((node) => {
    const names = reaching.get(node.id) ?? new Map();
    const result = checkNode(node, names);
    if (node.type !== 'inputNode' && (shape.incoming.get(node.id) ?? []).length === 0) {
      warnings.add(`${nodeLabel(node)} is not connected to the input: it is never evaluated`);
    }
    for (const path of result.paths) {
      const [root = ''] = path;
      if (root === '$') readsWholeInput = true;
      const origin = names.get(root);
      if (origin === FROM_INPUT) fields.add(root);
      if (origin === FROM_INPUT && root === 'input' && path.length === 1) readsWholeInput = true;
      if (origin === FROM_INPUT && root === 'input' && path[1] !== undefined) columns.add(path[1]);
      if (origin !== undefined || root === '$') continue;
      const has = (DECISION_INPUT_FIELDS as readonly string[]).includes(root);
      warnings.add(
        has
          ? `${nodeLabel(node)} reads ${pathExpression(path)}, which does not reach it (no passThrough from the input): it reads null`
          : `${nodeLabel(node)} reads ${pathExpression(path)}, which the decision input does not have: it reads null`,
      );
    }
    return result;
  });
  if (!graph.nodes.some(writesDecision)) {
    throw new PolicyRefused('no node writes a "decision" field (approve, review or decline)');
  }
  return {
    graph,
    checked,
    warnings: [...warnings],
    fieldsRead: readsWholeInput ? null : fields,
    customerColumnsRead: [...columns],
  };
}

/** A policy file's bytes, read and analysed; throws {@link PolicyRefused} naming what is wrong. */
export function analysePolicy(bytes: Uint8Array): Analysis {
  return analyse(parseGraph(parseJson(bytes)));
}
