import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  combineResults,
  type Decision,
  type DecisionReason,
  decisionFromAnswer,
  decisionSchema,
  type FiredRule,
  isPlainResult,
  MISSING_DATA,
  mapInOrder,
  POLICY_ERROR,
  policyError,
  policyResultSchema,
  resultsOfAnswer,
} from '../../../src/domain/decision/index.ts';

const rule = (id: string, row: number | null = 1): FiredRule => ({
  node: 'Regras',
  nodeId: 'regras',
  rule: id,
  row,
  description: null,
});

const codes = (decision: Pick<Decision, 'reasons'>) => decision.reasons.map((reason) => reason.code);

describe('combineResults (a collect table, several tables)', () => {
  it('gives the most severe decision: decline over review over approve, in any order', () => {
    const decisions = ['approve', 'review', 'decline'] as const;
    for (const first of decisions) {
      for (const second of decisions) {
        const combined = combineResults([{ decision: first }, { decision: second }]);
        const expected = [first, second].includes('decline')
          ? 'decline'
          : [first, second].includes('review')
            ? 'review'
            : 'approve';
        expect(combined?.decision).toBe(expected);
      }
    }
  });

  it('keeps the reasons in the order of the results, each code once with its first text', () => {
    const combined = combineResults([
      { decision: 'review', reasons: [{ code: 'PROTESTO', text: 'Protesto em cartório' }] },
      { decision: 'decline', reasons: ['CCF', { code: 'PROTESTO', text: 'outro texto' }] },
      { decision: 'approve', reasons: [] },
      { reasons: [{ code: 'SCORE_BAIXO', text: 'Score baixo' }] },
    ]);
    const expected: DecisionReason[] = [
      { code: 'PROTESTO', text: 'Protesto em cartório' },
      { code: 'CCF', text: 'CCF' },
      { code: 'SCORE_BAIXO', text: 'Score baixo' },
    ];
    expect(combined?.reasons).toEqual(expected);
  });

  it('takes the risk band of the winning decision first, and the lowest limit', () => {
    const combined = combineResults([
      { decision: 'approve', risk_band: 'A', credit_limit: 15000 },
      { decision: 'review', risk_band: 'D', credit_limit: 1000 },
      { decision: 'review', risk_band: 'C' },
      { credit_limit: 500 },
    ]);
    expect(combined).toMatchObject({ decision: 'review', risk_band: 'D', credit_limit: 500 });
  });

  it('takes any band when the winning results give none, and no limit when none is given', () => {
    expect(combineResults([{ decision: 'approve', risk_band: 'B' }, { decision: 'review' }])).toMatchObject({
      decision: 'review',
      risk_band: 'B',
      credit_limit: null,
    });
  });

  it('gives a decline a limit of 0', () => {
    expect(
      combineResults([
        { decision: 'approve', credit_limit: 8000 },
        { decision: 'decline', credit_limit: 3000 },
      ])?.credit_limit,
    ).toBe(0);
  });

  it('is null without any decision', () => {
    expect(combineResults([])).toBeNull();
    expect(combineResults([{ reasons: ['X'], risk_band: 'A' }])).toBeNull();
  });
});

describe('resultsOfAnswer', () => {
  it('finds the results of an object, an array, and a table’s output path', () => {
    expect(resultsOfAnswer({ decision: 'approve' })).toEqual([{ decision: 'approve' }]);
    expect(resultsOfAnswer([{ decision: 'review' }, {}, { decision: 'approve' }])).toEqual([
      { decision: 'review' },
      { decision: 'approve' },
    ]);
    expect(
      resultsOfAnswer({ decision: 'approve', restricoes: [{ decision: 'decline' }], calc: { ratio: 1 } }),
    ).toEqual([
      { decision: 'approve', restricoes: [{ decision: 'decline' }], calc: { ratio: 1 } },
      { decision: 'decline' },
    ]);
  });

  it('never reads the decision input passed through as a result (a customer column named decision)', () => {
    expect(resultsOfAnswer({ decision: 'approve', input: { decision: 'decline' } })).toHaveLength(1);
  });
});

