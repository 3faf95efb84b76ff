/**
 * The compiled evaluator against ZEN itself, the reference: every answer it gives must be ZEN's, and every failure
 * it predicts must be one ZEN has. It may leave an evaluation to ZEN (DeferToZen), but not so often that this test
 * would pass by deferring: each block bounds how much it left.
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { evaluateExpressionSync, evaluateUnaryExpressionSync, ZenEngine } from '@gorules/zen-engine';
import { describe, expect, it } from 'vitest';
import {
  compileStandard,
  compileUnary,
} from '../../../src/adapters/decision/compiled/expression-compiler.ts';
import { DeferToZen, ZenVmError } from '../../../src/adapters/decision/compiled/zen-semantics.ts';
import { loadZenCreditPolicy, markedAndCompiled } from '../../../src/adapters/decision/zen-credit-policy.ts';
import { SeededRandom } from '../../../tools/emulator/seeded-random.ts';

type Outcome = { kind: 'value'; value: unknown } | { kind: 'error' } | { kind: 'deferred' };

function ours(run: () => unknown): Outcome {
  try {
    return { kind: 'value', value: run() };
  } catch (error) {
    if (error instanceof DeferToZen) return { kind: 'deferred' };
    if (error instanceof ZenVmError) return { kind: 'error' };
    throw error;
  }
}

function zens(run: () => unknown): Outcome {
  try {
    return { kind: 'value', value: run() };
  } catch {
    return { kind: 'error' };
  }
}

/** Tallies outcomes; answers the disagreements (none expected). */
function compare(cases: readonly { label: string; own: Outcome; zen: Outcome }[]) {
  const disagreements = cases.filter(({ own, zen }) => {
    if (own.kind === 'deferred') return false;
    if (own.kind === 'error') return zen.kind !== 'error';
    return zen.kind !== 'value' || !isDeepStrictEqual(own.value, zen.value);
  });
  const deferred = cases.filter(({ own }) => own.kind === 'deferred').length;
  return { disagreements: disagreements.map(({ label, own, zen }) => ({ label, own, zen })), deferred };
}

const CONTEXTS: readonly Record<string, unknown>[] = [
  { score: 650, amount: 1234.55, income: 0.1, status: 'ATIVA', flag: true, none: null, list: [1, 2.5, 3] },
  { score: null, amount: 0, income: 3333.33, status: 'regular', flag: false, none: null, list: [] },
  { score: 299.5, amount: -20, income: null, status: '', flag: null, none: null, list: [0.1, 0.2] },
  { score: 1000, amount: 0.3, income: 7, status: null, flag: true, none: null, list: ['a', 1] },
  { score: 0, amount: 50000.5, income: 1e-7, status: 'X', flag: false, none: null, list: null },
].map((base) => ({ ...base, input: { requested_amount: base.amount, segmento: base.status } }));

const EXPRESSIONS = [
  'score',
  'score + 1',
  'amount * 0.3',
  'income * 3',
  'amount - income',
  'amount / income',
  'amount / 0',
  'income / 3',
  '0.3 / 0.1',
  '2 / 3 * 3',
  'amount % 7',
  '2 ^ 10',
  '-amount',
  '-2 ^ 2',
  '2 ^ 3 ^ 2',
  '1 + 2 * 3 - 4 / 2',
  'score > 600',
  'score >= 650 and amount < 2000',
  'score != null and score < 300',
  'score < 300',
  'status == "ATIVA"',
  'status != "ATIVA"',
  'status == null',
  'flag and true',
  'flag or false',
  'not flag',
  '!flag',
  'none ?? 5',
  'score ?? 0',
  'flag ? "sim" : "não"',
  'score > 500 ? score * 2 : null',
  'type(score)',
  'type(status)',
  'type(list)',
  'type(input)',
  'type(input.requested_amount) == "number" ? min([input.requested_amount, 10000]) : 10000',
  'max([score, 100])',
  'sum(list)',
  'min(list)',
  'abs(amount)',
  'round(amount)',
  'floor(income)',
  'ceil(income)',
  'upper(status)',
  'lower(status)',
  'startsWith(status, "AT")',
  'endsWith(status, "VA")',
  'score in [600..700)',
  'score in (600..700]',
  'score not in [0..300]',
  'status in ["ATIVA", "regular"]',
  'status not in ["ATIVA"]',
  'input.requested_amount',
  'input["segmento"]',
  'input.missing.deeper',
  'list[0]',
  '[1, score, "x"]',
  '{code: "A", text: "B", value: score}',
  '"a" + status',
  'amount + status',
  'score > 1 > 0',
  '1 < 2 == true',
  'not true == false',
  '(none ?? 1) + 1',
  '0.1 + 0.2 == 0.3',
  '1234.55 * 0.3',
  '10 - 0.3',
  '1_000 * 1e3',
  '1234.5678 * 9876.5432',
  'amount / 7 * 7',
  '(score - 500) / 7',
  'amount / 3 > 411.516666666666',
  'income * income * income',
  'sum([amount, income, 0.07])',
];

