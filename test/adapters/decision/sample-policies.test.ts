import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadZenCreditPolicy } from '../../../src/adapters/decision/zen-credit-policy.ts';
import type { Decision } from '../../../src/domain/decision/index.ts';
import type { CreditPolicy } from '../../../src/domain/ports/index.ts';
import { normaliseCreditReport } from '../../../src/domain/report/index.ts';
import { bureauResponse } from '../../factories/bureau-responses.ts';
import {
  companyReport,
  inputOf,
  personReport,
  type ReportFigures,
} from '../../factories/decision-reports.ts';

async function sample(file: string): Promise<CreditPolicy> {
  const load = await loadZenCreditPolicy(
    file,
    readFileSync(new URL(`../../../samples/policies/${file}`, import.meta.url)),
  );
  if (!load.ok) throw new Error(load.error);
  expect(load.warnings).toEqual([]);
  return load.policy;
}

const outcome = (decision: Decision) => ({
  decision: decision.decision,
  reasons: decision.reasons.map((reason) => reason.code),
  risk_band: decision.risk_band,
  credit_limit: decision.credit_limit,
});

describe('samples/policies/pessoa-fisica.json', () => {
  let policy: CreditPolicy;
  beforeAll(async () => {
    policy = await sample('pessoa-fisica.json');
  });
  const decide = (
    figures: ReportFigures,
    columns: Record<string, string> = { requested_amount: 'R$ 10.000,00' },
  ) => policy.decide(inputOf(personReport(figures), columns)).then(outcome);

  it('reads the requested amount from the customer’s columns', () => {
    expect(policy.customerColumnsRead).toEqual(['requested_amount']);
  });

  it.each<[string, ReportFigures, ReturnType<typeof outcome>]>([
    [
      'a clean person with a good score',
      {},
      { decision: 'approve', reasons: [], risk_band: 'B', credit_limit: 7000 },
    ],
    [
      'a top score: three times the presumed income',
      { score: 900 },
      { decision: 'approve', reasons: [], risk_band: 'A', credit_limit: 10500 },
    ],
    [
      'no presumed income: the band’s fixed limit',
      { presumedIncomeReais: null },
      { decision: 'approve', reasons: [], risk_band: 'B', credit_limit: 8000 },
    ],
    [
      'a score below 300',
      { score: 250 },
      { decision: 'decline', reasons: ['SCORE_ABAIXO_DE_300'], risk_band: 'E', credit_limit: 0 },
    ],
    [
      'a score of 300 to 499',
      { score: 420 },
      { decision: 'review', reasons: ['SCORE_300_A_499'], risk_band: 'D', credit_limit: 1750 },
    ],
    [
      'no score',
      { score: null },
      { decision: 'review', reasons: ['SEM_SCORE'], risk_band: null, credit_limit: null },
    ],
    [
      'protests above R$ 5.000',
      { score: 900, protests: [1, 6000] },
      { decision: 'decline', reasons: ['PROTESTO_ACIMA_DE_5000'], risk_band: 'A', credit_limit: 0 },
    ],
    [
      'protests without a total',
      { protests: [2, null] },
      { decision: 'review', reasons: ['PROTESTO'], risk_band: 'B', credit_limit: 7000 },
    ],
    [
      'a bounced cheque without an amount (bureau A on a CPF)',
      { bouncedCheques: [1, null] },
      { decision: 'review', reasons: ['CCF'], risk_band: 'B', credit_limit: 7000 },
    ],
    [
      'bounced cheques above R$ 1.000',
      { bouncedCheques: [2, 1500] },
      { decision: 'decline', reasons: ['CCF_ACIMA_DE_1000'], risk_band: 'B', credit_limit: 0 },
    ],
    [
      'pending debts of 60 % of the amount asked',
      { pendingDebts: [1, 6000] },
      { decision: 'decline', reasons: ['PENDENCIAS_ACIMA_DE_50PCT'], risk_band: 'B', credit_limit: 0 },
    ],
    [
      'pending debts of 20 % of the amount asked',
      { pendingDebts: [1, 2000] },
      { decision: 'review', reasons: ['PENDENCIAS'], risk_band: 'B', credit_limit: 7000 },
    ],
    [
      'stopped cheques',
      { stoppedCheques: [1, null] },
      { decision: 'review', reasons: ['CHEQUE_SUSTADO'], risk_band: 'B', credit_limit: 7000 },
    ],
    [
      'no stopped cheques reported at all (bureau B): not a missing figure',
      { stoppedCheques: null, queries: null, probabilityPct: null },
      { decision: 'approve', reasons: [], risk_band: 'B', credit_limit: 7000 },
    ],
    [
      'a deceased holder',
      { status: '3' },
      { decision: 'decline', reasons: ['CPF_TITULAR_FALECIDO'], risk_band: 'B', credit_limit: 0 },
    ],
    [
      'a suspended CPF',
      { status: '2' },
      { decision: 'review', reasons: ['CPF_IRREGULAR'], risk_band: 'B', credit_limit: 7000 },
    ],
    [
      'a minor',
      { birthDate: '2010-05-05' },
      { decision: 'decline', reasons: ['MENOR_DE_IDADE'], risk_band: 'B', credit_limit: 0 },
    ],
    [
      'eleven queries in 90 days',
      { queries: Array.from({ length: 11 }, () => '2025-12-01') },
      { decision: 'review', reasons: ['MUITAS_CONSULTAS'], risk_band: 'B', credit_limit: 7000 },
    ],
    [
      'a 35 % probability of default',
      { probabilityPct: 35 },
      { decision: 'review', reasons: ['PROBABILIDADE_ALTA'], risk_band: 'B', credit_limit: 7000 },
    ],
  ])('%s', async (_, figures, expected) => {
    expect(await decide(figures)).toEqual(expected);
  });

  it('combines every restriction with the score band, reasons in order', async () => {
    expect(
      await decide({ score: 420, protests: [1, 500], bouncedCheques: [1, null], pendingDebts: [1, 9000] }),
    ).toEqual({
      decision: 'decline',
      reasons: ['SCORE_300_A_499', 'PROTESTO', 'CCF', 'PENDENCIAS_ACIMA_DE_50PCT'],
      risk_band: 'D',
      credit_limit: 0,
    });
  });

  it('sends pending debts to review when the amount asked is missing or not a number', async () => {
    for (const columns of [{}, { requested_amount: '' }, { requested_amount: 'a combinar' }] as Record<
      string,
      string
    >[]) {
      expect((await decide({ pendingDebts: [1, 2000] }, columns)).reasons).toEqual([
        'PENDENCIA_SEM_COMPARACAO',
      ]);
    }
  });

  it('sends a company to review: the policy is for people', async () => {
    expect(await policy.decide(inputOf(companyReport())).then(outcome)).toEqual({
      decision: 'review',
      reasons: ['POLITICA_DE_PESSOA_FISICA'],
      risk_band: null,
      credit_limit: null,
    });
  });

  it('traces the branch and the rows that fired', async () => {
    const decision = await policy.decide(
      inputOf(personReport({ protests: [1, 100] }), { requested_amount: '1000' }),
    );
    expect(decision.trace.map((rule) => [rule.node, rule.rule, rule.row])).toEqual([
      ['Tipo de documento', 'tipo-coberto', null],
      ['Restrições', 'pf-protesto', 5],
      ['Faixas de score', 'pf-score-b', 5],
    ]);
  });
});

