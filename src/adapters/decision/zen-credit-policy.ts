/**
 * A credit policy as a JDM file, evaluated by GoRules' ZEN engine (`@gorules/zen-engine`, MIT, a Rust core behind
 * N-API), the only evaluator of a policy: every decision is ZEN's answer. Why this engine: policies are in an open
 * format a credit manager edits in a free visual editor, evaluated the same way in AWS and locally; JDM is that
 * format and ZEN its reference evaluator. What ZEN does not do, this adapter does: it compiles every cell when the
 * policy is loaded and keeps a failing cell from being skipped silently (guard-rules.ts), it tries the policy on
 * synthetic customers before anything is bought (policy-fitness.ts), and it holds every answer to the decision
 * contract of `src/domain/decision/`.
 *
 * Where ZEN runs: in child processes (zen-process/), so that a number the engine cannot hold stops a child, never
 * the run, and so that many rows decided together use every core. Which rules fired is read from marks the policy's
 * second, marked form writes into its answer (fired-marks.ts), rather than from ZEN's trace, which costs three times
 * the evaluation; the order of the nodes is learnt from one traced evaluation per set of switch statements, checked
 * there against the marks.
 *
 * Native binary: ZEN ships one `.node` file per platform as optional dependencies (13.8 MB for linux-x64-gnu), loaded
 * by its `index.js` by `process.platform`/`process.arch`. A bundle must carry the binary of the platform it runs on
 * (see the functions' bundling in the construct).
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { ZenEngine } from '@gorules/zen-engine';
import {
  type Decision,
  type DecisionInput,
  decisionFromAnswer,
  type FiredRule,
  POLICY_ERROR,
  policyError,
  resultsOfAnswer,
  type UnknownRule,
} from '../../domain/decision/index.ts';
import type { CreditPolicy, CreditPolicyLoad, CreditPolicyLoader } from '../../domain/ports/index.ts';
import { zenErrorText } from './cell-probe.ts';
import { type FiredMarks, markFiredRules, readMarks, withoutMarks } from './fired-marks.ts';
import { PolicyRefused } from './graph-shape.ts';
import type { CheckedNode, NodeRules } from './guard-rules.ts';
import type { JdmNode } from './jdm-model.ts';
import { nodeLabel } from './jdm-model.ts';
import { unfitAnswer } from './policy-fitness.ts';
import { type Analysis, analysePolicy } from './policy-graph.ts';
import { sharedZenPool, type ZenAnswer, type ZenProcessPool } from './zen-process/zen-process-pool.ts';
import { addHit, type Fired, type NodeOrder, orderOf, readTrace, type TraceEntry } from './zen-trace.ts';
import { zenSafeValue } from './zen-values.ts';

/** One engine for the load-time checks (`validate`): it evaluates nothing. */
let engine: ZenEngine | null = null;

/** A ZEN evaluation error as one line: the node it names and what failed. */
function evaluationError(error: string, nodes: ReadonlyMap<string, JdmNode>): string {
  try {
    // The message is a JSON object, followed by a Rust backtrace on the lines after it.
    const parsed = JSON.parse(error.split('\n')[0] ?? error) as { nodeId?: string; source?: unknown };
    const node = parsed.nodeId ? nodes.get(parsed.nodeId) : undefined;
    const source = typeof parsed.source === 'string' ? parsed.source : JSON.stringify(parsed.source);
    return node ? `${nodeLabel(node)}: ${source}` : source;
  } catch {
    return zenErrorText(error);
  }
}

