/**
 * A credit policy as a JDM file, evaluated by GoRules' ZEN engine (`@gorules/zen-engine`, MIT, a Rust core behind
 * N-API). Why this engine: the issue asks for policies in an open format a credit manager can edit in a free visual
 * editor, evaluated the same way in AWS and locally; JDM is that format and ZEN is its reference evaluator (no other
 * engine reads JDM) and it has no runtime dependencies. Speed: a call into ZEN costs about 55 µs before it evaluates
 * anything, so a policy is also compiled to closures that ZEN checks (compiled/; about 10 µs a decision for the
 * sample policy), and the rules that fired are read from marks rather than ZEN's trace (fired-marks.ts;
 * `bench/results/decide.md`). What it does not do, this adapter does: it compiles every cell when the policy is
 * loaded and keeps a failing cell from being skipped silently (`guard-rules.ts`), and it holds every answer to the
 * decision contract of `src/domain/decision/`.
 *
 * Native binary: ZEN ships one `.node` file per platform as optional dependencies (13.8 MB for linux-x64-gnu), loaded
 * by its `index.js` by `process.platform`/`process.arch` (first `./zen-engine.<platform>.node` beside it, then the
 * platform package, then the WASM package). A bundle must carry the binary of the platform it runs on: esbuild
 * refuses the `.node` file by default ("No loader is configured"), and `loader: { '.node': 'copy' }` copies the
 * build machine's binary beside the bundle (linux-x64-gnu here), which an ARM_64 Lambda cannot load.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { type ZenDecision, ZenEngine } from '@gorules/zen-engine';
import {
  DECISION_INPUT_FIELDS,
  type Decision,
  type DecisionInput,
  decisionFromAnswer,
  type FiredRule,
  POLICY_ERROR,
  policyError,
  type UnknownRule,
} from '../../domain/decision/index.ts';
import type { CreditPolicy, CreditPolicyLoad, CreditPolicyLoader } from '../../domain/ports/index.ts';
import { zenErrorText } from './cell-probe.ts';
import { type CompiledGraph, compileGraph, DeferToZen } from './compiled/compiled-graph.ts';
import { pathExpression } from './expression-paths.ts';
import { type FiredMarks, markFiredRules, readMarks, withoutMarks } from './fired-marks.ts';
import { FROM_INPUT, namesReaching, PolicyRefused, shapeOf } from './graph-shape.ts';
import { type CheckedNode, checkNode, type NodeRules, writesDecision } from './guard-rules.ts';
import { type JdmGraph, type JdmNode, jdmGraphSchema, NODE_TYPES, nodeLabel } from './jdm-model.ts';
import { addHit, type Fired, type NodeOrder, orderOf, readTrace, type TraceEntry } from './zen-trace.ts';

/** One engine for every policy of the process: it holds no state of its own between evaluations. */
let engine: ZenEngine | null = null;

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

interface Analysis {
  readonly checked: readonly CheckedNode[];
  readonly warnings: readonly string[];
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
    checked,
    warnings: [...warnings],
    fieldsRead: readsWholeInput ? null : fields,
    customerColumnsRead: [...columns],
  };
}

/** A ZEN evaluation error as one line: the node it names and what failed. */
function evaluationError(error: unknown, nodes: ReadonlyMap<string, JdmNode>): string {
  const text = error instanceof Error ? error.message : String(error);
  try {
    // The message is a JSON object, followed by a Rust backtrace on the lines after it.
    const parsed = JSON.parse(text.split('\n')[0] ?? text) as { nodeId?: string; source?: unknown };
    const node = parsed.nodeId ? nodes.get(parsed.nodeId) : undefined;
    const source = typeof parsed.source === 'string' ? parsed.source : JSON.stringify(parsed.source);
    return node ? `${nodeLabel(node)}: ${source}` : source;
  } catch {
    return zenErrorText(error);
  }
}

/** The policy in its marked form (fired-marks.ts), and the evaluation orders learnt so far. */
interface FastPath {
  readonly decision: ZenDecision;
  readonly marks: FiredMarks['marks'];
  /** By the switch statements taken (their marks): the nodes' order, from a traced evaluation. */
  readonly orders: Map<string, NodeOrder>;
  /**
   * By all the marks of an answer whose order is learnt: the rules that fired, as {@link FastPath.orders} puts them.
   * Shared by every decision with the same marks (a decision's trace is read-only).
   */
  readonly fired: Map<string, readonly [FiredRule[], UnknownRule[]]>;
}

/** At most this many sets of switch statements are learnt; past it, unknown sets are evaluated with the trace. */
const MAX_ORDERS = 256;
/** At most this many sets of marks keep their rules; past it, the rules of new sets are read for each decision. */
const MAX_FIRED_SETS = 4096;

/**
 * The compiled evaluator's answers ZEN checks: the first ones, then one in this many. A disagreement sends the policy
 * back to ZEN for good (ZEN's answer is the one given).
 */
const FIRST_CHECKED = 32;
const CHECK_EVERY = 1000;

