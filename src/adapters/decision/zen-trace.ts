/**
 * Which rules fired, as ZEN's trace tells them: the table rows, guards and switch statements of each node, in the
 * order the engine evaluated the nodes. The adapter reads the trace when a policy cannot be marked (fired-marks.ts),
 * and to learn the nodes' order for a new set of switch statements.
 */
import type { FiredRule, UnknownRule } from '../../domain/decision/index.ts';
import type { NodeRules } from './guard-rules.ts';

/** One node's entry in ZEN's trace. */
export interface TraceEntry {
  readonly id: string;
  readonly name?: string;
  readonly order?: number;
  readonly traceData?: unknown;
}

type Hit = { readonly index?: number; readonly rule?: { readonly _id?: string } };

function hitsOf(traceData: unknown): Hit[] {
  if (Array.isArray(traceData)) return traceData as Hit[];
  if (typeof traceData !== 'object' || traceData === null) return [];
  const statements = (traceData as { statements?: { id: string }[] }).statements;
  if (Array.isArray(statements)) return statements.map((statement) => ({ rule: { _id: statement.id } }));
  return [traceData as Hit];
}

/** The rules that fired and the guards that matched (rules a missing figure left unknown). */
export type Fired = { fired: FiredRule[]; unknown: UnknownRule[] };

/** Adds one hit (a table row, a guard, a switch statement) of a node to what fired. */
export function addHit(
  into: Fired,
  rules: ReadonlyMap<string, NodeRules>,
  nodeId: string,
  node: string,
  id: string,
): void {
  const nodeRules = rules.get(nodeId);
  if (!nodeRules) return;
  const guard = nodeRules.guards.get(id);
  if (guard) {
    const rule = { node, nodeId, rule: guard.rule, row: guard.row, description: null };
    into.unknown.push({ rule, fields: guard.fields });
    return;
  }
  const row = nodeRules.rows.get(id);
  into.fired.push({ node, nodeId, rule: id, row: row?.row ?? null, description: row?.description ?? null });
}

/** The rules that fired and the guards that matched, in the order the engine evaluated the nodes. */
export function readTrace(
  trace: Record<string, TraceEntry> | undefined,
  rules: ReadonlyMap<string, NodeRules>,
): Fired {
  const into: Fired = { fired: [], unknown: [] };
  const entries = Object.values(trace ?? {}).sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
  for (const entry of entries) {
    if (!rules.has(entry.id)) continue;
    for (const hit of hitsOf(entry.traceData)) {
      const id = hit.rule?._id;
      if (id !== undefined) addHit(into, rules, entry.id, entry.name ?? entry.id, id);
    }
  }
  return into;
}

/** Where each node stands in the engine's evaluation order, and its name as the trace gives it. */
export type NodeOrder = ReadonlyMap<string, { readonly position: number; readonly name: string }>;

/** Each node's place and name in a trace. */
export function orderOf(trace: Record<string, TraceEntry> | undefined): NodeOrder {
  return new Map(
    Object.values(trace ?? {}).map((entry) => [
      entry.id,
      { position: entry.order ?? 0, name: entry.name ?? entry.id },
    ]),
  );
}
