import { describe, expect, it } from 'vitest';
import { type ChangeRow, ChangesCsvWriter } from '../../../src/domain/monitoring/index.ts';
import {
  type CsvDialect,
  neutraliseFormula,
  type StatisticsRow,
  SummaryCsvWriter,
} from '../../../src/domain/summary/index.ts';
import {
  amountCents,
  ResultsFileError,
  readChangesCsv,
  readSummaryCsv,
} from '../../../src/domain/summary/summary-csv-reader.ts';
import { invalidRowWith, reportColumnsWith, summaryRowWith } from '../../factories/summary-rows.ts';

const rows: StatisticsRow[] = [
  summaryRowWith({
    row: 1,
    report: reportColumnsWith({
      name: 'ANA "DA" SILVA; ME',
      defaultProbabilityPct: 12.5,
      protestsCount: 2,
      protestsCents: 123_405,
    }),
    passThrough: ['CLI-1', 'linha 1\nlinha 2'],
  }),
  { ...invalidRowWith(2, '12.345.678/0001-XX', 'illegal characters'), passThrough: ['CLI-2', 'x'] },
  summaryRowWith({
    row: 3,
    status: 'cached',
    statusDetail: 'report of 2026-11-20 reused',
    passThrough: ['CLI-3', ''],
  }),
];

function written(dialect: CsvDialect, passThrough: string[]): string {
  const writer = new SummaryCsvWriter(dialect, passThrough);
  return writer.header() + rows.map((row) => writer.row(row)).join('');
}

describe('readSummaryCsv', () => {
  it.each(['standard', 'excel'] as const)('reads back the rows the %s dialect wrote', (dialect) => {
    const read: StatisticsRow[] = [];
    const layout = readSummaryCsv(written(dialect, ['customer_id', 'name']), (row) => read.push(row));

    expect(layout).toEqual({ dialect, passThroughHeaders: ['customer_id', 'input_name'] });
    expect(read).toEqual(rows);
  });

  it.each(['standard', 'excel'] as const)(
    'reads back the decisions the %s dialect wrote, not as input columns',
    (dialect) => {
      const decided: StatisticsRow[] = [
        {
          ...(rows[0] as StatisticsRow),
          decision: {
            decision: 'decline',
            reasons: [
              { code: 'PROTESTO', text: 'Protesto em aberto: recusar' },
              { code: 'SCORE_BAIXO', text: 'SCORE_BAIXO' },
            ],
            risk_band: 'E',
            credit_limit: 1234.5,
            detail: null,
            trace: [],
          },
        },
        rows[1] as StatisticsRow,
      ];
      const writer = new SummaryCsvWriter(dialect, ['customer_id', 'name'], true);
      const read: StatisticsRow[] = [];

      const layout = readSummaryCsv(writer.header() + decided.map((row) => writer.row(row)).join(''), (row) =>
        read.push(row),
      );

      expect(layout.passThroughHeaders).toEqual(['customer_id', 'input_name']);
      expect(read).toEqual(decided);
    },
  );

  it('reads a charge_state column where the summary has one', () => {
    const text =
      'row,document,document_type,bureau,status,status_detail,name,score,default_probability_pct,protests_count,protests_amount,pending_debts_count,pending_debts_amount,bounced_cheques_count,bounced_cheques_amount,stopped_cheques_count,query_code,report_pdf,screened_at,charge_state,customer_id\r\n1,51954022212,cpf,a,screened,,ANA,700,1.5,0,0.00,0,0.00,0,0.00,0,1,,2026-11-21T10:00:00.000Z,charged,C1\r\n';
    const read: StatisticsRow[] = [];
    const layout = readSummaryCsv(text, (row) => read.push(row));

    expect(read[0]?.chargeState).toBe('charged');
    expect(layout.passThroughHeaders).toEqual(['customer_id']);
  });

  it('refuses a file that is not a summary, naming what is missing', () => {
    expect(() => readSummaryCsv('a,b\r\n1,2\r\n', () => {})).toThrow(ResultsFileError);
    expect(() => readSummaryCsv('', () => {})).toThrow(/empty/);
  });

  it('turns amounts into exact cents', () => {
    expect(['0.10', '1234,56', '7', '', '0.5'].map(amountCents)).toEqual([10, 123_456, 700, null, 50]);
  });
});

describe('readChangesCsv', () => {
  it('reads back the change rows, formula-neutralised cells as written', () => {
    const changes: ChangeRow[] = [
      {
        row: 4,
        document: '51954022212',
        change: { kind: 'score_drop', before: '700', after: '600', delta: '-100' },
        passThrough: ['=1+1'],
      },
      {
        row: 9,
        document: '11222333000181',
        change: { kind: 'new_protest', before: '0', after: '2', delta: '+2' },
        passThrough: ['C9'],
      },
    ];
    const writer = new ChangesCsvWriter('standard', ['customer_id']);
    const read: ChangeRow[] = [];
    readChangesCsv(writer.header() + changes.map((change) => writer.row(change)).join(''), (change) =>
      read.push(change),
    );

    expect(read).toEqual(
      changes.map((change) => ({ ...change, passThrough: change.passThrough.map(neutraliseFormula) })),
    );
  });
});
