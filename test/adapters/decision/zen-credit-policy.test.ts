import { createHash } from 'node:crypto';
import { ZenEngine } from '@gorules/zen-engine';
import { describe, expect, it } from 'vitest';
import {
  loadZenCreditPolicy,
  zenCreditPolicyLoader,
} from '../../../src/adapters/decision/zen-credit-policy.ts';
import {
  type Decision,
  decisionSchema,
  MISSING_DATA,
  POLICY_ERROR,
} from '../../../src/domain/decision/index.ts';
import type { CreditPolicy, CreditPolicyLoad } from '../../../src/domain/ports/index.ts';
import {
  companyReport,
  inputOf,
  personReport,
  type ReportFigures,
} from '../../factories/decision-reports.ts';

type Cells = Record<string, string>;
interface TableSpec {
  readonly id?: string;
  readonly name?: string;
  readonly hitPolicy?: 'first' | 'collect';
  readonly inputs: readonly [string, string | null][];
  readonly outputs?: readonly string[];
  readonly rows: readonly Cells[];
  readonly outputPath?: string;
  readonly passThrough?: boolean;
}

/** A decision table whose columns are named as their fields; cells by field name (`decision`, `score`, …). */
function table(spec: TableSpec) {
  const id = spec.id ?? 'tabela';
  const outputs = spec.outputs ?? ['decision', 'reasons'];
  const column = (field: string | null, index: number) => `${field ?? 'expr'}-${index}`;
  return {
    id,
    type: 'decisionTableNode',
    name: spec.name ?? 'Regras',
    position: { x: 0, y: 0 },
    content: {
      hitPolicy: spec.hitPolicy ?? 'first',
      passThrough: spec.passThrough ?? false,
      inputField: null,
      outputPath: spec.outputPath ?? null,
      executionMode: 'single',
      inputs: spec.inputs.map(([name, field], index) => ({ id: column(field, index), name, field })),
      outputs: outputs.map((field) => ({ id: `out-${field}`, name: field, field })),
      rules: spec.rows.map((cells, index) => ({
        _id: `${id}-${index + 1}`,
        ...Object.fromEntries(
          spec.inputs.map(([, field], position) => [column(field, position), cells[field ?? 'expr'] ?? '']),
        ),
        ...Object.fromEntries(outputs.map((field) => [`out-${field}`, cells[field] ?? ''])),
      })),
    },
  };
}

/** A graph: input → each node → output (or edges as given). */
function graph(nodes: readonly Record<string, unknown>[], edges?: readonly [string, string, string?][]) {
  const ids = nodes.map((node) => node.id as string);
  const pairs =
    edges ??
    ids.flatMap(
      (id) =>
        [
          ['entrada', id],
          [id, 'saida'],
        ] as [string, string][],
    );
  return {
    nodes: [
      { id: 'entrada', type: 'inputNode', name: 'Relatório', position: { x: 0, y: 0 } },
      ...nodes,
      { id: 'saida', type: 'outputNode', name: 'Decisão', position: { x: 0, y: 0 } },
    ],
    edges: pairs.map(([sourceId, targetId, sourceHandle], index) => ({
      id: `e${index}`,
      sourceId,
      targetId,
      ...(sourceHandle ? { sourceHandle } : {}),
      type: 'edge',
    })),
  };
}

/** An expression node "Cálculo" that writes `decision` from one expression. */
const calculation = (value: string) => ({
  id: 'calc',
  type: 'expressionNode',
  name: 'Cálculo',
  content: { expressions: [{ id: 'x', key: 'decision', value }] },
});

const load = (policy: unknown, name = 'politica.json'): Promise<CreditPolicyLoad> =>
  loadZenCreditPolicy(name, typeof policy === 'string' ? policy : JSON.stringify(policy));

async function loaded(policy: unknown): Promise<CreditPolicy> {
  const result = await load(policy);
  if (!result.ok) throw new Error(result.error);
  return result.policy;
}

async function refusal(policy: unknown, name = 'politica.json'): Promise<string> {
  const result = await load(policy, name);
  if (result.ok) throw new Error('the policy was accepted');
  expect(result.error).not.toContain('\n');
  expect(result.error.startsWith(`${name}: `)).toBe(true);
  return result.error;
}

const codes = (decision: Decision) => decision.reasons.map((reason) => reason.code);