/** The policy in its marked form (fired-marks.ts), and the evaluation orders learnt so far. */
interface FastPath {
  /** The marked graph's key in the pool. */
  readonly key: string;
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

/** The key of a table row in {@link limitRowsOf}. */
const rowKey = (nodeId: string, rule: string) => `${nodeId}\u0000${rule}`;

/**
 * The table rows that give a credit limit: a cell in a `credit_limit` column other than empty or `null`. ZEN drops
 * an output whose cell evaluates to null (a division by zero, a figure missing), so such a row that fired with no
 * limit in the answer had its limit fail: the decision must not approve without it.
 */
function limitRowsOf(checked: readonly CheckedNode[]): ReadonlySet<string> {
  const rows = new Set<string>();
  for (const { node } of checked) {
    if (node.type !== 'decisionTableNode') continue;
    const columns = node.content.outputs
      .filter((output) => output.field === 'credit_limit' || output.field.endsWith('.credit_limit'))
      .map((output) => output.id);
    for (const rule of node.content.rules) {
      const gives = columns.some((column) => {
        const cell = rule[column];
        return typeof cell === 'string' && cell.trim() !== '' && cell.trim() !== 'null';
      });
      if (gives) rows.add(rowKey(node.id, String(rule._id)));
    }
  }
  return rows;
}

/** How a policy is evaluated, for comparisons and benches. */
export interface LoadOptions {
  /** Always evaluate with ZEN's trace (the checked policy itself, no marks). */
  readonly withTrace?: boolean;
  /** The pool of ZEN processes; the process's shared one by default. */
  readonly pool?: ZenProcessPool;
}

class ZenCreditPolicy implements CreditPolicy {
  readonly #pool: ZenProcessPool;
  /** The checked graph's key in the pool (evaluated with the trace). */
  readonly #tracedKey: string;
  readonly #rules: ReadonlyMap<string, NodeRules>;
  readonly #nodes: ReadonlyMap<string, JdmNode>;
  readonly #fields: readonly string[] | null;
  readonly #limitRows: ReadonlySet<string>;
  #fast: FastPath | null;
  readonly customerColumnsRead: readonly string[];

