import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import {
  neutraliseFormula,
  passThroughHeaders,
  type ReportColumns,
  SUMMARY_COLUMNS,
  SummaryCsvWriter,
  type SummaryRow,
} from '../../../src/domain/summary/index.ts';

/** The index of a summary column, so the tests do not hang on its position. */
const column = (name: (typeof SUMMARY_COLUMNS)[number]) => SUMMARY_COLUMNS.indexOf(name);

const report: ReportColumns = {
  name: 'ANA "DA" SILVA, ME',
  score: 712,
  defaultProbabilityPct: 12.5,
  protestsCount: 2,
  protestsCents: 123_456,
  pendingDebtsCount: 0,
  pendingDebtsCents: 0,
  bouncedChequesCount: 3,
  bouncedChequesCents: null,
  stoppedChequesCount: null,
  queryCode: 42,
  reportPdf: 'https://x.invalid/42.pdf',
  screenedAt: '2026-11-21T10:00:00.000Z',
};

const row = (overrides: Partial<SummaryRow> = {}): SummaryRow => ({
  row: 1,
  document: '51954022212',
  documentType: 'cpf',
  bureau: 'a',
  status: 'screened',
  statusDetail: '',
  chargeState: 'charged',
  report,
  passThrough: ['C1', 'linha 1\nlinha 2'],
  ...overrides,
});

function parse(text: string, delimiter: string): string[][] {
  return Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), { delimiter, skipEmptyLines: true }).data;
}

describe('SummaryCsvWriter', () => {
  it('writes the contract columns in order, then the input columns', () => {
    const writer = new SummaryCsvWriter('standard', ['customer_id', 'obs']);
    expect(parse(writer.header(), ',')[0]).toEqual([...SUMMARY_COLUMNS, 'customer_id', 'obs']);
  });

  it('writes amounts with a dot and two places, unknowns empty (never 0), and quotes per RFC 4180', () => {
    const writer = new SummaryCsvWriter('standard', ['customer_id', 'obs']);
    const text = writer.row(row());
    expect(text.endsWith('\r\n')).toBe(true);
    const [cells] = parse(text, ',');
    const byName = Object.fromEntries(SUMMARY_COLUMNS.map((column, index) => [column, cells?.[index]]));
    expect(byName).toMatchObject({
      name: 'ANA "DA" SILVA, ME',
      score: '712',
      default_probability_pct: '12.5',
      protests_amount: '1234.56',
      pending_debts_amount: '0.00',
      bounced_cheques_count: '3',
      bounced_cheques_amount: '',
      stopped_cheques_count: '',
    });
    expect(cells?.slice(-2)).toEqual(['C1', 'linha 1\nlinha 2']);
  });

  it('writes the Brazilian Excel dialect: BOM, semicolons and decimal commas', () => {
    const writer = new SummaryCsvWriter('excel', []);
    expect(writer.header().startsWith('\uFEFFrow;document;')).toBe(true);
    const [cells] = parse(writer.row(row()), ';');
    expect(cells?.[column('default_probability_pct')]).toBe('12,5');
    expect(cells?.[column('protests_amount')]).toBe('1234,56');
  });

  it('leaves every report column empty for rows without a report', () => {
    const [cells] = parse(
      new SummaryCsvWriter('standard', []).row(
        row({ status: 'invalid_document', report: null, statusDetail: 'bad CPF check digit' }),
      ),
      ',',
    );
    expect(cells?.slice(column('name'), SUMMARY_COLUMNS.length).every((cell) => cell === '')).toBe(true);
    expect(cells?.[column('status_detail')]).toBe('bad CPF check digit');
  });

  it('neutralises spreadsheet formulas in every cell, pass-through and bureau text alike', () => {
    const writer = new SummaryCsvWriter('standard', ['obs']);
    const hostile = row({ report: { ...report, name: '=HYPERLINK("http://x","y")' }, passThrough: ['+1+1'] });
    const [cells] = parse(writer.row(hostile), ',');
    expect(cells?.[column('name')]).toBe('\'=HYPERLINK("http://x","y")');
    expect(cells?.at(-1)).toBe("'+1+1");
  });
});

describe('neutraliseFormula', () => {
  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])('prefixes %j', (cell) => {
    expect(neutraliseFormula(cell)).toBe(`'${cell}`);
  });

  it('leaves other cells alone', () => {
    expect(neutraliseFormula('51954022212')).toBe('51954022212');
    expect(neutraliseFormula('Ana')).toBe('Ana');
  });
});

describe('passThroughHeaders', () => {
  it('keeps input headers, prefixing the ones the summary already uses', () => {
    expect(passThroughHeaders(['customer_id', 'name', 'Score', 'input_name'])).toEqual([
      'customer_id',
      'input_name',
      'input_Score',
      'input_input_name',
    ]);
  });
});