const UNARY_CELLS = [
  '< 300',
  '>= 850',
  '[300..500)',
  '(300..500]',
  '"ATIVA"',
  '"2", "4", "5"',
  'null',
  'null, <= 5000',
  '> 0, < -10',
  '$ != null and $ < 18',
  '$ != null and $ >= 0.5',
  '5000',
  'true',
  '[1, 2, 650]',
  '== 650',
  '!= 650',
];
const REFERENCES: readonly unknown[] = [
  null,
  0,
  17,
  18,
  299.99,
  300,
  500,
  650,
  850,
  5000,
  'ATIVA',
  '4',
  true,
];

describe('compiled expressions against ZEN', () => {
  it('give ZEN’s value, or fail where ZEN fails, for every expression and context', () => {
    // Arrange
    const cases = EXPRESSIONS.flatMap((expression) => {
      const compiled = compileStandard(expression);
      return CONTEXTS.map((context) => ({
        label: `${expression} on ${JSON.stringify(context)}`,
        own: ours(() => compiled({ input: context as never, reference: null })),
        zen: zens(() => evaluateExpressionSync(expression, context)),
      }));
    });

    // Act
    const { disagreements, deferred } = compare(cases);

    // Assert
    expect(disagreements).toEqual([]);
    expect(deferred).toBeLessThan(cases.length * 0.1);
  });

  it('hold a table cell exactly when ZEN holds it, for every reference value', () => {
    // Arrange
    const cases = UNARY_CELLS.flatMap((cell) => {
      const compiled = compileUnary(cell);
      return REFERENCES.map((reference) => ({
        label: `${cell} on ${JSON.stringify(reference)}`,
        own: ours(() => compiled({ input: {}, reference: reference as never })),
        zen: zens(() => evaluateUnaryExpressionSync(cell, { $: reference })),
      }));
    });

    // Act
    const { disagreements, deferred } = compare(cases);

    // Assert
    expect(disagreements).toEqual([]);
    expect(deferred).toBeLessThan(cases.length * 0.1);
  });
});

/** A decision input with every kind of value the report figures can have, nulls and edge values included. */
function randomContext(random: SeededRandom): Record<string, unknown> {
  const pick = <T>(values: readonly T[]): T => values[random.integer(0, values.length - 1)] as T;
  const figure = (edges: readonly (number | null)[]) =>
    random.chance(0.5) ? pick(edges) : random.chance(0.15) ? null : random.integer(0, 10_000_000) / 100;
  return {
    input_version: 1,
    document_type: pick(['cpf', 'cnpj']),
    bureau: pick(['a', 'b']),
    score: figure([null, 0, 299, 300, 399, 400, 499, 500, 599, 600, 749, 750, 850, 899, 900, 1000]),
    default_probability_pct: figure([null, 0, 29.99, 30, 50]),
    registration_status: pick(['0', '2', '3', '4', '5', '8', '9', 'regular', 'ATIVA', 'BAIXADA', null]),
    age_years: figure([null, 17, 18, 30]),
    company_age_years: figure([null, 0, 0.5, 1, 2.9, 3, 10]),
    protests_count: figure([0, 1, 3]),
    protests_amount: figure([null, 0, 5000, 5000.01, 20000, 20000.01]),
    bounced_cheques_count: figure([0, 2]),
    bounced_cheques_amount: figure([null, 0, 1000, 1000.01, 5000.01]),
    stopped_cheques_count: figure([null, 0, 1]),
    pending_debts_count: figure([0, 1, 4]),
    pending_debts_amount: figure([null, 0, 0.1, 500, 1234.55, 3000]),
    queries_last_90_days: figure([null, 0, 10, 11]),
    presumed_income: figure([null, 0, 0.1, 1234.55, 3333.33]),
    companies_count: figure([null, 0, 2]),
    input: {
      requested_amount: pick([null, 0, 0.3, 1000, 1234.55, 10000, 50000.5, 200001, 'a combinar']),
      segmento: pick(['varejo', null]),
    },
  };
}