  constructor(
    readonly name: string,
    readonly sha256: string,
    analysis: Analysis,
    options: LoadOptions,
  ) {
    const { graph } = analysis;
    this.#pool = options.pool ?? sharedZenPool();
    engine ??= new ZenEngine();
    const checked = { ...graph, nodes: analysis.checked.map((entry) => entry.node) };
    engine.createDecision(checked).validate();
    this.#fields = analysis.fieldsRead === null ? null : [...analysis.fieldsRead];
    this.#tracedKey = this.#pool.register(checked, this.#fields);
    const marked = options.withTrace === true ? null : markFiredRules(graph, analysis.checked);
    this.#fast = marked && {
      key: this.#pool.register(marked.graph, this.#fields),
      marks: marked.marks,
      orders: new Map(),
      fired: new Map(),
    };
    this.#rules = new Map(
      analysis.checked.flatMap((entry) => (entry.rules ? [[entry.node.id, entry.rules]] : [])),
    );
    this.#nodes = new Map(graph.nodes.map((node) => [node.id, node]));
    this.#limitRows = limitRowsOf(analysis.checked);
    this.customerColumnsRead = analysis.customerColumnsRead;
  }

  /**
   * The input as the engine gets it, every number one ZEN can hold: the values of the fields the policy reads, in
   * their order (the pool knows their names), or the whole input when the policy reads it whole.
   */
  #context(input: DecisionInput): unknown[] | Record<string, unknown> {
    const fields = this.#fields;
    if (fields === null) return zenSafeValue(input) as Record<string, unknown>;
    const values: unknown[] = new Array(fields.length);
    for (let index = 0; index < fields.length; index++)
      values[index] = zenSafeValue(input[fields[index] as keyof DecisionInput]);
    return values;
  }

  /** A failed evaluation as the row's decision: ZEN's error, or the engine stopping on this row. */
  #failed(answer: Extract<ZenAnswer, { ok: false }>): Decision {
    if (answer.stopped === true) return policyError(`${answer.error} on this row's values`);
    return policyError(`the engine failed: ${evaluationError(answer.error, this.#nodes)}`);
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
    const reply = await this.#pool.evaluate(fast.key, context, false);
    if (!reply.ok) return this.#failed(reply);
    const answer = reply.result;
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
    return this.#traced(context, (result, trace) => {
      if (fast.orders.size >= MAX_ORDERS) return;
      const learnt = orderOf(trace);
      const [fired, unknown] = this.#firedFromMarks(taken, learnt);
      const fromTrace = readTrace(trace, this.#rules);
      const agree =
        isDeepStrictEqual(fired, fromTrace.fired) &&
        isDeepStrictEqual(unknown, fromTrace.unknown) &&
        isDeepStrictEqual(clean, result);
      if (agree) fast.orders.set(key, learnt);
      else this.#fast = null;
    });
  }

  /**
   * The decision of a marked answer. Its marks are no result field, so they change nothing, but a refused answer is
   * described in the decision's detail: that one is read again without them, as the policy's own form answers it.
   */
  #fromAnswer(answer: unknown, [fired, unknown]: readonly [FiredRule[], UnknownRule[]]): Decision {
    const unknownWithLimits = this.#uncomputedLimits(answer, fired, unknown);
    const decision = decisionFromAnswer(answer, fired, unknownWithLimits);
    // policyError sets a detail: a policy's own POLICY_ERROR reason (no detail) is not read again.
    const refused =
      decision.detail !== null && decision.reasons.some((reason) => reason.code === POLICY_ERROR);
    return refused ? decisionFromAnswer(withoutMarks(answer), fired, unknownWithLimits) : decision;
  }

  /**
   * The rules left unknown, with those whose credit limit could not be computed: they fired, their cell gives a
   * limit ({@link limitRowsOf}), and no result of the answer carries one. A `MISSING_DATA` review, never an
   * approval without the limit the policy meant to set.
   */
  #uncomputedLimits(answer: unknown, fired: readonly FiredRule[], unknown: UnknownRule[]): UnknownRule[] {
    if (this.#limitRows.size === 0) return unknown;
    const giving = fired.filter((rule) => this.#limitRows.has(rowKey(rule.nodeId, rule.rule)));
    if (giving.length === 0) return unknown;
    const limited = resultsOfAnswer(answer).some(
      (result) => typeof (result as { credit_limit?: unknown }).credit_limit === 'number',
    );
    if (limited) return unknown;
    return [...unknown, ...giving.map((rule) => ({ rule, fields: ['the figures of its credit limit'] }))];
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
    context: unknown[] | Record<string, unknown>,
    learn?: (result: unknown, trace: Record<string, TraceEntry> | undefined) => void,
  ): Promise<Decision> {
    const reply = await this.#pool.evaluate(this.#tracedKey, context, true);
    if (!reply.ok) return this.#failed(reply);
    const trace = reply.trace as Record<string, TraceEntry> | undefined;
    learn?.(reply.result, trace);
    const { fired, unknown } = readTrace(trace, this.#rules);
    return decisionFromAnswer(reply.result, fired, this.#uncomputedLimits(reply.result, fired, unknown));
  }
}

/**
 * Loads a policy from its file's contents. Refused, in one line naming the file and the node: not UTF-8, not JSON,
 * not a JDM graph, a node type other than input/output/decision table/expression/switch, a cell or expression that
 * does not compile, a literal decision outside approve/review/decline, results that would overwrite each other, no
 * `decision` written anywhere, or answers on synthetic customers that break the decision contract
 * (policy-fitness.ts). Warned, one line each: a field the decision input does not have (it reads null).
 *
 * @param name the file's name (or S3 key) as the user gave it: messages and the manifest name the policy by it
 * @param contents the file's exact bytes (a string is taken as its UTF-8 bytes): `sha256` is computed over them
 * @param options `withTrace`: always evaluate with ZEN's trace (for comparisons and benches); `pool`: where ZEN runs
 */
export async function loadZenCreditPolicy(
  name: string,
  contents: Uint8Array | string,
  options: LoadOptions = {},
): Promise<CreditPolicyLoad> {
  const bytes = typeof contents === 'string' ? Buffer.from(contents, 'utf8') : contents;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  let policy: ZenCreditPolicy;
  let analysis: Analysis;
  try {
    analysis = analysePolicy(bytes);
    policy = new ZenCreditPolicy(name, sha256, analysis, options);
  } catch (error) {
    const reason =
      error instanceof PolicyRefused ? error.message : `the engine refused it: ${zenErrorText(error)}`;
    return { ok: false, error: `${name}: ${reason}` };
  }
  const unfit = await unfitAnswer(policy, analysis);
  if (unfit !== null) return { ok: false, error: `${name}: ${unfit}` };
  return { ok: true, policy, warnings: analysis.warnings.map((warning) => `${name}: ${warning}`) };
}

/**
 * A policy file checked without evaluating it (no engine process): its graph, cells and what it reads. For the
 * construct, which checks the policies it ships at synth, where nothing asynchronous can run; the full check
 * (synthetic customers included) runs in the policy check function when the files are deployed.
 */
export function checkPolicyStructure(
  name: string,
  contents: Uint8Array | string,
):
  | { readonly ok: true; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly error: string } {
  try {
    const analysis = analysePolicy(typeof contents === 'string' ? Buffer.from(contents, 'utf8') : contents);
    return { ok: true, warnings: analysis.warnings.map((warning) => `${name}: ${warning}`) };
  } catch (error) {
    const reason =
      error instanceof PolicyRefused ? error.message : `the engine refused it: ${zenErrorText(error)}`;
    return { ok: false, error: `${name}: ${reason}` };
  }
}

/** The loader as a port, for composition roots. */
export const zenCreditPolicyLoader: CreditPolicyLoader = { load: loadZenCreditPolicy };
