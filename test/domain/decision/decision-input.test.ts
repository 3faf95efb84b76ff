import { describe, expect, it } from 'vitest';
import {
  customerColumns,
  customerValue,
  DECISION_INPUT_FIELDS,
  DECISION_INPUT_KINDS,
  decisionFigures,
  decisionInput,
} from '../../../src/domain/decision/index.ts';
import { normaliseCreditReport } from '../../../src/domain/report/index.ts';
import { bureauResponse } from '../../factories/bureau-responses.ts';
import { companyReport, personReport } from '../../factories/decision-reports.ts';

const fixture = (name: Parameters<typeof bureauResponse>[0], bureau: 'a' | 'b', document: string) =>
  normaliseCreditReport(bureauResponse(name), { bureau, document, fetchedAt: '2026-01-01T00:00:00.000Z' });

describe('customerValue', () => {
  it.each([
    ['R$ 1.234,56', 1234.56],
    ['1.234,56', 1234.56],
    ['1234,56', 1234.56],
    ['1234,5', 1234.5],
    ['1234.56', 1234.56],
    ['1,234.56', 1234.56],
    ['1.234', 1234],
    ['1.234.567', 1234567],
    ['1,234,567', 1234567],
    ['20000', 20000],
    ['-150', -150],
    ['- R$ 10,00', -10],
    ['R$1.500', 1500],
    ['0,5', 0.5],
    ['0', 0],
  ])('reads %j as the number %d', (cell, expected) => {
    expect(customerValue(cell)).toBe(expected);
  });

  it.each([
    ['varejo', 'varejo'],
    ['  atacado ', 'atacado'],
    ['007', '007'],
    ['01310-100', '01310-100'],
    ['5 mil', '5 mil'],
    ['1.23.4', '1.23.4'],
    ['12%', '12%'],
  ])('keeps %j as the text %j', (cell, expected) => {
    expect(customerValue(cell)).toBe(expected);
  });

  it('reads an empty cell as null, never 0', () => {
    expect(customerValue('')).toBeNull();
    expect(customerValue('   ')).toBeNull();
  });

  it('keys the columns by header: the first of a repeated header, no blank header, __proto__ as a column', () => {
    const columns = customerColumns(
      ['requested_amount', 'segmento', 'segmento', ' ', '__proto__'],
      ['R$ 5.000,00', 'varejo', 'outro', 'x', 'y'],
    );
    expect(columns).toEqual({ requested_amount: 5000, segmento: 'varejo', ['__proto__']: 'y' });
    expect(Object.getPrototypeOf(columns)).toBe(Object.prototype);
  });

  it('gives a missing cell (a short row) as null', () => {
    expect(customerColumns(['a', 'b'], ['1'])).toEqual({ a: 1, b: null });
  });
});

describe('decisionFigures', () => {
  it('gives a bureau A person under the summary’s column names, money in reais, ages at the report’s date', () => {
    expect(decisionFigures(fixture('bureau-a-person', 'a', '51954022212'))).toEqual({
      input_version: 1,
      document_type: 'cpf',
      bureau: 'a',
      score: 412,
      default_probability_pct: 12.5,
      protests_count: 2,
      protests_amount: 1234.56,
      pending_debts_count: 1,
      pending_debts_amount: 12000,
      bounced_cheques_count: 3,
      bounced_cheques_amount: null,
      stopped_cheques_count: 0,
      stopped_cheques_amount: null,
      // Born 1984-02-29, reported 2026-01-01.
      age_years: 41,
      company_age_years: null,
      registration_status: '0',
      companies_count: null,
      // The fixture's one query is dated after the report (2026-10-20): within the window, counted.
      queries_last_90_days: 1,
      presumed_income: 3500,
      screened_at: '2026-01-01T00:00:00.000Z',
    });
  });

  it('gives null, never 0, for what bureau B does not report on a company', () => {
    const figures = decisionFigures(fixture('bureau-b-company', 'b', '11222333000181'));
    expect(figures).toMatchObject({
      document_type: 'cnpj',
      bureau: 'b',
      score: 701,
      registration_status: null,
      company_age_years: null,
      age_years: null,
      stopped_cheques_count: null,
      stopped_cheques_amount: null,
      queries_last_90_days: null,
      presumed_income: null,
      bounced_cheques_amount: 2000,
    });
  });

  it('counts the companies a bureau B person takes part in, and no score probability it did not calculate', () => {
    const figures = decisionFigures(fixture('bureau-b-person', 'b', '51954022212'));
    expect(figures).toMatchObject({ companies_count: 2, default_probability_pct: null, age_years: 56 });
  });

  it('counts completed years of a company and queries in the 90 days up to the report (undated ones too)', () => {
    const report = companyReport({
      foundationDate: '2024-01-02',
      queries: ['2025-12-31', '2025-10-03', '2025-10-02', '2024-05-05'],
    });
    const figures = decisionFigures({
      ...report,
      queryHistory: [...(report.queryHistory ?? []), { date: null, company: null }],
    });
    expect(figures.company_age_years).toBe(1);
    // From 2025-10-03: two dated queries and the undated one.
    expect(figures.queries_last_90_days).toBe(3);
  });

  it('gives no age for a birth date after the report or none at all', () => {
    expect(decisionFigures(personReport({ birthDate: '2027-01-01' })).age_years).toBeNull();
    expect(decisionFigures(personReport({ birthDate: null })).age_years).toBeNull();
    expect(decisionFigures(personReport({ birthDate: '2008-01-01' })).age_years).toBe(18);
    expect(decisionFigures(personReport({ birthDate: '2008-01-02' })).age_years).toBe(17);
  });
});

describe('decisionInput', () => {
  it('holds exactly the documented fields, of the documented kinds', () => {
    const input = decisionInput(personReport(), ['requested_amount', 'segmento'], ['R$ 20.000,00', 'varejo']);
    expect(Object.keys(input).sort()).toEqual([...DECISION_INPUT_FIELDS].sort());
    for (const field of DECISION_INPUT_FIELDS) {
      const value = input[field];
      if (value === null) continue;
      expect(typeof value, field).toBe(
        DECISION_INPUT_KINDS[field] === 'object' ? 'object' : DECISION_INPUT_KINDS[field],
      );
    }
    expect(input.input).toEqual({ requested_amount: 20000, segmento: 'varejo' });
  });

  it('takes figures already computed (to keep on a row) as well as the report', () => {
    const report = personReport({ score: 333 });
    expect(decisionInput(decisionFigures(report), ['a'], ['1'])).toEqual(decisionInput(report, ['a'], ['1']));
  });
});
