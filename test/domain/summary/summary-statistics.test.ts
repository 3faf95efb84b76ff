import { describe, expect, it } from 'vitest';
import { CHANGE_KINDS } from '../../../src/domain/monitoring/index.ts';
import {
  bandIndex,
  CHANGE_SEVERITY,
  PART_STATISTICS_LIMITS,
  PROBABILITY_BANDS,
  SCORE_BANDS,
  type StatisticsRow,
  SummaryStatisticsCollector,
  TopList,
} from '../../../src/domain/summary/index.ts';
import {
  invalidRowWith,
  reportColumnsWith,
  statisticsOf,
  summaryRowWith,
} from '../../factories/summary-rows.ts';

describe('CHANGE_SEVERITY', () => {
  it('ranks every kind of change once, a decision moving towards decline first', () => {
    expect([...CHANGE_SEVERITY].sort()).toEqual([...CHANGE_KINDS].sort());
    expect(CHANGE_SEVERITY[0]).toBe('decision_worsened');
  });
});

describe('TopList', () => {
  it('keeps the first items in order whatever order they come in, and counts every offer', () => {
    const list = new TopList<number>(3, (a, b) => a - b);
    for (const value of [9, 4, 7, 1, 8, 4, 2]) list.offer(value);

    expect(list.items).toEqual([1, 2, 4]);
    expect(list.offered).toBe(7);
  });
});

describe('bandIndex', () => {
  it('puts each value in its half-open band, the top of the scale in the last band', () => {
    expect([0, 199, 200, 999, 1000].map((score) => bandIndex(SCORE_BANDS, score))).toEqual([0, 0, 1, 4, 4]);
    expect([0, 1.99, 2, 50, 100].map((pct) => bandIndex(PROBABILITY_BANDS, pct))).toEqual([0, 0, 1, 5, 5]);
  });
});