describe('samples/policies/pessoa-fisica-restritiva.json', () => {
  let policy: CreditPolicy;
  beforeAll(async () => {
    policy = await sample('pessoa-fisica-restritiva.json');
  });
  const decide = (figures: ReportFigures) =>
    policy.decide(inputOf(personReport(figures), { requested_amount: 'R$ 10.000,00' })).then(outcome);
  const rulesOf = (file: string) =>
    new Map<string, Record<string, string>>(
      JSON.parse(
        readFileSync(new URL(`../../../samples/policies/${file}`, import.meta.url), 'utf8'),
      ).nodes.flatMap((node: { content?: { rules?: Record<string, string>[] } }) =>
        (node.content?.rules ?? []).map((rule) => [rule._id, rule]),
      ),
    );

  it('is the sample for people with its score bands and pending-debt share made stricter, and nothing else', () => {
    const base = rulesOf('pessoa-fisica.json');
    const stricter = rulesOf('pessoa-fisica-restritiva.json');

    const changed = [...base.keys()].filter(
      (id) => JSON.stringify(base.get(id)) !== JSON.stringify(stricter.get(id)),
    );

    expect([...stricter.keys()]).toEqual([...base.keys()]);
    expect(changed).toEqual([
      'pf-pendencias-altas',
      'pf-pendencias',
      'pf-score-e',
      'pf-score-d',
      'pf-score-c',
    ]);
  });

  it.each<[string, ReportFigures, ReturnType<typeof outcome>]>([
    [
      'a score below 400',
      { score: 350 },
      { decision: 'decline', reasons: ['SCORE_ABAIXO_DE_400'], risk_band: 'E', credit_limit: 0 },
    ],
    [
      'a score of 400 to 599',
      { score: 550 },
      { decision: 'review', reasons: ['SCORE_400_A_599'], risk_band: 'D', credit_limit: 1750 },
    ],
    [
      'a score of 600 to 699',
      { score: 650 },
      { decision: 'approve', reasons: [], risk_band: 'C', credit_limit: 3500 },
    ],
    [
      'pending debts of 30 % of the amount asked',
      { pendingDebts: [1, 3000] },
      { decision: 'decline', reasons: ['PENDENCIAS_ACIMA_DE_25PCT'], risk_band: 'B', credit_limit: 0 },
    ],
    [
      'pending debts of 20 % of the amount asked',
      { pendingDebts: [1, 2000] },
      { decision: 'review', reasons: ['PENDENCIAS'], risk_band: 'B', credit_limit: 7000 },
    ],
  ])('%s', async (_, figures, expected) => {
    expect(await decide(figures)).toEqual(expected);
  });
});

