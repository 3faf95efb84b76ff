/**
 * What a credit policy answers for a report, and how several answers make one decision. The policy's engine is
 * outside (an adapter); this is the contract its answers are held to, pure and engine-free.
 */
import { z } from 'zod';
import { DECISION_INPUT_FIELDS } from './decision-input.ts';

/** The three outcomes, from the least to the most severe. */
export const DECISION_VALUES = ['approve', 'review', 'decline'] as const;
export type DecisionValue = (typeof DECISION_VALUES)[number];

const SEVERITY: Readonly<Record<DecisionValue, number>> = { approve: 0, review: 1, decline: 2 };

/** Why: a stable code for programs and a text for people (pt-BR unless the policy writes otherwise). */
export interface DecisionReason {
  readonly code: string;
  readonly text: string;
}

/** A rule that fired: a decision table's row or a switch node's branch, as the engine's trace names them. */
export interface FiredRule {
  /** The node's name as the policy's editor shows it. */
  readonly node: string;
  readonly nodeId: string;
  /** The rule's id (`_id` of a table row, the statement id of a switch). */
  readonly rule: string;
  /** 1-based row of a decision table; null for a switch. */
  readonly row: number | null;
  /** The row's `_description`, when the policy gives one. */
  readonly description: string | null;
}

/** The decision on one report. */
export interface Decision {
  readonly decision: DecisionValue;
  /** In the order the policy gave them, each code once. */
  readonly reasons: readonly DecisionReason[];
  readonly risk_band: string | null;
  /** In reais, never negative; 0 for a decline. */
  readonly credit_limit: number | null;
  /** Why the policy could not decide (`POLICY_ERROR`, `MISSING_DATA`); null when it did. */
  readonly detail: string | null;
  /** The rules that fired, in the order the engine evaluated them. */
  readonly trace: readonly FiredRule[];
}

/** The reason of a row whose policy failed (engine error, no decision, a value outside the contract). */
export const POLICY_ERROR = 'POLICY_ERROR';
/**
 * The reason of a row for which a rule could not be evaluated because a field it reads is missing or of another
 * kind (a score the bureau did not give, a text where the rule compares a number): the rule is unknown, never
 * silently false.
 */
export const MISSING_DATA = 'MISSING_DATA';

const OWN_REASON_TEXTS: Readonly<Record<string, string>> = {
  [POLICY_ERROR]: 'Erro ao avaliar a política de crédito: decisão manual',
  [MISSING_DATA]: 'Dados insuficientes para aplicar uma regra da política: decisão manual',
};

const reasonSchema = z.union([
  z.string().min(1),
  z.object({ code: z.string().min(1), text: z.string().optional() }).loose(),
]);

/**
 * One result as a policy writes it (a decision table's row, an expression node's output). Every field is optional
 * on its own; what matters is that the answer as a whole holds at least one `decision`. A reason is `{code, text}`
 * (the text in pt-BR, written by the policy's author) or a bare string, which is both its code and its text. Other
 * fields are the policy's own (intermediate values) and are ignored. One reason given alone (not in a list) is a list
 * of one.
 */
export const policyResultSchema = z
  .object({
    decision: z.enum(DECISION_VALUES).optional(),
    // A table's author naturally writes one reason as it is ("OK", or one {code, text}): a list of one.
    reasons: z.union([z.array(reasonSchema), reasonSchema]).optional(),
    risk_band: z.string().min(1).nullable().optional(),
    credit_limit: z.number().nonnegative().nullable().optional(),
  })
  .loose();
export type PolicyResult = z.infer<typeof policyResultSchema>;

const DECISION_SET: ReadonlySet<unknown> = new Set(DECISION_VALUES);

const isReason = (reason: unknown): boolean =>
  typeof reason === 'string'
    ? reason.length > 0
    : typeof reason === 'object' &&
      reason !== null &&
      !Array.isArray(reason) &&
      typeof (reason as { code?: unknown }).code === 'string' &&
      (reason as { code: string }).code.length > 0 &&
      ((reason as { text?: unknown }).text === undefined ||
        typeof (reason as { text?: unknown }).text === 'string');

