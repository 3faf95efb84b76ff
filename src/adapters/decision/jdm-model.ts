/**
 * The JSON Decision Model (JDM) as credit-screen accepts it: GoRules' open graph format, as their visual editor
 * saves it, restricted to the nodes a credit policy needs — input, output, decision tables (hit policy `first` or
 * `collect`), expressions and switches. Function nodes (JavaScript), sub-decisions and custom nodes are refused:
 * a policy is data a credit manager can read, evaluated the same way everywhere, with nothing to fetch.
 */
import { z } from 'zod';

const id = z.string().min(1);

const tableInput = z.object({ id, name: z.string().optional(), field: z.string().nullish() }).loose();
const tableOutput = z.object({ id, name: z.string().optional(), field: z.string().min(1) }).loose();

/** A transform a node may declare; credit-screen evaluates nodes once on their whole input (no `loop`). */
const transform = {
  passThrough: z.boolean().nullish(),
  inputField: z.string().nullish(),
  outputPath: z.string().nullish(),
  executionMode: z.enum(['single', 'loop']).nullish(),
};

const decisionTable = z
  .object({
    hitPolicy: z.enum(['first', 'collect']),
    inputs: z.array(tableInput),
    outputs: z.array(tableOutput).min(1),
    rules: z.array(z.record(z.string(), z.unknown())),
    ...transform,
  })
  .loose();

const expressionContent = z
  .object({
    expressions: z.array(z.object({ id, key: z.string(), value: z.string() }).loose()),
    ...transform,
  })
  .loose();

const switchContent = z
  .object({
    hitPolicy: z.enum(['first', 'collect']).nullish(),
    statements: z.array(z.object({ id, condition: z.string() }).loose()),
  })
  .loose();

const nodeBase = { id, name: z.string().optional(), position: z.unknown().optional() };

const node = z.discriminatedUnion('type', [
  z.object({ ...nodeBase, type: z.literal('inputNode') }).loose(),
  z.object({ ...nodeBase, type: z.literal('outputNode') }).loose(),
  z.object({ ...nodeBase, type: z.literal('decisionTableNode'), content: decisionTable }).loose(),
  z.object({ ...nodeBase, type: z.literal('expressionNode'), content: expressionContent }).loose(),
  z.object({ ...nodeBase, type: z.literal('switchNode'), content: switchContent }).loose(),
]);

const edge = z
  .object({ id, sourceId: id, targetId: id, sourceHandle: z.string().nullish(), type: z.string().optional() })
  .loose();

/** A JDM graph: its nodes and the edges between them (other keys, such as the editor's, are kept as they are). */
export const jdmGraphSchema = z.object({ nodes: z.array(node).min(1), edges: z.array(edge) }).loose();

export type JdmGraph = z.infer<typeof jdmGraphSchema>;
export type JdmNode = JdmGraph['nodes'][number];
export type DecisionTableNode = Extract<JdmNode, { type: 'decisionTableNode' }>;
export type SwitchNode = Extract<JdmNode, { type: 'switchNode' }>;

/** The node types a policy may use. */
export const NODE_TYPES = ['inputNode', 'outputNode', 'decisionTableNode', 'expressionNode', 'switchNode'];

/** A node as messages name it: `node "Score" (id 3f2a…)`. */
export const nodeLabel = (jdmNode: { readonly id: string; readonly name?: string | undefined }): string =>
  jdmNode.name ? `node "${jdmNode.name}"` : `node ${jdmNode.id}`;