describe('SummaryStatisticsCollector', () => {
  it('counts score and probability bands over the documents with a report only', () => {
    const statistics = statisticsOf([
      summaryRowWith({ row: 1, report: reportColumnsWith({ score: 150, defaultProbabilityPct: 55 }) }),
      summaryRowWith({
        row: 2,
        status: 'cached',
        report: reportColumnsWith({ score: 850, defaultProbabilityPct: 1 }),
      }),
      summaryRowWith({ row: 3, report: reportColumnsWith({ score: null, defaultProbabilityPct: null }) }),
      // A duplicate repeats its first row's figures: counting it would count a customer twice.
      summaryRowWith({ row: 4, status: 'duplicate', report: reportColumnsWith({ score: 150 }) }),
      invalidRowWith(5, '123'),
    ]);

    expect(statistics.withReport).toBe(3);
    expect(statistics.scoreBands).toEqual([1, 0, 0, 0, 1]);
    expect(statistics.noScore).toBe(1);
    expect(statistics.probabilityBands).toEqual([1, 0, 0, 0, 0, 1]);
    expect(statistics.noProbability).toBe(1);
    expect(statistics.statuses).toMatchObject({ screened: 2, cached: 1, duplicate: 1, invalid_document: 1 });
  });

  it('groups reasons by status with their first rows as examples, most frequent first', () => {
    const statistics = statisticsOf([
      invalidRowWith(1, '111', 'repeated digits'),
      invalidRowWith(2, '123', 'bad CPF check digit'),
      invalidRowWith(3, '124', 'bad CPF check digit'),
      invalidRowWith(4, '125', 'bad CPF check digit'),
      invalidRowWith(5, '126', 'bad CPF check digit'),
      summaryRowWith({ row: 6, status: 'failed', statusDetail: 'bureau unavailable', report: null }),
    ]);

    expect(statistics.reasons).toEqual([
      {
        status: 'invalid_document',
        reason: 'bad CPF check digit',
        count: 4,
        examples: [
          { row: 2, input: '123' },
          { row: 3, input: '124' },
          { row: 4, input: '125' },
        ],
      },
      {
        status: 'invalid_document',
        reason: 'repeated digits',
        count: 1,
        examples: [{ row: 1, input: '111' }],
      },
      {
        status: 'failed',
        reason: 'bureau unavailable',
        count: 1,
        examples: [{ row: 6, input: '51954022212' }],
      },
    ]);
  });

  it('lumps reasons past the limit together instead of growing without bound', () => {
    const collector = new SummaryStatisticsCollector({
      customers: 5,
      changes: 5,
      reasons: 2,
      examplesPerReason: 1,
    });
    for (let row = 1; row <= 5; row++) collector.add(invalidRowWith(row, 'x', `reason ${row}`));

    const statistics = collector.result();
    expect(statistics.reasons.map((group) => group.reason)).toEqual(['reason 1', 'reason 2']);
    expect(statistics.otherReasonRows).toBe(3);
  });

  it('ranks the lowest scores and the largest protest and debt totals, with how many qualified', () => {
    const collector = new SummaryStatisticsCollector({
      customers: 2,
      changes: 5,
      reasons: 5,
      examplesPerReason: 1,
    });
    const scores = [500, 90, 700, 90, 300];
    scores.forEach((score, index) => {
      collector.add(
        summaryRowWith({
          row: index + 1,
          report: reportColumnsWith({
            score,
            protestsCount: 1,
            protestsCents: score * 100,
            pendingDebtsCents: 5,
          }),
        }),
      );
    });

    const { lowestScores, largestDebts } = collector.result();
    expect(lowestScores.items.map((line) => [line.row, line.score])).toEqual([
      [2, 90],
      [4, 90],
    ]);
    expect(lowestScores.total).toBe(5);
    expect(largestDebts.items.map((line) => line.row)).toEqual([3, 1]);
  });

  it('sums the risk mix per document type and notes counts whose amounts the bureau did not give', () => {
    const statistics = statisticsOf([
      summaryRowWith({ row: 1, report: reportColumnsWith({ protestsCount: 2, protestsCents: 150_050 }) }),
      summaryRowWith({
        row: 2,
        report: reportColumnsWith({ bouncedChequesCount: 3, bouncedChequesCents: null }),
      }),
      summaryRowWith({
        row: 3,
        document: '11222333000181',
        documentType: 'cnpj',
        report: reportColumnsWith({ pendingDebtsCount: 1, pendingDebtsCents: 99 }),
      }),
    ]);

    expect(statistics.risk.cpf).toMatchObject({
      documents: 2,
      withAnyRestriction: 2,
      withProtests: 1,
      protestsCents: 150_050,
      withBouncedCheques: 1,
      bouncedChequesCents: 0,
      amountsUnknown: { protests: 0, pendingDebts: 0, bouncedCheques: 1 },
    });
    expect(statistics.risk.cnpj).toMatchObject({ documents: 1, withPendingDebts: 1, pendingDebtsCents: 99 });
  });

  it('counts charge states when the rows carry them, and reports none when they do not', () => {
    expect(statisticsOf([summaryRowWith()]).charges).toBeNull();
    expect(
      statisticsOf([
        summaryRowWith({ chargeState: 'charged' }),
        summaryRowWith({ chargeState: 'charge_unknown' }),
        summaryRowWith({ status: 'cached', chargeState: 'not_charged' }),
      ]).charges,
    ).toEqual({ charged: 1, not_charged: 1, charge_unknown: 1 });
  });

  it('lists changes with the most severe kind first, larger moves first within a kind', () => {
    const collector = new SummaryStatisticsCollector();
    const change = (row: number, kind: 'score_rise' | 'score_drop' | 'new_protest', delta: string) =>
      collector.addChange({
        row,
        document: '51954022212',
        change: { kind, before: '', after: '', delta },
        passThrough: [],
      });
    change(1, 'score_rise', '+300');
    change(2, 'score_drop', '-60');
    change(3, 'score_drop', '-200');
    change(4, 'new_protest', '+1');

    const { changes } = collector.result();
    expect(changes.list.items.map((line) => line.row)).toEqual([4, 3, 2, 1]);
    expect(changes.counts).toMatchObject({
      score_drop: 2,
      score_rise: 1,
      new_protest: 1,
      protest_cleared: 0,
    });
  });

  it('absorbs parts gathered apart into what one pass over every row gathers', () => {
    const rows = Array.from({ length: 300 }, (_, index) => {
      const row = index + 1;
      if (row % 7 === 0) return invalidRowWith(row, `x${row}`, `reason ${Math.floor(row / 7) % 41}`);
      const scored = reportColumnsWith({
        score: (row * 37) % 1000,
        pendingDebtsCount: row % 3,
        pendingDebtsCents: (row % 3) * 1000 * row,
        defaultProbabilityPct: (row * 13) % 100,
      });
      return summaryRowWith({
        row,
        documentType: row % 2 === 0 ? 'cpf' : 'cnpj',
        status: row % 11 === 0 ? 'cached' : 'screened',
        chargeState: row % 11 === 0 ? 'not_charged' : 'charged',
        report: scored,
        decision: {
          decision: row % 5 === 0 ? 'decline' : row % 3 === 0 ? 'review' : 'approve',
          reasons: [{ code: `R${row % 4}`, text: 'because' }],
          credit_limit: row * 10,
        } as unknown as StatisticsRow['decision'],
      });
    });
    const joined = new SummaryStatisticsCollector();
    for (let start = 0; start < rows.length; start += 40) {
      const part = new SummaryStatisticsCollector(PART_STATISTICS_LIMITS);
      for (const row of rows.slice(start, start + 40)) part.add(row);
      joined.absorb(part.result());
    }

    const once = statisticsOf(rows);
    expect(once.reasons).toHaveLength(40);
    expect(once.otherReasonRows).toBeGreaterThan(0);
    expect(once.lowestScores.total).toBeGreaterThan(once.lowestScores.items.length);
    expect(joined.result()).toEqual(once);
  });
});