/**
 * Whether a result is one {@link policyResultSchema} accepts as it is, checked without zod: every answer of every
 * row goes through here, and zod's parse costs several microseconds a result. False sends the result to zod, whose
 * message then says what is wrong (`test/domain/decision/decision.test.ts` holds the two to the same verdicts).
 */
export function isPlainResult(value: Record<string, unknown>): boolean {
  const { decision, reasons, risk_band: band, credit_limit: limit } = value;
  if (decision !== undefined && !DECISION_SET.has(decision)) return false;
  if (band !== undefined && band !== null && !(typeof band === 'string' && band.length > 0)) return false;
  if (
    limit !== undefined &&
    limit !== null &&
    !(typeof limit === 'number' && Number.isFinite(limit) && limit >= 0)
  )
    return false;
  return reasons === undefined || isReason(reasons) || (Array.isArray(reasons) && reasons.every(isReason));
}

/** A decision as it is stored (`reports.jsonl`, `decisions.csv` read back). */
export const decisionSchema = z.object({
  decision: z.enum(DECISION_VALUES),
  reasons: z.array(z.object({ code: z.string().min(1), text: z.string() })),
  risk_band: z.string().nullable(),
  credit_limit: z.number().nonnegative().nullable(),
  detail: z.string().nullable(),
  trace: z.array(
    z.object({
      node: z.string(),
      nodeId: z.string(),
      rule: z.string(),
      row: z.number().int().positive().nullable(),
      description: z.string().nullable(),
    }),
  ),
}) satisfies z.ZodType<Decision>;

type GivenReason = z.infer<typeof reasonSchema>;

const reasonOf = (reason: GivenReason): DecisionReason =>
  typeof reason === 'string'
    ? { code: reason, text: OWN_REASON_TEXTS[reason] ?? reason }
    : { code: reason.code, text: reason.text ?? OWN_REASON_TEXTS[reason.code] ?? reason.code };

/** The more severe of two decisions (the first when they are equal). */
const moreSevere = (worst: DecisionValue, next: DecisionValue): DecisionValue =>
  SEVERITY[next] > SEVERITY[worst] ? next : worst;

/** The most severe of decisions. */
export const mostSevere = (decisions: readonly DecisionValue[]): DecisionValue =>
  decisions.reduce<DecisionValue>(moreSevere, 'approve');

/** The first risk band given by the results (of one decision only, when named). */
function firstBand(results: readonly PolicyResult[], of?: DecisionValue): string | null {
  for (const result of results) {
    if ((of === undefined || result.decision === of) && result.risk_band) return result.risk_band;
  }
  return null;
}

/**
 * Several results (a `collect` table's rows, several tables) as one decision:
 * - the most severe decision wins (decline > review > approve); results without a decision add only their reasons,
 *   band and limit;
 * - reasons are kept in the order of the results, each code once (its first text);
 * - the risk band is the first one given by a result of the winning decision, else the first one given at all;
 * - the credit limit is the lowest one given (the most cautious), and 0 when the decision is decline.
 * Null when no result holds a decision. (Written as plain loops: it runs for every row a policy decides.)
 */
export function combineResults(
  results: readonly PolicyResult[],
): Pick<Decision, 'decision' | 'reasons' | 'risk_band' | 'credit_limit'> | null {
  let decision: DecisionValue | null = null;
  let lowest: number | null = null;
  const reasons: DecisionReason[] = [];
  for (const result of results) {
    const value = result.decision;
    if (value !== undefined) decision = decision === null ? value : moreSevere(decision, value);
    const limit = result.credit_limit;
    if (typeof limit === 'number') lowest = lowest === null ? limit : Math.min(lowest, limit);
    const listed = result.reasons;
    for (const given of listed === undefined ? [] : Array.isArray(listed) ? listed : [listed]) {
      const code = typeof given === 'string' ? given : given.code;
      if (!reasons.some((reason) => reason.code === code)) reasons.push(reasonOf(given));
    }
  }
  if (decision === null) return null;
  return {
    decision,
    reasons,
    risk_band: firstBand(results, decision) ?? firstBand(results),
    credit_limit: decision === 'decline' && lowest !== null ? 0 : lowest,
  };
}