/** How a policy is evaluated, for comparisons and benches; by default compiled where it can be, checked by ZEN. */
export interface LoadOptions {
  readonly withTrace?: boolean;
  readonly interpretedOnly?: boolean;
}

class ZenCreditPolicy implements CreditPolicy {
  readonly #decision: ZenDecision;
  readonly #rules: ReadonlyMap<string, NodeRules>;
  readonly #nodes: ReadonlyMap<string, JdmNode>;
  readonly #fields: readonly string[] | null;
  #fast: FastPath | null;
  /** The marked policy compiled to closures (compiled/compiled-graph.ts), while ZEN agrees with it. */
  #compiled: CompiledGraph | null;
  #compiledAnswers = 0;

  constructor(
    readonly name: string,
    readonly sha256: string,
    graph: JdmGraph,
    analysis: Analysis,
    options: LoadOptions,
  ) {
    const withTrace = options.withTrace === true;
    engine ??= new ZenEngine();
    const checked = { ...graph, nodes: analysis.checked.map((entry) => entry.node) };
    this.#decision = engine.createDecision(checked);
    this.#decision.validate();
    const marked = withTrace ? null : markFiredRules(graph, analysis.checked);
    this.#fast = marked && {
      decision: engine.createDecision(marked.graph),
      marks: marked.marks,
      orders: new Map(),
      fired: new Map(),
    };
    this.#compiled = marked && !options.interpretedOnly ? compileGraph(marked.graph) : null;
    this.#rules = new Map(
      analysis.checked.flatMap((entry) => (entry.rules ? [[entry.node.id, entry.rules]] : [])),
    );
    this.#nodes = new Map(graph.nodes.map((node) => [node.id, node]));
    this.#fields = analysis.fieldsRead === null ? null : [...analysis.fieldsRead];
    this.customerColumnsRead = analysis.customerColumnsRead;
  }

  readonly customerColumnsRead: readonly string[];

  /** The input as the engine gets it: only the fields the policy reads (a smaller input, a faster evaluation). */
  #context(input: DecisionInput): Record<string, unknown> {
    if (this.#fields === null) return { ...input };
    const context: Record<string, unknown> = {};
    for (const field of this.#fields) context[field] = input[field as keyof DecisionInput];
    return context;
  }

  /**
   * Decides one report. Evaluated without ZEN's trace when the policy could be marked (fired-marks.ts): the rules
   * that fired are read from the marks in the answer, in the order a traced evaluation gave for the same switch
   * statements. The first time a set of switch statements is seen, the row is evaluated both ways and the traced
   * decision is answered; if the two disagree (rules, order or answer), the policy goes back to the trace for good.
   */
  async decide(input: DecisionInput): Promise<Decision> {
    const context = this.#context(input);
    const fast = this.#fast;
    if (fast === null) return this.#traced(context);
    let answer: unknown;
    let compiled = false;
    try {
      const own = this.#compiledAnswer(context);
      compiled = own !== undefined;
      if (!compiled) answer = (await fast.decision.evaluate(context)).result;
      else answer = this.#isChecked() ? await this.#checkedByZen(own, context) : own;
    } catch (error) {
      return policyError(`the engine failed: ${evaluationError(error, this.#nodes)}`);
    }
    const taken = readMarks(answer);
    const all = taken.join(',');
    const known = fast.fired.get(all);
    if (known !== undefined) return this.#fromAnswer(answer, known);
    const key = taken.filter((mark) => fast.marks[mark]?.statement).join(',');
    const order = fast.orders.get(key);
    if (order !== undefined) {
      const fired = this.#firedFromMarks(taken, order);
      if (fast.fired.size < MAX_FIRED_SETS) fast.fired.set(all, fired);
      return this.#fromAnswer(answer, fired);
    }
    const clean = withoutMarks(answer);
    const traced = await this.#traced(context, (result, trace) => {
      if (fast.orders.size >= MAX_ORDERS) return;
      const learnt = orderOf(trace);
      const [fired, unknown] = this.#firedFromMarks(taken, learnt);
      const fromTrace = readTrace(trace, this.#rules);
      const agree =
        isDeepStrictEqual(fired, fromTrace.fired) &&
        isDeepStrictEqual(unknown, fromTrace.unknown) &&
        isDeepStrictEqual(clean, result);
      if (agree) fast.orders.set(key, learnt);
      // The compiled answer disagreeing is the compiled evaluator's fault, not the marks'.
      else if (compiled) this.#compiled = null;
      else this.#fast = null;
    });
    return traced;
  }

  /**
   * The decision of a marked answer. Its marks are no result field, so they change nothing, but a refused answer is
   * described in the decision's detail: that one is read again without them, as the policy's own form answers it.
   */
  #fromAnswer(answer: unknown, [fired, unknown]: readonly [FiredRule[], UnknownRule[]]): Decision {
    const decision = decisionFromAnswer(answer, fired, unknown);
    // policyError sets a detail: a policy's own POLICY_ERROR reason (no detail) is not read again.
    const refused =
      decision.detail !== null && decision.reasons.some((reason) => reason.code === POLICY_ERROR);
    return refused ? decisionFromAnswer(withoutMarks(answer), fired, unknown) : decision;
  }

  /** The compiled evaluator's answer, or undefined when there is none or it leaves this evaluation to ZEN. */
  #compiledAnswer(context: Record<string, unknown>): unknown {
    if (this.#compiled === null) return undefined;
    try {
      return this.#compiled.evaluate(context as Parameters<CompiledGraph['evaluate']>[0]);
    } catch (error) {
      if (error instanceof DeferToZen) return undefined;
      throw error;
    }
  }

  /** Whether ZEN checks this compiled answer: the first ones, then one in {@link CHECK_EVERY}. */
  #isChecked(): boolean {
    const count = this.#compiledAnswers++;
    return count < FIRST_CHECKED || count % CHECK_EVERY === 0;
  }

  /** A compiled answer checked against ZEN's (ZEN's is given when they differ, and ZEN evaluates from then on). */
  async #checkedByZen(answer: unknown, context: Record<string, unknown>): Promise<unknown> {
    const fast = this.#fast as FastPath;
    const reference = (await fast.decision.evaluate(context)).result;
    if (isDeepStrictEqual(answer, reference)) return answer;
    this.#compiled = null;
    return reference;
  }

  /** The rules the marks name, in the nodes' evaluation order (then in the order of their rows or statements). */
  #firedFromMarks(taken: readonly number[], order: NodeOrder): [FiredRule[], UnknownRule[]] {
    const marks = (this.#fast?.marks ?? []) as FiredMarks['marks'];
    const hits = taken.flatMap((index) => {
      const mark = marks[index];
      const at = mark && order.get(mark.nodeId);
      return mark && at ? [{ index, mark, at }] : [];
    });
    hits.sort((a, b) => a.at.position - b.at.position || a.index - b.index);
    const into: Fired = { fired: [], unknown: [] };
    for (const { mark, at } of hits) addHit(into, this.#rules, mark.nodeId, at.name, mark.rule);
    return [into.fired, into.unknown];
  }

  /** Decides one report with ZEN's trace (the policy as the loader checked it, without marks). */
  async #traced(
    context: Record<string, unknown>,
    learn?: (result: unknown, trace: Record<string, TraceEntry> | undefined) => void,
  ): Promise<Decision> {
    let response: { result: unknown; trace?: unknown };
    try {
      response = await this.#decision.evaluate(context, { trace: true });
    } catch (error) {
      return policyError(`the engine failed: ${evaluationError(error, this.#nodes)}`);
    }
    const trace = response.trace as Record<string, TraceEntry> | undefined;
    learn?.(response.result, trace);
    const { fired, unknown } = readTrace(trace, this.#rules);
    return decisionFromAnswer(response.result, fired, unknown);
  }
}

