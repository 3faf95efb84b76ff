/**
 * Compiles one expression of a policy at load, and finds when it would fail at evaluation. ZEN's decision tables
 * and switches treat a cell that fails as a cell that does not match (measured with 0.54.0: `< 600` on a null
 * score skips its row and the catch-all row after it approves; `> > 5 ((` passes createDecision and validate()).
 * So each cell is run here with ZEN's own evaluator (`evaluateUnaryExpressionSync`, `evaluateExpressionSync`, which
 * do throw) on sample values of the kinds its fields can have: a parse error or a cell that fails on every kind is
 * refused; the kinds it fails on (usually null) become a guard expression — `type(score) == "null"` — that the loader
 * turns into a rule of its own, so the failure is seen instead of skipped.
 */
import { evaluateExpressionSync, evaluateUnaryExpressionSync } from '@gorules/zen-engine';
import { pathExpression } from './expression-paths.ts';

/** What `type()` answers in ZEN for each kind of value. */
export type ValueKind = 'number' | 'string' | 'bool' | 'null' | 'object' | 'array';

const SAMPLES: Readonly<Record<ValueKind, () => unknown>> = {
  number: () => 7,
  // Long enough for a slice such as `$[7:12]` to compile: a short text would refuse a cell that is right.
  string: () => 'texto de exemplo, longo o bastante para as fatias de uma célula',
  bool: () => true,
  null: () => null,
  object: () => ({}),
  array: () => [],
};

/** The kinds a path is tried with to compile the expression, and the kinds it may have when evaluated. */
export interface PathKinds {
  readonly compileWith: readonly ValueKind[];
  readonly atRuntime: readonly ValueKind[];
}

/** One expression to compile: a unary cell (its column's field is `$`) or a standard expression. */
export interface ProbeTarget {
  readonly expression: string;
  readonly mode: 'unary' | 'standard';
  /** The column's field of a unary cell, which `$` stands for. */
  readonly reference: readonly string[] | null;
  /** The paths it reads (with the reference, without `$`). */
  readonly paths: readonly (readonly string[])[];
}

export type ProbeResult =
  | { readonly ok: true; readonly failsWhen: string | null; readonly failingPaths: readonly string[] }
  | { readonly ok: false; readonly error: string };

const MAX_BASELINES = 64;

/** A ZEN error (`{"type":"vmError","source":"…"}` followed by a Rust backtrace) as one short line. */
export function zenErrorText(error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const first = raw.split('\n')[0] ?? raw;
  try {
    const parsed = JSON.parse(first) as { type?: string; source?: string };
    return [parsed.type, parsed.source].filter(Boolean).join(': ') || first;
  } catch {
    return first;
  }
}

function setPath(context: Record<string, unknown>, segments: readonly string[], value: unknown): void {
  let target = context;
  segments.slice(0, -1).forEach((segment) => {
    const next = target[segment];
    target[segment] = typeof next === 'object' && next !== null && !Array.isArray(next) ? next : {};
    target = target[segment] as Record<string, unknown>;
  });
  target[segments[segments.length - 1] as string] = value;
}

function run(target: ProbeTarget, kinds: readonly ValueKind[]): string | null {
  const context: Record<string, unknown> = {};
  target.paths.forEach((path, index) => {
    setPath(context, path, SAMPLES[kinds[index] as ValueKind]());
  });
  try {
    if (target.mode === 'unary') {
      const position = target.paths.findIndex(
        (path) => path.join('\u0000') === target.reference?.join('\u0000'),
      );
      context.$ = position === -1 ? null : SAMPLES[kinds[position] as ValueKind]();
      evaluateUnaryExpressionSync(target.expression, context);
    } else {
      evaluateExpressionSync(target.expression, context);
    }
    return null;
  } catch (error) {
    return zenErrorText(error);
  }
}

/** Assignments of a kind to every path, in order, the first kinds first; at most {@link MAX_BASELINES}. */
function* assignments(choices: readonly (readonly ValueKind[])[]): Generator<ValueKind[]> {
  const counters = choices.map(() => 0);
  for (let tried = 0; tried < MAX_BASELINES; tried += 1) {
    yield counters.map((counter, index) => (choices[index] as readonly ValueKind[])[counter] as ValueKind);
    let position = counters.length - 1;
    while (position >= 0 && (counters[position] as number) + 1 >= (choices[position]?.length ?? 0)) {
      counters[position] = 0;
      position -= 1;
    }
    if (position < 0) return;
    counters[position] = (counters[position] as number) + 1;
  }
}

/**
 * Compiles an expression and finds the kinds of its fields it fails on. Refused: a parse error, or an expression
 * that fails whatever kinds its fields have (then the first failure is the reason).
 */
export function probe(target: ProbeTarget, kindsOf: (path: readonly string[]) => PathKinds): ProbeResult {
  const kinds = target.paths.map(kindsOf);
  let firstError: string | null = null;
  let baseline: ValueKind[] | null = null;
  for (const candidate of assignments(kinds.map((kind) => kind.compileWith))) {
    const error = run(target, candidate);
    if (error === null) {
      baseline = candidate;
      break;
    }
    firstError ??= error;
    if (error.startsWith('parserError')) break;
  }
  if (baseline === null) return { ok: false, error: firstError ?? 'does not evaluate' };
  const conditions: string[] = [];
  const failingPaths = new Set<string>();
  target.paths.forEach((path, index) => {
    for (const kind of (kinds[index] as PathKinds).atRuntime) {
      const trial = [...(baseline as ValueKind[])];
      trial[index] = kind;
      if (run(target, trial) === null) continue;
      conditions.push(`type(${pathExpression(path)}) == "${kind}"`);
      failingPaths.add(pathExpression(path));
    }
  });
  return {
    ok: true,
    failsWhen: conditions.length === 0 ? null : conditions.join(' or '),
    failingPaths: [...failingPaths],
  };
}
