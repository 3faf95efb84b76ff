/**
 * A policy tried on synthetic customers when it is loaded, before anything is bought: a person and a company, each
 * with every figure null, zero, typical and extreme, and the customer columns it reads empty, zero, typical, text and
 * extreme. An answer that breaks the decision contract on any of them (no decision, a decision outside
 * approve/review/decline, a reason, band or limit of the wrong shape) refuses the policy, naming the customer, the
 * node that writes the field and the problem: such a policy would make every such row a `POLICY_ERROR` review after
 * the batch was bought. An engine error on these values is not a refusal: a row ZEN cannot evaluate is a
 * `POLICY_ERROR` review, never an approval, and real lists hold such rows.
 */
import { BUREAUS, type Bureau } from '../../domain/bureau/bureau-ids.ts';
import type { CustomerValue, Decision, DecisionFigures, DecisionInput } from '../../domain/decision/index.ts';
import type { CreditPolicy } from '../../domain/ports/index.ts';
import { type JdmNode, nodeLabel } from './jdm-model.ts';
import type { Analysis } from './policy-graph.ts';

type Level = 'null' | 'zero' | 'typical' | 'extreme';

/**
 * A figure at each level (money in reais); counts are never null in the decision input. `fullReport`: a report with
 * stopped cheques and recent queries but no company participations (as one bureau reports a person), or the other
 * way round (as another reports a company), so both shapes of null are tried.
 */
function figures(
  documentType: 'cpf' | 'cnpj',
  bureau: Bureau,
  level: Level,
  fullReport: boolean,
): DecisionFigures {
  const pick = <T>(values: Record<Level, T>): T => values[level];
  const money = pick({ null: null, zero: 0, typical: 1523.45, extreme: 987_654_321_012.34 });
  const count = pick({ null: 0, zero: 0, typical: 2, extreme: 99_999 });
  const person = documentType === 'cpf';
  return {
    input_version: 1,
    document_type: documentType,
    bureau,
    score: pick({ null: null, zero: 0, typical: 640, extreme: 1000 }),
    default_probability_pct: pick({ null: null, zero: 0, typical: 12.5, extreme: 100 }),
    protests_count: count,
    protests_amount: money,
    pending_debts_count: count,
    pending_debts_amount: money,
    bounced_cheques_count: count,
    bounced_cheques_amount: money,
    stopped_cheques_count: fullReport ? count : null,
    stopped_cheques_amount: fullReport ? money : null,
    age_years: person ? pick({ null: null, zero: 0, typical: 37, extreme: 130 }) : null,
    company_age_years: person ? null : pick({ null: null, zero: 0, typical: 8, extreme: 200 }),
    registration_status: pick({ null: null, zero: '', typical: person ? '0' : 'ATIVA', extreme: 'BAIXADA' }),
    companies_count: fullReport ? null : count,
    queries_last_90_days: fullReport ? count : null,
    presumed_income: money,
    screened_at: '2026-01-15T12:00:00.000Z',
  };
}

const COLUMN_VALUES: readonly CustomerValue[] = [null, 0, 5000, 'texto', 999_999_999_999];
/** The customers whose columns hold the typical value: a result of the wrong shape is judged on these only. */
const TYPICAL_COLUMNS = 2;

/** A synthetic customer, with a label for the refusal's message. */
interface SyntheticInput {
  readonly label: string;
  readonly input: DecisionInput;
  /** Whether its customer columns hold a typical amount (not empty, zero, text or extreme). */
  readonly typicalColumns: boolean;
}

/** The synthetic customers. */
function syntheticInputs(columns: readonly string[]): SyntheticInput[] {
  const inputs: SyntheticInput[] = [];
  const [first, last] = [BUREAUS[0], BUREAUS[BUREAUS.length - 1]] as [Bureau, Bureau];
  const subjects = [
    ['cpf', first, true],
    ['cnpj', last, false],
  ] as const;
  for (const [documentType, bureau, fullReport] of subjects) {
    for (const level of ['null', 'zero', 'typical', 'extreme'] as const) {
      for (const [position, value] of COLUMN_VALUES.entries()) {
        // Every column value with the typical figures; the other levels with typical columns only.
        if (level !== 'typical' && position !== TYPICAL_COLUMNS) continue;
        const input = Object.fromEntries(columns.map((column) => [column, value]));
        inputs.push({
          label: `${documentType === 'cpf' ? 'a person' : 'a company'} (bureau ${bureau.toUpperCase()}) with ${level} figures${columns.length > 0 ? ` and columns ${JSON.stringify(value)}` : ''}`,
          input: { ...figures(documentType, bureau, level, fullReport), input },
          typicalColumns: position === TYPICAL_COLUMNS,
        });
      }
    }
  }
  return inputs;
}

/** A result of the wrong shape in a decision's detail: the field it names. */
const MALFORMED = /^result \d+ of the answer: (?<field>[^:]+):/;
const NO_DECISION = /^the policy answered no decision/;

/** The nodes that write a field, those whose rules fired on this decision first. */
function writersOf(field: string, decision: Decision, nodes: readonly JdmNode[]): JdmNode[] {
  const root = field.split('.')[0] ?? field;
  const writes = (name: string) => name === root || name.endsWith(`.${root}`);
  const writers = nodes.filter((node) =>
    node.type === 'decisionTableNode'
      ? node.content.outputs.some((output) => writes(output.field))
      : node.type === 'expressionNode' && node.content.expressions.some((item) => writes(item.key)),
  );
  const fired = new Set(decision.trace.map((rule) => rule.nodeId));
  const firedWriters = writers.filter((node) => fired.has(node.id));
  return firedWriters.length > 0 ? firedWriters : writers;
}

/**
 * The first way the policy's answers on the synthetic customers break the decision contract, as one line naming the
 * customer, the node and the output; null when they fit. A result of the wrong shape on any customer with typical
 * columns refuses the policy (it is the policy's writing, and would be wrong on every such row); no decision for one customer does not
 * (a table may leave some customers undecided: those rows become reviews), but no decision for any of them does.
 */
export async function unfitAnswer(policy: CreditPolicy, analysis: Analysis): Promise<string | null> {
  const inputs = syntheticInputs(analysis.customerColumnsRead);
  const decisions = await Promise.all(inputs.map(({ input }) => policy.decide(input)));
  for (const [index, decision] of decisions.entries()) {
    // A customer's column may be text on some rows of a real list (`credit_limit` from `input.limite`): those rows
    // are reviews, the policy is not unfit.
    if (!inputs[index]?.typicalColumns) continue;
    const malformed = decision.detail === null ? null : MALFORMED.exec(decision.detail);
    if (malformed === null) continue;
    const field = malformed.groups?.field ?? '';
    const where = writersOf(field, decision, analysis.graph.nodes).map(nodeLabel).join(', ');
    const detail = (decision.detail as string).replace(/^result \d+ of the answer: /, '');
    return `its answer does not fit the decision contract${where ? ` in ${where}` : ''}, for ${inputs[index]?.label}: ${detail}`;
  }
  const undecided = decisions.filter((decision) => NO_DECISION.test(decision.detail ?? ''));
  if (undecided.length === decisions.length)
    return `it answers no decision for any of ${decisions.length} synthetic customers (persons and companies, figures null, zero, typical and extreme): ${undecided[0]?.detail}`;
  return null;
}
