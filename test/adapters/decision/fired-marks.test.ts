import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateCreditReport } from '../../../emulator/report-generator.ts';
import { SeededRandom } from '../../../emulator/seeded-random.ts';
import { loadZenCreditPolicy } from '../../../src/adapters/decision/zen-credit-policy.ts';
import { type DecisionInput, decisionInput, MISSING_DATA } from '../../../src/domain/decision/index.ts';
import type { CreditPolicy } from '../../../src/domain/ports/index.ts';
import { type Bureau, normaliseCreditReport } from '../../../src/domain/report/index.ts';
import { inputOf, personReport } from '../../factories/decision-reports.ts';
import { makeCnpj, makeCpf } from '../../factories/documents.ts';

async function load(name: string, contents: string | Uint8Array, withTrace = false): Promise<CreditPolicy> {
  const loaded = await loadZenCreditPolicy(name, contents, { withTrace });
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.policy;
}

/** Emulator reports, both bureaus, people and companies, some without a requested amount. */
function reports(count: number): DecisionInput[] {
  const random = new SeededRandom('fired marks');
  return Array.from({ length: count }, (_, index) => {
    const document = index % 2 === 0 ? makeCpf(random) : makeCnpj(random);
    const bureau: Bureau = index % 4 < 2 ? 'a' : 'b';
    const report = normaliseCreditReport(generateCreditReport(document, bureau), {
      bureau,
      document,
      fetchedAt: '2026-11-21T00:00:00.000Z',
    });
    const requested =
      index % 10 === 0 ? '' : `R$ ${(1000 + ((index * 7919) % 90_000)).toLocaleString('pt-BR')},00`;
    return decisionInput(report, ['requested_amount'], [requested]);
  });
}

/** Decides every input twice with the marked policy (the second time without the trace) and once with the trace. */
async function expectSameAsTraced(
  name: string,
  contents: string | Uint8Array,
  inputs: readonly DecisionInput[],
) {
  const marked = await load(name, contents);
  const traced = await load(name, contents, true);
  for (const input of inputs) await marked.decide(input);
  for (const input of inputs) {
    expect(await marked.decide(input)).toEqual(await traced.decide(input));
  }
}

const SWITCH_WITH_GUARD = JSON.stringify({
  nodes: [
    { id: 'entrada', type: 'inputNode', name: 'Relatório' },
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
    {
      id: 'recusa',
      type: 'expressionNode',
      name: 'Recusa',
      content: { expressions: [{ id: 'd', key: 'decision', value: '"decline"' }] },
    },
    {
      id: 'faixas',
      type: 'decisionTableNode',
      name: 'Faixas',
      content: {
        hitPolicy: 'first',
        inputs: [{ id: 'p', name: 'Protestos', field: 'protests_amount' }],
        outputs: [{ id: 'd', name: 'Decisão', field: 'decision' }],
        rules: [
          { _id: 'f1', _description: 'protesto alto', p: '> 1000', d: '"review"' },
          { _id: 'f2', p: '', d: '"approve"' },
        ],
      },
    },
    { id: 'saida', type: 'outputNode', name: 'Decisão' },
  ],
  edges: [
    { id: 'e1', sourceId: 'entrada', targetId: 'sw' },
    { id: 'e2', sourceId: 'sw', sourceHandle: 'baixo', targetId: 'recusa' },
    { id: 'e3', sourceId: 'sw', sourceHandle: 'resto', targetId: 'faixas' },
    { id: 'e4', sourceId: 'recusa', targetId: 'saida' },
    { id: 'e5', sourceId: 'faixas', targetId: 'saida' },
  ],
});

describe('rules read from marks instead of the trace', () => {
  const inputs = reports(300);

  it.each(['pessoa-fisica.json', 'pessoa-juridica.json'])(
    'decides as the traced evaluation does, trace included (%s)',
    async (file) => {
      await expectSameAsTraced(file, readFileSync(`samples/policies/${file}`), inputs);
    },
  );

  it('keeps switch guards (MISSING_DATA) and guarded table rows', async () => {
    const crafted = [
      inputOf(personReport({ score: null })),
      inputOf(personReport({ score: 500 })),
      inputOf(personReport({ score: 700, protests: [1, 5000] })),
      inputOf(personReport({ score: 700, protests: [1, null] })),
      inputOf(personReport({ score: 700 })),
    ];
    await expectSameAsTraced('guarded.json', SWITCH_WITH_GUARD, [...crafted, ...inputs.slice(0, 50)]);
    const policy = await load('guarded.json', SWITCH_WITH_GUARD);
    await policy.decide(crafted[0] as DecisionInput);
    const missing = await policy.decide(crafted[0] as DecisionInput);
    expect(missing.reasons.map((reason) => reason.code)).toEqual([MISSING_DATA]);
    expect(missing.trace).toEqual([]);
  });

  it('evaluates with the trace a policy whose expressions could see a mark (keys, values, len, $)', async () => {
    const policy = JSON.parse(SWITCH_WITH_GUARD);
    policy.nodes[2].content.expressions.push({ id: 'n', key: 'campos', value: 'len(keys(input))' });
    await expectSameAsTraced('keys.json', JSON.stringify(policy), inputs.slice(0, 20));
  });
});