/** A policy's compiled form against ZEN on `count` varied inputs: the disagreements and how many were left to ZEN. */
async function differential(contents: string | Uint8Array, seed: string, count: number) {
  const forms = markedAndCompiled(contents);
  const compiled = forms?.compiled;
  if (!forms || !compiled) throw new Error(`${seed}: the policy did not compile`);
  const zen = new ZenEngine().createDecision(forms.marked);
  const random = new SeededRandom(seed);
  const cases: { label: string; own: Outcome; zen: Outcome }[] = [];
  for (let index = 0; index < count; index++) {
    const context = randomContext(random);
    const reference = await zen.evaluate(context).then(
      (response): Outcome => ({ kind: 'value', value: response.result }),
      (): Outcome => ({ kind: 'error' }),
    );
    cases.push({
      label: JSON.stringify(context),
      own: ours(() => compiled.evaluate(context as never)),
      zen: reference,
    });
  }
  return compare(cases);
}

const SAMPLES = ['samples/policies/pessoa-fisica.json', 'samples/policies/pessoa-juridica.json'];

describe('compiled policies against ZEN', () => {
  it.each(SAMPLES)('answer as ZEN answers the marked graph of %s, on 2,000 varied inputs', async (path) => {
    // Arrange
    const contents = readFileSync(path);

    // Act
    const { disagreements, deferred } = await differential(contents, `differential ${path}`, 2000);

    // Assert
    expect(disagreements).toEqual([]);
    expect(deferred).toBeLessThan(20);
  });

  it.each(SAMPLES)(
    'decide %s as the engine alone does: decision, reasons, limit and the rules that fired',
    async (path) => {
      // Arrange
      const contents = readFileSync(path);
      const load = (interpretedOnly: boolean) => {
        const loaded = loadZenCreditPolicy(path, contents, { interpretedOnly });
        if (!loaded.ok) throw new Error(loaded.error);
        return loaded.policy;
      };
      const compiled = load(false);
      const interpreted = load(true);
      const random = new SeededRandom(`decisions ${path}`);
      const inputs = Array.from({ length: 500 }, () => randomContext(random));

      // Act
      const own = [];
      const reference = [];
      for (const input of inputs) {
        own.push(await compiled.decide(input as never));
        reference.push(await interpreted.decide(input as never));
      }

      // Assert
      expect(own).toEqual(reference);
      expect(new Set(own.map((decision) => decision.decision)).size).toBeGreaterThan(1);
    },
  );
});

const node = (id: string, type: string, content?: unknown) => ({
  id,
  name: id,
  type,
  ...(content ? { content } : {}),
});
const edge = (sourceId: string, targetId: string, sourceHandle?: string) => ({
  id: `${sourceId}-${targetId}-${sourceHandle ?? ''}`,
  sourceId,
  targetId,
  ...(sourceHandle ? { sourceHandle } : {}),
});
const transform = (extra: Record<string, unknown> = {}) => ({
  passThrough: false,
  inputField: null,
  outputPath: null,
  executionMode: 'single',
  ...extra,
});
const scoreTable = (id: string, hitPolicy: 'first' | 'collect', extra: Record<string, unknown> = {}) =>
  node(id, 'decisionTableNode', {
    hitPolicy,
    ...transform(extra),
    inputs: [{ id: 'c1', name: 'Score', field: 'score' }],
    outputs: [
      { id: 'o1', name: 'decision', field: 'decision' },
      { id: 'o2', name: 'limit', field: 'credit_limit' },
      { id: 'o3', name: 'reasons', field: 'reasons' },
    ],
    rules: [
      { _id: `${id}-1`, c1: '< 400', o1: '"decline"', o2: '', o3: '["SCORE_BAIXO"]' },
      { _id: `${id}-2`, c1: '[400..700)', o1: '"review"', o2: 'presumed_income * 0.5', o3: '' },
      { _id: `${id}-3`, c1: '>= 700', o1: '"approve"', o2: 'presumed_income ?? 1000', o3: '' },
    ],
  });

