import { describe, expect, it } from 'vitest';
import {
  MalformedReportError,
  normaliseCreditReport,
  normaliseUnidentifiedReport,
} from '../../../src/domain/report/index.ts';
import { bureauResponse, creditSection } from '../../factories/bureau-responses.ts';

const FETCHED_AT = '2026-11-21T12:00:00.000Z';
const CPF = '51954022212';
const CNPJ = '11222333000181';

describe('normaliseCreditReport', () => {
  describe('bureau A, person', () => {
    const report = normaliseCreditReport(bureauResponse('bureau-a-person'), {
      bureau: 'a',
      document: CPF,
      fetchedAt: FETCHED_AT,
    });

    it('fills the identity of the report from the envelope', () => {
      expect(report).toMatchObject({
        schemaVersion: 1,
        document: CPF,
        documentType: 'cpf',
        bureau: 'a',
        queryCode: 987654,
        pdfUrl: 'https://reports.example.invalid/987654.pdf',
        clientReference: null,
        fetchedAt: FETCHED_AT,
      });
    });

    it('maps every registration field, keeping the coded ones raw', () => {
      expect(report.subject).toEqual({
        kind: 'person',
        name: 'MARIA DA CONCEIÇÃO SOUZA',
        tradeName: null,
        birthDate: '1984-02-29',
        foundationDate: null,
        status: '0',
        motherName: 'ANA SOUZA',
        address: {
          street: 'RUA DAS FLORES, 10',
          district: 'CENTRO',
          city: 'RECIFE',
          state: 'PE',
          postalCode: '50000-000',
        },
        phone: '(81) 99999-0000',
        email: null,
        presumedIncomeCents: 350_000,
        presumedIncomeText: 'DE 3.000,00 A 4.000,00',
        legalNature: null,
        activity: null,
        otherFields: {
          regiaoCPF: '2',
          estadoCivil: '2',
          grauInstrucao: '7',
          tituloEleitor: '123456789012',
          sexo: 'F',
          numeroDependentes: '1',
        },
      });
    });

    it('reads the score and the percentage probability', () => {
      expect(report.score).toEqual({
        value: 412,
        probabilityPct: 12.5,
        message: 'Risco moderado.',
        raw: { score: '412', probabilidade: '12,5%', mensagem: 'Risco moderado.' },
      });
    });

    it('turns money with thousands dots into cents and dates into ISO', () => {
      expect(report.protests).toEqual({
        count: 2,
        totalCents: 123_456,
        items: [
          {
            date: '2024-03-05',
            amountCents: 100_000,
            notary: '1º TABELIONATO',
            city: 'RECIFE',
            state: null,
            documentKind: 'DUPLICATA',
            documentNumber: '0001',
          },
          {
            date: '2023-12-31',
            amountCents: 23_456,
            notary: '2º TABELIONATO',
            city: 'OLINDA',
            state: null,
            documentKind: 'CHEQUE',
            documentNumber: '0002',
          },
        ],
      });
      expect(report.pendingDebts).toMatchObject({ count: 1, totalCents: 1_200_000 });
      expect(report.pendingDebts.items[0]).toMatchObject({
        date: '2025-01-10',
        amountCents: 1_200_000,
        creditor: 'BANCO X',
        kind: null,
      });
    });

    it('reports an unknown total (null, never 0) for the cheques of a CPF, which carry only a count', () => {
      expect(report.bouncedCheques.count).toBe(3);
      expect(report.bouncedCheques.totalCents).toBeNull();
      expect(report.bouncedCheques.items).toEqual([
        { date: '2025-02-01', amountCents: null, raw: { data: '01/02/2025', banco: '001' } },
        { date: null, amountCents: null, raw: { banco: '237' } },
        { date: null, amountCents: null, raw: { banco: '341' } },
      ]);
      expect(report.stoppedCheques).toEqual({ count: 0, totalCents: null, items: [] });
    });

    it('keeps the query history and has no company participations', () => {
      expect(report.queryHistory).toEqual([{ date: '2026-10-20', company: 'LOJA Y' }]);
      expect(report.companyParticipations).toBeNull();
    });

    it('has no warnings for a response that follows the interface', () => {
      expect(report.warnings).toEqual([]);
    });
  });

  describe('bureau A, company', () => {
    const report = normaliseCreditReport(bureauResponse('bureau-a-company'), {
      bureau: 'a',
      document: CNPJ,
      fetchedAt: FETCHED_AT,
    });

    it('maps the company registration', () => {
      expect(report.subject).toEqual({
        kind: 'company',
        name: 'PADARIA PÃO QUENTE LTDA',
        tradeName: 'PÃO QUENTE',
        birthDate: null,
        foundationDate: '1999-08-15',
        status: 'ATIVA',
        motherName: null,
        address: {
          street: 'AV BRASIL, 100',
          district: null,
          city: 'CURITIBA',
          state: 'PR',
          postalCode: '80000-000',
        },
        phone: null,
        email: null,
        presumedIncomeCents: null,
        presumedIncomeText: null,
        legalNature: '206-2 - SOCIEDADE EMPRESARIA LIMITADA',
        activity: 'PANIFICACAO',
        otherFields: {},
      });
    });

    it('reads the number 0 as zero cents and large amounts exactly', () => {
      expect(report.protests).toEqual({ count: 0, totalCents: 0, items: [] });
      expect(report.bouncedCheques).toEqual({
        count: 1,
        totalCents: 150_000_001,
        items: [
          {
            date: '2026-02-02',
            amountCents: 150_000_001,
            raw: { data: '02/02/2026', valor: '1.500.000,01' },
          },
        ],
      });
      expect(report.stoppedCheques?.totalCents).toBe(5_000);
    });

    it('reads a number-like probability as a percentage, an empty PDF as null, a client reference as given', () => {
      expect(report.score?.probabilityPct).toBe(3.2);
      expect(report.pdfUrl).toBeNull();
      expect(report.clientReference).toBe('CLIENTE 42');
      expect(report.warnings).toEqual([]);
    });
  });

  describe('bureau B, person', () => {
    const report = normaliseCreditReport(bureauResponse('bureau-b-person'), {
      bureau: 'b',
      document: CPF,
      fetchedAt: FETCHED_AT,
    });

    it('maps the short registration of bureau B', () => {
      expect(report.subject).toMatchObject({
        kind: 'person',
        name: 'JOÃO PEREIRA',
        birthDate: '1970-01-01',
        motherName: 'LUCIA PEREIRA',
        address: null,
        otherFields: {},
      });
    });

    it('reads "not calculated" as a null probability', () => {
      expect(report.score).toMatchObject({ value: 150, probabilityPct: null });
    });

    it('reads money without thousands separators, protest states and debt fields', () => {
      expect(report.protests.totalCents).toBe(123_456);
      expect(report.protests.items[0]).toMatchObject({
        state: 'SP',
        amountCents: 123_456,
        date: '2022-07-07',
      });
      expect(report.pendingDebts).toMatchObject({ count: 2, totalCents: 1_050_010 });
      expect(report.pendingDebts.items[1]).toMatchObject({
        date: '2025-06-02',
        amountCents: 50_010,
        creditor: 'LOJA W',
        kind: 'CREDIARIO',
        status: 'EM NEGOCIACAO',
        city: 'CAMPINAS',
      });
    });

    it('does not report stopped cheques or query history, and reads company participations', () => {
      expect(report.stoppedCheques).toBeNull();
      expect(report.queryHistory).toBeNull();
      expect(report.companyParticipations).toEqual([
        {
          company: 'PEREIRA E FILHOS LTDA',
          cnpj: '11.222.333/0001-81',
          sharePct: 33.33,
          state: 'SP',
          entryDate: null,
        },
        {
          company: 'OUTRA SA',
          cnpj: '12.ABC.345/01DE-35',
          sharePct: 100,
          state: 'RJ',
          entryDate: '2010-10-10',
        },
      ]);
      expect(report.warnings).toEqual([]);
    });
  });

  describe('bureau B, company', () => {
    const report = normaliseCreditReport(bureauResponse('bureau-b-company'), {
      bureau: 'b',
      document: CNPJ,
      fetchedAt: FETCHED_AT,
    });

    it('has no subject when the registration is the empty array', () => {
      expect(report.subject).toBeNull();
      expect(report.documentType).toBe('cnpj');
      expect(report.warnings).toEqual([]);
    });

    it('still reads score and sections', () => {
      expect(report.score?.probabilityPct).toBe(7);
      expect(report.bouncedCheques).toMatchObject({ count: 1, totalCents: 200_000 });
    });
  });

  describe('lenient on what does not follow the interface', () => {
    it('turns a missing section into a warning and an empty list', () => {
      const response = bureauResponse('bureau-b-person');
      delete creditSection(response).protestos;
      const report = normaliseCreditReport(response, { bureau: 'b', document: CPF, fetchedAt: FETCHED_AT });
      expect(report.protests).toEqual({ count: 1, totalCents: 123_456, items: [] });
      expect(report.warnings).toContain('consultaCredito.protestos: section missing');
    });

    it('keeps going when the summary or the score is missing', () => {
      const response = bureauResponse('bureau-a-company');
      delete creditSection(response).resumoConsulta;
      delete creditSection(response).score;
      const report = normaliseCreditReport(response, { bureau: 'a', document: CNPJ, fetchedAt: FETCHED_AT });
      expect(report.score).toBeNull();
      expect(report.bouncedCheques).toEqual({ count: 1, totalCents: null, items: expect.any(Array) });
      expect(report.warnings).toEqual(
        expect.arrayContaining([
          'consultaCredito.score: section missing',
          'resumoConsulta.chequesSemFundo: missing; using the 1 items listed',
        ]),
      );
    });

    it('lists unreadable values as warnings with where they were, never throwing', () => {
      const response = bureauResponse('bureau-a-person');
      const credit = creditSection(response);
      (credit.protestos as Record<string, unknown>[])[0] = {
        ...(credit.protestos as object[])[0],
        valor: '-5,00',
        data: '31/02/2024',
      };
      (credit.score as Record<string, unknown>).probabilidade = 'alto';
      const report = normaliseCreditReport(response, { bureau: 'a', document: CPF, fetchedAt: FETCHED_AT });
      expect(report.protests.items[0]).toMatchObject({ amountCents: null, date: null });
      expect(report.score?.probabilityPct).toBeNull();
      expect(report.warnings).toEqual(
        expect.arrayContaining([
          'protestos[0].valor: money "-5,00" is not in Brazilian format',
          'protestos[0].data: date "31/02/2024" does not exist',
          'score.probabilidade: percentage "alto" is not a number',
        ]),
      );
    });

    it('flags bureau B money written with thousands dots instead of guessing', () => {
      const response = bureauResponse('bureau-b-person');
      (
        (creditSection(response).resumoConsulta as Record<string, Record<string, unknown>>)
          .protestos as Record<string, unknown>
      ).valorTotal = '1.234,56';
      const report = normaliseCreditReport(response, { bureau: 'b', document: CPF, fetchedAt: FETCHED_AT });
      expect(report.protests.totalCents).toBeNull();
      expect(report.warnings).toContain(
        'resumoConsulta.protestos.valorTotal: money "1.234,56" has a thousands separator, which bureau B does not use',
      );
    });

    it('warns when the registration belongs to another document', () => {
      const report = normaliseCreditReport(bureauResponse('bureau-b-person'), {
        bureau: 'b',
        document: '11144477735',
        fetchedAt: FETCHED_AT,
      });
      expect(report.warnings).toContain('dadosCadastrais.cpf: "51954022212" is not the queried document');
    });

    it('ignores unknown fields, including the envelope field named after the service', () => {
      const response = { ...bureauResponse('bureau-b-company'), novidade: { x: 1 } };
      expect(
        normaliseCreditReport(response, { bureau: 'b', document: CNPJ, fetchedAt: FETCHED_AT }).warnings,
      ).toEqual([]);
    });

    it('lists type mismatches against the interface as warnings', () => {
      const response = bureauResponse('bureau-a-company');
      (creditSection(response).dadosCadastrais as Record<string, unknown>).cidade = 42;
      const report = normaliseCreditReport(response, { bureau: 'a', document: CNPJ, fetchedAt: FETCHED_AT });
      expect(report.subject?.address?.city).toBe('42');
      expect(report.warnings).toContain(
        'dadosCadastrais.cidade: Invalid input: expected string, received number',
      );
    });
  });

  describe('envelopes that are not a successful report', () => {
    it.each([
      ['not an object', []],
      ['an error body', { status: 'error', message: 'Token inválido!' }],
      ['no dados', { status: 'sucesso' }],
    ])('throws MalformedReportError for %s', (_label, response) => {
      expect(() =>
        normaliseCreditReport(response, { bureau: 'a', document: CPF, fetchedAt: FETCHED_AT }),
      ).toThrow(MalformedReportError);
    });
  });
});