describe('decisionFromAnswer', () => {
  const trace = [rule('r1')];

  it('decides from a collect table’s answer, with the trace', () => {
    const decision = decisionFromAnswer(
      [
        { decision: 'review', reasons: [{ code: 'PROTESTO', text: 'Protesto' }] },
        { decision: 'approve', risk_band: 'B', credit_limit: 8000 },
      ],
      trace,
    );
    expect(decision).toEqual({
      decision: 'review',
      reasons: [{ code: 'PROTESTO', text: 'Protesto' }],
      risk_band: 'B',
      credit_limit: 8000,
      detail: null,
      trace,
    });
    expect(decisionSchema.parse(decision)).toEqual(decision);
  });

  it.each([
    ['an empty answer', {}],
    ['a null answer', null],
    ['an empty list', []],
    ['results without a decision', { reasons: ['X'] }],
  ])('makes %s a POLICY_ERROR review, never an approval', (_, answer) => {
    const decision = decisionFromAnswer(answer, trace);
    expect(decision).toMatchObject({ decision: 'review', risk_band: null, credit_limit: null });
    expect(codes(decision)).toEqual([POLICY_ERROR]);
    expect(decision.detail).toMatch(/no decision/);
    expect(decision.trace).toEqual(trace);
  });

  it.each([
    ['an unknown decision', { decision: 'maybe' }, /decision/],
    ['a negative limit', { decision: 'approve', credit_limit: -1 }, /credit_limit/],
    ['a limit as text', { decision: 'approve', credit_limit: '1000' }, /credit_limit/],
    ['a reason without a code', { decision: 'approve', reasons: [{ text: 'x' }] }, /reasons/],
    ['one bad result among good ones', [{ decision: 'approve' }, { decision: 'APROVAR' }], /result 2/],
  ])('makes %s a POLICY_ERROR review with the value in the detail', (_, answer, detail) => {
    const decision = decisionFromAnswer(answer, trace);
    expect(decision.decision).toBe('review');
    expect(codes(decision)).toEqual([POLICY_ERROR]);
    expect(decision.detail).toMatch(detail);
  });

  it('adds a MISSING_DATA review for rules that could not be evaluated: never approve on a missing figure', () => {
    const unknown = [{ rule: rule('score-alto', 3), fields: ['score'] }];
    const decision = decisionFromAnswer({ decision: 'approve', risk_band: 'A' }, trace, unknown);
    expect(decision.decision).toBe('review');
    expect(codes(decision)).toEqual([MISSING_DATA]);
    expect(decision.detail).toBe('missing or unusable data: rule score-alto (row 3) of "Regras" reads score');
    // A stopped first table answers nothing at all: still a review, not a policy error.
    expect(codes(decisionFromAnswer({}, [], unknown))).toEqual([MISSING_DATA]);
    // A decline stays a decline: a missing figure only makes a decision more cautious.
    expect(decisionFromAnswer({ decision: 'decline' }, [], unknown).decision).toBe('decline');
  });

  it('writes the reasons it adds itself in pt-BR', () => {
    expect(policyError('boom').reasons[0]?.text).toMatch(/^Erro ao avaliar a política/);
    expect(decisionFromAnswer({}, [], [{ rule: rule('x'), fields: ['score'] }]).reasons[0]?.text).toMatch(
      /^Dados insuficientes/,
    );
  });
});

describe('mapInOrder', () => {
  it('yields in input order with at most `concurrency` steps in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const step = async (value: number) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, (7 - value) % 4));
      inFlight -= 1;
      return value * 10;
    };
    const results: number[] = [];
    for await (const result of mapInOrder([0, 1, 2, 3, 4, 5, 6], step, 3)) results.push(result);
    expect(results).toEqual([0, 10, 20, 30, 40, 50, 60]);
    expect(most).toBe(3);
  });

  it('surfaces a failed step in its turn, and refuses a concurrency below 1', async () => {
    const step = (value: number) =>
      value === 1 ? Promise.reject(new Error('boom')) : Promise.resolve(value);
    const results: number[] = [];
    await expect(async () => {
      for await (const result of mapInOrder([0, 1, 2], step, 2)) results.push(result);
    }).rejects.toThrow('boom');
    expect(results).toEqual([0]);
    await expect(mapInOrder([1], step, 0).next()).rejects.toThrow(RangeError);
  });
});

describe('isPlainResult', () => {
  const field = <T>(values: readonly T[]) =>
    fc.option(fc.oneof(fc.constantFrom(...values), fc.anything()), { nil: undefined });
  const reason = fc.oneof(
    fc.constantFrom('', 'SCORE', 7, null),
    fc.record(
      { code: fc.constantFrom('', 'CCF', 3), text: fc.constantFrom(undefined, 'Cheque', 2) },
      { requiredKeys: [] },
    ),
  );
  const candidate = fc.record(
    {
      decision: field(['approve', 'review', 'decline', 'maybe', '', null]),
      reasons: fc.option(fc.oneof(fc.array(reason, { maxLength: 3 }), fc.anything()), { nil: undefined }),
      risk_band: field(['A', '', null]),
      credit_limit: field([0, -0, 2500, -1, Number.NaN, Number.POSITIVE_INFINITY, null]),
      outro: fc.anything(),
    },
    { requiredKeys: [] },
  );

  it('gives the schema’s verdict on every result, well-formed or not', () => {
    const verdicts = new Set<boolean>();
    fc.assert(
      fc.property(candidate, (value) => {
        verdicts.add(isPlainResult(value));
        expect(isPlainResult(value)).toBe(policyResultSchema.safeParse(value).success);
      }),
      { numRuns: 5000 },
    );
    expect(verdicts).toEqual(new Set([true, false]));
  });
});