/** Graphs that use what the samples do not: pass-through, nested output paths, a collect switch, joined branches. */
const CRAFTED: Record<string, unknown> = {
  'first table, pass-through, no row for a null score': {
    nodes: [
      node('in', 'inputNode'),
      scoreTable('t', 'first', { passThrough: true }),
      node('out', 'outputNode'),
    ],
    edges: [edge('in', 't'), edge('t', 'out')],
  },
  'collect table under a nested path, then a combining expression': {
    nodes: [
      node('in', 'inputNode'),
      scoreTable('t', 'collect', { outputPath: 'regras.score', passThrough: true }),
      node('x', 'expressionNode', {
        ...transform({ passThrough: true }),
        expressions: [
          { id: 'e1', key: 'decision', value: 'score != null and score < 500 ? "decline" : "approve"' },
          { id: 'e2', key: 'detalhe.margem', value: 'score != null ? (score - 500) / 7 : null' },
        ],
      }),
      node('out', 'outputNode'),
    ],
    edges: [edge('in', 't'), edge('t', 'x'), edge('x', 'out')],
  },
  'collect switch whose branches join again': {
    nodes: [
      node('in', 'inputNode'),
      node('s', 'switchNode', {
        hitPolicy: 'collect',
        statements: [
          { id: 's1', condition: 'protests_count > 0' },
          { id: 's2', condition: 'type(score) == "number" and score < 600' },
          { id: 's3', condition: '' },
        ],
      }),
      node('a', 'expressionNode', {
        ...transform({ outputPath: 'protesto' }),
        expressions: [{ id: 'a1', key: 'decision', value: '"review"' }],
      }),
      node('b', 'expressionNode', {
        ...transform({ outputPath: 'score' }),
        expressions: [{ id: 'b1', key: 'decision', value: '"decline"' }],
      }),
      node('c', 'expressionNode', {
        ...transform(),
        expressions: [{ id: 'c1', key: 'decision', value: '"approve"' }],
      }),
      node('out', 'outputNode'),
    ],
    edges: [
      edge('in', 's'),
      edge('s', 'a', 's1'),
      edge('s', 'b', 's2'),
      edge('s', 'c', 's3'),
      edge('a', 'out'),
      edge('b', 'out'),
      edge('c', 'out'),
    ],
  },
};

describe('compiled crafted policies against ZEN', () => {
  it.each(Object.keys(CRAFTED))('%s: compiled, and answers as ZEN on 1,000 inputs', async (name) => {
    // Arrange
    const contents = JSON.stringify(CRAFTED[name]);

    // Act
    const { disagreements, deferred } = await differential(contents, `crafted ${name}`, 1000);

    // Assert
    expect(disagreements).toEqual([]);
    expect(deferred).toBeLessThan(100);
  });

  it('leaves a policy it cannot compile to ZEN, which decides it as before', async () => {
    // Arrange: `contains` is not among the functions compiled.
    const policy = {
      nodes: [
        node('in', 'inputNode'),
        node('x', 'expressionNode', {
          ...transform(),
          expressions: [
            {
              id: 'x1',
              key: 'decision',
              value: 'contains(registration_status ?? "", "AT") ? "approve" : "review"',
            },
          ],
        }),
        node('out', 'outputNode'),
      ],
      edges: [edge('in', 'x'), edge('x', 'out')],
    };
    const loadedPolicy = loadZenCreditPolicy('contains.json', JSON.stringify(policy));
    if (!loadedPolicy.ok) throw new Error(loadedPolicy.error);

    // Act
    const forms = markedAndCompiled(JSON.stringify(policy));
    const active = await loadedPolicy.policy.decide({ registration_status: 'ATIVA' } as never);
    const other = await loadedPolicy.policy.decide({ registration_status: 'BAIXADA' } as never);

    // Assert
    expect(forms?.compiled).toBeNull();
    expect([active.decision, other.decision]).toEqual(['approve', 'review']);
  });
});