describe('samples/policies/pessoa-juridica.json', () => {
  let policy: CreditPolicy;
  beforeAll(async () => {
    policy = await sample('pessoa-juridica.json');
  });
  const decide = (
    figures: ReportFigures,
    columns: Record<string, string> = { requested_amount: 'R$ 30.000,00' },
  ) => policy.decide(inputOf(companyReport(figures), columns)).then(outcome);

  it.each<[string, ReportFigures, ReturnType<typeof outcome>]>([
    [
      'an active company of 26 years with a good score: the amount asked',
      { score: 800 },
      { decision: 'approve', reasons: [], risk_band: 'B', credit_limit: 30000 },
    ],
    [
      'a top score: the amount asked, under the band’s ceiling',
      { score: 950 },
      { decision: 'approve', reasons: [], risk_band: 'A', credit_limit: 30000 },
    ],
    [
      'a score of 400 to 599: review, the band’s ceiling',
      { score: 450 },
      { decision: 'review', reasons: ['SCORE_400_A_599'], risk_band: 'D', credit_limit: 10000 },
    ],
    [
      'a score below 400',
      { score: 350 },
      { decision: 'decline', reasons: ['SCORE_ABAIXO_DE_400'], risk_band: 'E', credit_limit: 0 },
    ],
    [
      'a closed company',
      { status: 'BAIXADA' },
      { decision: 'decline', reasons: ['EMPRESA_NAO_ATIVA'], risk_band: 'B', credit_limit: 0 },
    ],
    [
      'no foundation date',
      { foundationDate: null },
      { decision: 'review', reasons: ['FUNDACAO_DESCONHECIDA'], risk_band: 'B', credit_limit: 30000 },
    ],
    [
      'a company founded months ago',
      { foundationDate: '2025-06-01' },
      { decision: 'decline', reasons: ['EMPRESA_MENOS_DE_1_ANO'], risk_band: 'B', credit_limit: 0 },
    ],
    [
      'a two-year-old company',
      { foundationDate: '2024-01-01' },
      { decision: 'review', reasons: ['EMPRESA_MENOS_DE_3_ANOS'], risk_band: 'B', credit_limit: 30000 },
    ],
    [
      'protests above R$ 20.000',
      { protests: [3, 25000] },
      { decision: 'decline', reasons: ['PROTESTO_ACIMA_DE_20000'], risk_band: 'B', credit_limit: 0 },
    ],
    [
      'a small protest',
      { protests: [1, 1000] },
      { decision: 'review', reasons: ['PROTESTO'], risk_band: 'B', credit_limit: 30000 },
    ],
    [
      'bounced cheques above R$ 5.000',
      { bouncedCheques: [1, 6000] },
      { decision: 'decline', reasons: ['CCF_ACIMA_DE_5000'], risk_band: 'B', credit_limit: 0 },
    ],
    [
      'pending debts of 30 % of the amount asked',
      { pendingDebts: [2, 9000] },
      { decision: 'decline', reasons: ['PENDENCIAS_ACIMA_DE_30PCT'], risk_band: 'B', credit_limit: 0 },
    ],
    [
      'pending debts of 10 % of the amount asked',
      { pendingDebts: [1, 3000] },
      { decision: 'review', reasons: ['PENDENCIAS'], risk_band: 'B', credit_limit: 30000 },
    ],
  ])('%s', async (_, figures, expected) => {
    expect(await decide({ score: 800, ...figures })).toEqual(expected);
  });

  it('gives the band’s ceiling when no amount is asked', async () => {
    expect((await decide({ score: 800 }, {})).credit_limit).toBe(100000);
  });

  it('sends a bureau B company (no registration data) to review, with its cheque', async () => {
    const report = normaliseCreditReport(bureauResponse('bureau-b-company'), {
      bureau: 'b',
      document: '11222333000181',
      fetchedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(await policy.decide(inputOf(report, { requested_amount: '50000' })).then(outcome)).toEqual({
      decision: 'review',
      reasons: ['FUNDACAO_DESCONHECIDA', 'CCF'],
      risk_band: 'C',
      credit_limit: 50000,
    });
  });

  it('sends a person to review: the policy is for companies', async () => {
    expect((await policy.decide(inputOf(personReport()))).reasons.map((reason) => reason.code)).toEqual([
      'POLITICA_DE_PESSOA_JURIDICA',
    ]);
  });
});