const SCORE_TABLE = table({
  inputs: [['Score', 'score']],
  rows: [{ score: '< 600', decision: '"decline"', reasons: '["SCORE_BAIXO"]' }, { decision: '"approve"' }],
});

describe('loading a policy: refused in one line naming the file and the node', () => {
  it.each<[string, unknown, RegExp]>([
    ['text that is not JSON', '{"nodes": [', /^politica\.json: not JSON: /],
    [
      'JSON that is not a graph',
      { rules: [] },
      /: not a JDM decision graph: it needs "nodes" and "edges" lists$/,
    ],
    [
      'a node of an unsupported type',
      graph([
        {
          id: 'f',
          type: 'functionNode',
          name: 'Código',
          content: { source: 'export const handler = () => ({})' },
        },
      ]),
      /: node "Código": type functionNode is not supported/,
    ],
    [
      'a table with an unknown hit policy',
      graph([{ ...SCORE_TABLE, content: { ...SCORE_TABLE.content, hitPolicy: 'unique' } }]),
      /: not a JDM decision graph: node "Regras": content\.hitPolicy: /,
    ],
    [
      'a cell that does not parse',
      graph([table({ inputs: [['Score', 'score']], rows: [{ score: '> > 5 ((', decision: '"decline"' }] })]),
      /: node "Regras", row 1, column "Score": "> > 5 \(\(" does not compile: parserError/,
    ],
    [
      'an output that does not parse',
      graph([table({ inputs: [['Score', 'score']], rows: [{ score: '< 600', decision: '"decline' }] })]),
      /: node "Regras", row 1, output "decision": .* does not compile/,
    ],
    [
      'a cell comparing a text field with a number',
      graph([
        table({
          inputs: [['Tipo', 'document_type']],
          rows: [{ document_type: '> 5', decision: '"decline"' }],
        }),
      ]),
      /: node "Regras", row 1, column "Tipo": "> 5" does not compile: vmError/,
    ],
    [
      'an expression node that does not parse',
      graph([calculation('score >')]),
      /: node "Cálculo", expression "decision": "score >" does not compile/,
    ],
    [
      'a switch condition that does not parse',
      graph(
        [
          {
            id: 'sw',
            type: 'switchNode',
            name: 'Ramo',
            content: { statements: [{ id: 's1', condition: 'score <' }] },
          },
          SCORE_TABLE,
        ],
        [
          ['entrada', 'sw'],
          ['sw', 'tabela', 's1'],
          ['tabela', 'saida'],
        ],
      ),
      /: node "Ramo", condition s1: "score <" does not compile/,
    ],
    [
      'a row without a cell for a column',
      graph([
        {
          ...SCORE_TABLE,
          content: {
            ...SCORE_TABLE.content,
            rules: [{ _id: 'r1', 'out-decision': '"approve"', 'out-reasons': '' }],
          },
        },
      ]),
      /: node "Regras", row 1, column "Score": the row has no cell for this column/,
    ],
    [
      'a literal decision outside the three',
      graph([table({ inputs: [['Score', 'score']], rows: [{ score: '< 600', decision: '"maybe"' }] })]),
      /: node "Regras", row 1, output "decision": decision "maybe" is not approve, review or decline/,
    ],
    [
      'no decision anywhere',
      graph([table({ inputs: [['Score', 'score']], outputs: ['risk_band'], rows: [{ risk_band: '"A"' }] })]),
      /: no node writes a "decision" field/,
    ],
    [
      'two tables whose decisions would overwrite each other',
      graph([
        SCORE_TABLE,
        table({
          id: 'outra',
          name: 'Outra',
          inputs: [['P', 'protests_count']],
          rows: [{ decision: '"review"' }],
        }),
      ]),
      /: node "Regras" and node "Outra" both bring "decision" to node "Decisão"/,
    ],
    [
      'a collect table merged with another node without an output path',
      graph([
        SCORE_TABLE,
        table({
          id: 'lista',
          name: 'Lista',
          hitPolicy: 'collect',
          inputs: [['P', 'protests_count']],
          rows: [{ decision: '"review"' }],
        }),
      ]),
      /: node "Lista": a collect table that meets other nodes at node "Decisão" needs an outputPath/,
    ],
    [
      'two input nodes',
      {
        ...graph([SCORE_TABLE]),
        nodes: [...graph([SCORE_TABLE]).nodes, { id: 'x', type: 'inputNode', name: 'X' }],
      },
      /: a policy has exactly one inputNode and one outputNode \(this one has 2 and 1\)/,
    ],
    [
      'an edge to a node that does not exist',
      graph(
        [SCORE_TABLE],
        [
          ['entrada', 'tabela'],
          ['tabela', 'nada'],
        ],
      ),
      /: edge e1 leads to node nada, which does not exist/,
    ],
    [
      'a cycle',
      graph(
        [
          SCORE_TABLE,
          table({
            id: 'b',
            name: 'B',
            inputs: [['P', 'protests_count']],
            outputs: ['x'],
            rows: [{ x: '1' }],
          }),
        ],
        [
          ['entrada', 'tabela'],
          ['tabela', 'b'],
          ['b', 'tabela'],
          ['tabela', 'saida'],
        ],
      ),
      /: node "(Regras|B)": the graph has a cycle through it/,
    ],
    [
      'a table in loop mode',
      graph([
        { ...SCORE_TABLE, content: { ...SCORE_TABLE.content, executionMode: 'loop', inputField: 'items' } },
      ]),
      /: node "Regras": loop mode and inputField are not supported/,
    ],
    [
      'a remainder (zen-engine aborts the process on a remainder by zero)',
      graph([calculation('score % pending_debts_count == 0 ? "review" : "approve"')]),
      /: node "Cálculo", expression "decision": .* does not compile: the remainder operator % is refused/,
    ],
    [
      'a column whose field is an expression',
      graph([
        table({ inputs: [['Soma', 'score + 1']], rows: [{ 'score + 1': '> 5', decision: '"approve"' }] }),
      ]),
      /: node "Regras", row 1, column "Soma": the column's field "score \+ 1" is not a path/,
    ],
  ])('refuses %s', async (_, policy, message) => {
    expect(await refusal(policy)).toMatch(message);
  });

  it('refuses bytes that are not UTF-8', async () => {
    const result = await zenCreditPolicyLoader.load('latin1.json', new Uint8Array([0x7b, 0xe9, 0x7d]));
    expect(result).toEqual({ ok: false, error: 'latin1.json: not UTF-8 text' });
  });
});