/**
 * Loads a policy from its file's contents. Refused, in one line naming the file and the node: not UTF-8, not JSON,
 * not a JDM graph, a node type other than input/output/decision table/expression/switch, a cell or expression that
 * does not compile, a literal decision outside approve/review/decline, results that would overwrite each other, no
 * `decision` written anywhere. Warned, one line each: a field the decision input does not have (it reads null).
 *
 * @param name the file's name (or S3 key) as the user gave it: messages and the manifest name the policy by it
 * @param contents the file's exact bytes (a string is taken as its UTF-8 bytes): `sha256` is computed over them
 * @param options `withTrace`: always evaluate with ZEN's trace, as before the marks; `interpretedOnly`: never with the
 *   compiled evaluator (both for comparisons and benches)
 */
export function loadZenCreditPolicy(
  name: string,
  contents: Uint8Array | string,
  options: LoadOptions = {},
): CreditPolicyLoad {
  const bytes = typeof contents === 'string' ? Buffer.from(contents, 'utf8') : contents;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  try {
    const graph = parseGraph(parseJson(bytes));
    const analysis = analyse(graph);
    const policy = new ZenCreditPolicy(name, sha256, graph, analysis, options);
    return { ok: true, policy, warnings: analysis.warnings.map((warning) => `${name}: ${warning}`) };
  } catch (error) {
    const reason =
      error instanceof PolicyRefused ? error.message : `the engine refused it: ${zenErrorText(error)}`;
    return { ok: false, error: `${name}: ${reason}` };
  }
}

/** The loader as a port, for composition roots. */
export const zenCreditPolicyLoader: CreditPolicyLoader = { load: loadZenCreditPolicy };

/**
 * A policy's marked graph (fired-marks.ts), as ZEN evaluates it on the fast path, and its compiled form: what the
 * differential test compares. Null when the policy is refused or cannot be marked.
 */
export function markedAndCompiled(
  contents: Uint8Array | string,
): { readonly marked: JdmGraph; readonly compiled: CompiledGraph | null } | null {
  try {
    const graph = parseGraph(parseJson(typeof contents === 'string' ? Buffer.from(contents) : contents));
    const marked = markFiredRules(graph, analyse(graph).checked);
    return marked && { marked: marked.graph, compiled: compileGraph(marked.graph) };
  } catch (error) {
    if (error instanceof PolicyRefused) return null;
    throw error;
  }
}