describe('normaliseUnidentifiedReport', () => {
  const context = { fetchedAt: '2026-01-02T03:04:05.000Z' };

  it('reads a bureau B answer with empty registration data as a company whose CNPJ is unknown, with a warning', () => {
    const report = normaliseUnidentifiedReport(bureauResponse('bureau-b-company'), {
      ...context,
      bureau: 'b',
    });
    const identified = normaliseCreditReport(bureauResponse('bureau-b-company'), {
      ...context,
      bureau: 'b',
      document: '11222333000181',
    });
    expect(report).toEqual({
      ...identified,
      document: null,
      documentType: 'cnpj',
      warnings: [...identified.warnings, expect.stringContaining('no document')],
    });
  });

  it.each([
    ['a bureau A answer with empty registration data', 'bureau-a-company', 'a'],
    ['a bureau B person whose registration names no CPF', 'bureau-b-person', 'b'],
  ] as const)('does not guess the type of %s', (_label, fixture, bureau) => {
    const response = bureauResponse(fixture);
    const section = creditSection(response);
    if (fixture === 'bureau-a-company') section.dadosCadastrais = [];
    else delete (section.dadosCadastrais as Record<string, unknown>).cpf;
    expect(normaliseUnidentifiedReport(response, { ...context, bureau })).toBeNull();
  });
});