describe('loading a policy: what it reads', () => {
  it('hashes the exact bytes, and names the policy as given', async () => {
    const text = JSON.stringify(graph([SCORE_TABLE]), null, 2);
    for (const bytes of [text, `\uFEFF${text}`, `${text}\n`]) {
      const result = await loadZenCreditPolicy('policies/pf.json', Buffer.from(bytes));
      expect(result.ok && result.policy.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(result.ok && result.policy.name).toBe('policies/pf.json');
    }
  });

  it('warns, one line each naming the node, about fields the decision input does not have', async () => {
    const result = await load(
      graph([
        table({
          inputs: [
            ['Renda', 'renda'],
            ['Expr', null],
          ],
          rows: [
            { renda: '> 1000', expr: 'input.segmento == "varejo" and idade > 18', decision: '"approve"' },
            { decision: '"review"' },
          ],
        }),
      ]),
    );
    expect(result.ok && result.warnings).toEqual([
      'politica.json: node "Regras" reads renda, which the decision input does not have: it reads null',
      'politica.json: node "Regras" reads idade, which the decision input does not have: it reads null',
    ]);
    expect(result.ok && result.policy.customerColumnsRead).toEqual(['segmento']);
  });

  it('warns about a field that does not reach a node (a table after another, without passThrough)', async () => {
    const second = table({
      id: 'b',
      name: 'Depois',
      inputs: [['Score', 'score']],
      rows: [{ score: '> 1', decision: '"approve"' }],
    });
    const first = table({
      id: 'a',
      name: 'Antes',
      inputs: [['P', 'protests_count']],
      outputs: ['x'],
      rows: [{ x: '1' }],
    });
    const edges: [string, string][] = [
      ['entrada', 'a'],
      ['a', 'b'],
      ['b', 'saida'],
    ];
    const result = await load(graph([first, second], edges));
    expect(result.ok && result.warnings).toEqual([
      'politica.json: node "Depois" reads score, which does not reach it (no passThrough from the input): it reads null',
    ]);
    const through = await load(
      graph([{ ...first, content: { ...first.content, passThrough: true } }, second], edges),
    );
    expect(through.ok && through.warnings).toEqual([]);
  });
});

describe('deciding', () => {
  const decide = (policy: CreditPolicy, figures: ReportFigures, columns: Record<string, string> = {}) =>
    policy.decide(inputOf(personReport(figures), columns));

  it('is what ZEN alone does not do: a null score never reaches the catch-all approval', async () => {
    // ZEN 0.54.0 skips the row whose cell fails on null, and the catch-all row approves.
    const raw = new ZenEngine().createDecision(graph([SCORE_TABLE]));
    expect((await raw.evaluate({ score: null })).result).toEqual({ decision: 'approve' });

    const decision = await decide(await loaded(graph([SCORE_TABLE])), { score: null });
    expect(decision.decision).toBe('review');
    expect(codes(decision)).toEqual([MISSING_DATA]);
    expect(decision.detail).toBe('missing or unusable data: rule tabela-1 (row 1) of "Regras" reads score');
    expect(decision.trace).toEqual([]);
  });

  it('still decides normally on the rows before and after a guard', async () => {
    const policy = await loaded(graph([SCORE_TABLE]));
    expect(await decide(policy, { score: 500 })).toMatchObject({ decision: 'decline', detail: null });
    expect(await decide(policy, { score: 700 })).toMatchObject({
      decision: 'approve',
      reasons: [],
      detail: null,
    });
  });

  it('lets a policy handle the missing value itself, with a row above', async () => {
    const policy = await loaded(
      graph([
        table({
          inputs: [['Score', 'score']],
          rows: [
            { score: 'null', decision: '"review"', reasons: '[{code: "SEM_SCORE", text: "Sem score"}]' },
            { score: '< 600', decision: '"decline"' },
            { decision: '"approve"' },
          ],
        }),
      ]),
    );
    const decision = await decide(policy, { score: null });
    expect(decision).toMatchObject({
      decision: 'review',
      reasons: [{ code: 'SEM_SCORE', text: 'Sem score' }],
      detail: null,
    });
  });

  it('treats a text where a cell compares a number as missing data, not as a false cell', async () => {
    const policy = await loaded(
      graph([
        table({
          inputs: [['Valor', 'input.requested_amount']],
          rows: [{ 'input.requested_amount': '> 50000', decision: '"review"' }, { decision: '"approve"' }],
        }),
      ]),
    );
    expect((await decide(policy, {}, { requested_amount: 'R$ 80.000,00' })).decision).toBe('review');
    expect((await decide(policy, {}, { requested_amount: '1000' })).decision).toBe('approve');
    const text = await decide(policy, {}, { requested_amount: 'a combinar' });
    expect(codes(text)).toEqual([MISSING_DATA]);
    expect(text.detail).toMatch(/reads input\.requested_amount$/);
    expect(codes(await decide(policy, {}, {}))).toEqual([MISSING_DATA]);
  });

  it('guards a row whose two cells can both be missing, and an output that cannot be computed', async () => {
    const policy = await loaded(
      graph([
        table({
          inputs: [
            ['Score', 'score'],
            ['Renda', 'presumed_income'],
          ],
          outputs: ['decision', 'credit_limit'],
          rows: [
            {
              score: '>= 700',
              presumed_income: '> 1000',
              decision: '"approve"',
              credit_limit: 'input.requested_amount * 0.5',
            },
            { decision: '"approve"', credit_limit: '0' },
          ],
        }),
      ]),
    );
    const both = await decide(
      policy,
      { score: null, presumedIncomeReais: null },
      { requested_amount: '1000' },
    );
    expect(both.detail).toBe(
      'missing or unusable data: rule tabela-1 (row 1) of "Regras" reads score, presumed_income',
    );
    const output = await decide(policy, { score: 800 }, {});
    expect(output.detail).toBe(
      'missing or unusable data: rule tabela-1 (row 1) of "Regras" reads input.requested_amount',
    );
    expect(await decide(policy, { score: 800 }, { requested_amount: '1000' })).toMatchObject({
      decision: 'approve',
      credit_limit: 500,
    });
    // A row that a present figure rules out is not missing data: row 1 is false on its score, whatever the income.
    expect(await decide(policy, { score: 600, presumedIncomeReais: null }, {})).toMatchObject({
      decision: 'approve',
      credit_limit: 0,
      detail: null,
    });
  });

  it('guards a switch condition on a missing figure', async () => {
    const decline = {
      id: 'recusa',
      type: 'expressionNode',
      name: 'Recusa',
      content: { expressions: [{ id: 'd', key: 'decision', value: '"decline"' }] },
    };
    const approve = {
      id: 'aprova',
      type: 'expressionNode',
      name: 'Aprova',
      content: { expressions: [{ id: 'd', key: 'decision', value: '"approve"' }] },
    };
    const policy = await loaded(
      graph(
        [
          {
            id: 'sw',
            type: 'switchNode',
            name: 'Score',
            content: {
              hitPolicy: 'first',
              statements: [
                { id: 'baixo', condition: 'score < 600' },
                { id: 'resto', condition: '' },
              ],
            },
          },
          decline,
          approve,
        ],
        [
          ['entrada', 'sw'],
          ['sw', 'recusa', 'baixo'],
          ['sw', 'aprova', 'resto'],
          ['recusa', 'saida'],
          ['aprova', 'saida'],
        ],
      ),
    );
    expect((await decide(policy, { score: 500 })).decision).toBe('decline');
    expect((await decide(policy, { score: 700 })).decision).toBe('approve');
    const missing = await decide(policy, { score: null });
    expect(codes(missing)).toEqual([MISSING_DATA]);
    expect(missing.detail).toBe('missing or unusable data: rule baixo (row -) of "Score" reads score');
  });

  it('combines a collect table’s rows: the most severe wins, reasons in order, a missing figure adds a review', async () => {
    const policy = await loaded(
      graph([
        table({
          hitPolicy: 'collect',
          inputs: [
            ['Protestos', 'protests_count'],
            ['CCF', 'bounced_cheques_count'],
            ['Probabilidade', 'default_probability_pct'],
          ],
          outputs: ['decision', 'reasons', 'risk_band'],
          rows: [
            {
              protests_count: '> 0',
              decision: '"review"',
              reasons: '[{code: "PROTESTO", text: "Protesto"}]',
              risk_band: '"C"',
            },
            { bounced_cheques_count: '> 0', decision: '"decline"', reasons: '["CCF"]' },
            { default_probability_pct: '> 30', decision: '"review"', reasons: '["PROBABILIDADE"]' },
            { decision: '"approve"', risk_band: '"B"' },
          ],
        }),
      ]),
    );
    const decision = await decide(policy, { protests: [1, 10], bouncedCheques: [1, 10] });
    expect(decision).toMatchObject({
      decision: 'decline',
      reasons: [
        { code: 'PROTESTO', text: 'Protesto' },
        { code: 'CCF', text: 'CCF' },
      ],
      // The decline gives no band: the first band given at all.
      risk_band: 'C',
      detail: null,
    });
    expect(decision.trace.map((rule) => rule.row)).toEqual([1, 2, 4]);
    const missing = await decide(policy, { protests: [1, 10], probabilityPct: null });
    expect(missing).toMatchObject({ decision: 'review', risk_band: 'C' });
    expect(codes(missing)).toEqual(['PROTESTO', MISSING_DATA]);
    expect(missing.detail).toMatch(/rule tabela-3 \(row 3\) of "Regras" reads default_probability_pct$/);
  });

  it('makes an empty answer a POLICY_ERROR review (a first table where no row matches)', async () => {
    const policy = await loaded(
      graph([table({ inputs: [['Score', 'score']], rows: [{ score: '< 600', decision: '"decline"' }] })]),
    );
    const decision = await decide(policy, { score: 900 });
    expect(decision).toMatchObject({ decision: 'review', detail: 'the policy answered no decision: {}' });
    expect(codes(decision)).toEqual([POLICY_ERROR]);
  });

  /** A table that decides as a column says on the rows of one channel, and approves the others. */
  const byChannel = () =>
    graph([
      table({
        inputs: [['Canal', 'input.canal']],
        rows: [{ 'input.canal': '"app"', decision: 'input.escolha' }, { decision: '"approve"' }],
      }),
    ]);

  it('makes a decision outside the three (computed from a column) a POLICY_ERROR review, not a crash', async () => {
    const policy = await loaded(byChannel());
    const decision = await decide(policy, {}, { canal: 'app', escolha: 'maybe' });
    expect(decision.decision).toBe('review');
    expect(codes(decision)).toEqual([POLICY_ERROR]);
    expect(decision.detail).toMatch(/^result 1 of the answer: decision: .*"maybe"/);
    expect((await decide(policy, {}, { canal: 'app', escolha: 'decline' })).decision).toBe('decline');
  });

  it('refuses at load a policy whose decision is a customer column on every row (no customer fits it)', async () => {
    const message = await refusal(
      graph([table({ inputs: [['Score', 'score']], rows: [{ decision: 'input.escolha' }] })]),
    );
    expect(message).toBe(
      'politica.json: its answer does not fit the decision contract in node "Regras", for a person (bureau A) with null figures and columns 5000: decision: Invalid option: expected one of "approve"|"review"|"decline" in {"decision":5000}',
    );
  });

  it('describes a refused answer as the policy gave it, without the marks its fast form adds', async () => {
    const policy = await loaded(byChannel());
    // The first evaluation learns the order of the nodes (traced); the next ones read the marked answer.
    await decide(policy, {}, { canal: 'app', escolha: 'approve' });

    const refused = await decide(policy, {}, { canal: 'app', escolha: 'maybe' });

    expect(codes(refused)).toEqual([POLICY_ERROR]);
    expect(refused.detail).toBe(
      'result 1 of the answer: decision: Invalid option: expected one of "approve"|"review"|"decline" in {"decision":"maybe"}',
    );
    expect(refused.trace.map((rule) => rule.row)).toEqual([1]);
  });

  it('makes an engine failure a POLICY_ERROR review naming the node', async () => {
    const policy = await loaded(
      graph([calculation('pending_debts_amount / input.requested_amount > 0.5 ? "decline" : "approve"')]),
    );
    expect((await decide(policy, { pendingDebts: [1, 100] }, { requested_amount: '1000' })).decision).toBe(
      'approve',
    );
    const failed = await decide(policy, { pendingDebts: [1, 100] }, { requested_amount: 'a combinar' });
    expect(failed.decision).toBe('review');
    expect(codes(failed)).toEqual([POLICY_ERROR]);
    expect(failed.detail).toMatch(/^the engine failed: node "Cálculo": /);
  });

  it('answers a decision the stored form accepts, for people and companies alike', async () => {
    const policy = await loaded(graph([SCORE_TABLE]));
    for (const report of [personReport(), companyReport({ score: null })]) {
      const decision = await policy.decide(inputOf(report));
      expect(decisionSchema.parse(decision)).toEqual(decision);
    }
  });
});

describe('a per cent sign in a text', () => {
  it('is not the remainder operator: the policy loads', async () => {
    // Arrange
    const policy = graph([
      table({
        inputs: [['Score', 'score']],
        rows: [
          { score: '< 600', decision: '"review"', reasons: '[{code: "P", text: "abaixo de 50% do valor"}]' },
        ],
      }),
    ]);

    // Act
    const result = await load(policy);

    // Assert
    expect(result.ok).toBe(true);
  });
});

describe('a credit limit the policy could not compute', () => {
  const limitTable = (limit: string) =>
    graph([
      table({
        inputs: [['Score', 'score']],
        outputs: ['decision', 'credit_limit'],
        rows: [{ score: '>= 600', decision: '"approve"', credit_limit: limit }, { decision: '"review"' }],
      }),
    ]);

  it('is a MISSING_DATA review, never an approval without its limit (ZEN drops a limit divided by zero)', async () => {
    // Arrange
    const policy = await loaded(limitTable('presumed_income / input.parcelas'));

    // Act
    const computed = await policy.decide(inputOf(personReport({ score: 700 }), { parcelas: '4' }));
    const divided = await policy.decide(inputOf(personReport({ score: 700 }), { parcelas: '0' }));

    // Assert
    expect([computed.decision, computed.credit_limit]).toEqual(['approve', 875]);
    expect(divided.decision).toBe('review');
    expect(codes(divided)).toEqual([MISSING_DATA]);
    expect(divided.detail).toBe(
      'missing or unusable data: rule tabela-1 (row 1) of "Regras" reads the figures of its credit limit',
    );
  });

  it('is no limit at all where the row writes none, or writes null', async () => {
    for (const limit of ['', 'null']) {
      const policy = await loaded(limitTable(limit));

      const decision = await policy.decide(inputOf(personReport({ score: 700 }), {}));

      expect([decision.decision, decision.credit_limit, decision.detail]).toEqual(['approve', null, null]);
    }
  });
});
