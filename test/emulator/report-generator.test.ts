import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REPORT_GENERATOR_OPTIONS, generateCreditReport } from '../../emulator/report-generator.ts';
import { SeededRandom } from '../../emulator/seeded-random.ts';
import {
  type CreditReportBureauA,
  type CreditReportBureauB,
  creditReportBureauASchema,
  creditReportBureauBSchema,
  normaliseCreditReport,
} from '../../src/domain/report/index.ts';
import { makeAlphanumericCnpj, makeCnpj, makeCpf } from '../factories/documents.ts';

const random = new SeededRandom('report-generator tests');
const documents = Array.from({ length: 600 }, (_, index) =>
  index % 3 === 0
    ? makeCpf(random)
    : index % 3 === 1
      ? makeCnpj(random)
      : index % 10 === 2
        ? makeAlphanumericCnpj(random)
        : makeCpf(random),
);
const creditA = (report: unknown) => (report as CreditReportBureauA).dados.consultaCredito;
const creditB = (report: unknown) => (report as CreditReportBureauB).dados.consultaCredito;

describe('generateCreditReport', () => {
  it('is deterministic: the same document and bureau always give the same report', () => {
    for (const document of documents.slice(0, 20)) {
      expect(generateCreditReport(document, 'a')).toEqual(generateCreditReport(document, 'a'));
      expect(generateCreditReport(document, 'b')).toEqual(generateCreditReport(document, 'b'));
    }
  });

  it('gives byte-for-byte the reports it gave when this digest was pinned, at every epoch', () => {
    // A change to the generator that moves any byte of any report (a draw out of order, a field renamed) shows
    // here; re-pin only for a change of output made on purpose.
    const digest = createHash('sha256');
    for (const document of documents) {
      for (const bureau of ['a', 'b'] as const) {
        for (const epoch of [0, 1, 4]) {
          digest.update(
            JSON.stringify(
              generateCreditReport(document, bureau, { ...DEFAULT_REPORT_GENERATOR_OPTIONS, epoch }),
            ),
          );
          digest.update('\n');
        }
      }
    }
    expect(digest.digest('hex')).toBe('b748d994370bea9d240d90e66bc68e432e5c369b2ced3a502daf9d30cf770d2f');
  });

  it('follows the interface schema for every variant and normalises without a single warning', () => {
    for (const document of documents) {
      for (const bureau of ['a', 'b'] as const) {
        const report = generateCreditReport(document, bureau);
        const schema = bureau === 'a' ? creditReportBureauASchema : creditReportBureauBSchema;
        expect(schema.safeParse(report).success).toBe(true);
        expect(normaliseCreditReport(report, { bureau, document, fetchedAt: 'now' }).warnings).toEqual([]);
      }
    }
  });

  it('has a realistic spread of outcomes', () => {
    const reports = documents.map((document) =>
      normaliseCreditReport(generateCreditReport(document, 'a'), { bureau: 'a', document, fetchedAt: 'now' }),
    );
    const share = (predicate: (report: (typeof reports)[number]) => boolean) =>
      reports.filter(predicate).length / reports.length;
    expect(
      share((r) => r.protests.count + r.pendingDebts.count + r.bouncedCheques.count === 0),
    ).toBeGreaterThan(0.4);
    expect(share((r) => r.protests.count > 0)).toBeGreaterThan(0.1);
    expect(share((r) => r.pendingDebts.count > 0)).toBeGreaterThan(0.2);
    expect(share((r) => r.bouncedCheques.count > 0)).toBeGreaterThan(0.03);
    expect(share((r) => (r.score?.value ?? 0) >= 700)).toBeGreaterThan(0.25);
    expect(share((r) => (r.score?.value ?? 1000) < 400)).toBeGreaterThan(0.05);
    expect(share((r) => r.score?.probabilityPct === null)).toBeGreaterThan(0.02);
  });

  it('has every quirk of the interface', () => {
    const a = documents.map((document) => ({
      document,
      credit: creditA(generateCreditReport(document, 'a')),
    }));
    const b = documents.map((document) => ({
      document,
      credit: creditB(generateCreditReport(document, 'b')),
    }));
    // Bureau A on a CPF: cheque summaries carry only the count.
    const cpfA = a.filter(({ document }) => document.length === 11);
    expect(cpfA.length).toBeGreaterThan(0);
    for (const { credit } of cpfA) {
      expect(credit.resumoConsulta.chequesSemFundo).not.toHaveProperty('valorTotal');
      expect(credit.resumoConsulta.chequesSustados).not.toHaveProperty('valorTotal');
    }
    // Bureau B companies: registration data is the empty array; bureau B has no stopped cheques or query history.
    for (const { document, credit } of b) {
      if (document.length === 14) expect(credit.dadosCadastrais).toEqual([]);
      expect(credit).not.toHaveProperty('chequesSustados');
      expect(credit).not.toHaveProperty('historicoConsultas');
    }
    for (const { credit } of a) expect(credit).not.toHaveProperty('participacaoEmEmpresas');
    // valorTotal is the number 0 or a money string; money has thousands dots at A and none at B.
    const totals = a.flatMap(({ credit }) => [
      credit.resumoConsulta.protestos.valorTotal,
      credit.resumoConsulta.pendenciasFinanceiras.valorTotal,
    ]);
    expect(totals).toContain(0);
    expect(totals.some((total) => typeof total === 'string' && /^\d{1,3}(\.\d{3})+,\d{2}$/.test(total))).toBe(
      true,
    );
    const valuesB = b.flatMap(({ credit }) => credit.protestos.map((item) => item.valor));
    expect(valuesB.length).toBeGreaterThan(0);
    expect(valuesB.every((value) => /^\d+,\d{2}$/.test(value))).toBe(true);
    // dataEntrada "-" when unknown.
    expect(
      b.some(({ credit }) => credit.participacaoEmEmpresas.some((item) => item.dataEntrada === '-')),
    ).toBe(true);
    // The envelope field named after the service carries a docs URL; resumoRetorno has a query code and a PDF link.
    const envelope = generateCreditReport('51954022212', 'a');
    expect(envelope['bureau-emulator']).toMatch(/^https:\/\//);
    expect(envelope.dados.resumoRetorno).toMatchObject({
      codigoConsulta: expect.any(Number),
      pdf: expect.stringMatching(/\.pdf$/),
    });
  });
});