/** A row whose policy could not decide: always `review`, never `approve`, with the error in `detail`. */
export function policyError(detail: string, trace: readonly FiredRule[] = []): Decision {
  return {
    decision: 'review',
    reasons: [reasonOf(POLICY_ERROR)],
    risk_band: null,
    credit_limit: null,
    detail,
    trace,
  };
}

/** A rule of the policy that could not be evaluated on this input, and the fields that made it so. */
export interface UnknownRule {
  readonly rule: FiredRule;
  readonly fields: readonly string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const RESULT_FIELDS = ['decision', 'reasons', 'risk_band', 'credit_limit'] as const;
const looksLikeResult = (value: unknown): value is Record<string, unknown> =>
  isRecord(value) &&
  ('decision' in value || 'reasons' in value || 'risk_band' in value || 'credit_limit' in value);

// Keys of an answer that are never results: the result's own fields, and the decision input passed through by a
// table with `passThrough` (the customer's columns could hold a column named `decision`).
const NOT_RESULTS: ReadonlySet<string> = new Set([...RESULT_FIELDS, ...DECISION_INPUT_FIELDS]);

/**
 * The results an answer holds: the answer itself when it carries result fields, the elements of an array answer (a
 * `collect` table feeding the output), and the results one level down, under a key (a table with an `outputPath`,
 * e.g. `restricoes: [...]`).
 */
export function resultsOfAnswer(answer: unknown): unknown[] {
  const results: unknown[] = [];
  if (Array.isArray(answer)) {
    for (const item of answer) if (looksLikeResult(item)) results.push(item);
    return results;
  }
  if (!isRecord(answer)) return results;
  if (looksLikeResult(answer)) results.push(answer);
  for (const key of Object.keys(answer)) {
    if (NOT_RESULTS.has(key)) continue;
    const value = answer[key];
    if (!Array.isArray(value)) {
      if (looksLikeResult(value)) results.push(value);
      continue;
    }
    for (const item of value) if (looksLikeResult(item)) results.push(item);
  }
  return results;
}

const describe = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
};

function missingData(unknown: readonly UnknownRule[]): { result: PolicyResult; detail: string } {
  const detail = unknown
    .map(
      ({ rule, fields }) =>
        `rule ${rule.rule} (row ${rule.row ?? '-'}) of "${rule.node}" reads ${fields.join(', ')}`,
    )
    .join('; ');
  return {
    result: { decision: 'review', reasons: [MISSING_DATA] },
    detail: `missing or unusable data: ${detail}`,
  };
}

/**
 * The decision an answer of the policy makes, or a `POLICY_ERROR` review when the answer breaks the contract: an
 * answer with no decision anywhere (`{}`, `null`), a decision outside approve/review/decline (`"maybe"`), a reason,
 * band or limit of the wrong shape. Rules that could not be evaluated (`unknown`) add a `MISSING_DATA` review: a
 * missing figure can make a decision more cautious, never less.
 */
export function decisionFromAnswer(
  answer: unknown,
  trace: readonly FiredRule[],
  unknown: readonly UnknownRule[] = [],
): Decision {
  const candidates = resultsOfAnswer(answer);
  const results: PolicyResult[] = [];
  for (let index = 0; index < candidates.length; index++) {
    const candidate = candidates[index] as Record<string, unknown>;
    if (isPlainResult(candidate)) {
      results.push(candidate as PolicyResult);
      continue;
    }
    const parsed = policyResultSchema.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.join('.') || 'result';
      return policyError(
        `result ${index + 1} of the answer: ${where}: ${issue?.message} in ${describe(candidate)}`,
        trace,
      );
    }
    results.push(parsed.data);
  }
  const missing = unknown.length > 0 ? missingData(unknown) : null;
  if (missing) results.push(missing.result);
  const combined = combineResults(results);
  if (combined === null) return policyError(`the policy answered no decision: ${describe(answer)}`, trace);
  return {
    decision: combined.decision,
    reasons: combined.reasons,
    risk_band: combined.risk_band,
    credit_limit: combined.credit_limit,
    detail: missing?.detail ?? null,
    trace,
  };
}
