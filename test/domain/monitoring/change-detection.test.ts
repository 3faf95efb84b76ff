import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../emulator/seeded-random.ts';
import {
  CHANGE_KINDS,
  ChangesCsvWriter,
  decisionChange,
  detectChanges,
  emptyChangeCounts,
} from '../../../src/domain/monitoring/index.ts';
import { makeCnpj, makeCpf } from '../../factories/documents.ts';
import { emulatedReport, reportWith } from '../../factories/normalised-reports.ts';

describe('detectChanges', () => {
  it('reports a document seen for the first time, with its score', () => {
    expect(detectChanges(null, reportWith({ score: 640 }))).toEqual([
      { kind: 'first_screening', before: '', after: '640', delta: '' },
    ]);
  });

  it('reports nothing when the figures are the same', () => {
    const report = reportWith({ protests: 1, pendingDebts: 2, score: 500 });

    expect(detectChanges(report, report)).toEqual([]);
  });

  it.each([
    [{ protests: 0 }, { protests: 2 }, 'new_protest', '0', '2', '+2'],
    [{ protests: 3 }, { protests: 0 }, 'protest_cleared', '3', '0', '-3'],
    [{ pendingDebts: 1 }, { pendingDebts: 2 }, 'new_pending_debt', '1', '2', '+1'],
    [{ pendingDebts: 2 }, { pendingDebts: 1 }, 'pending_debt_cleared', '2', '1', '-1'],
    [{ bouncedCheques: 0 }, { bouncedCheques: 1 }, 'bounced_cheques_up', '0', '1', '+1'],
    [{ score: 700 }, { score: 650 }, 'score_drop', '700', '650', '-50'],
    [{ score: 300 }, { score: 420 }, 'score_rise', '300', '420', '+120'],
    [{ status: '0' }, { status: '2' }, 'status_change', '0', '2', ''],
  ] as const)('reports %j → %j as %s', (before, after, kind, beforeText, afterText, delta) => {
    expect(detectChanges(reportWith(before), reportWith(after))).toEqual([
      { kind, before: beforeText, after: afterText, delta },
    ]);
  });

  it('ignores a score move below the threshold, and one where a score is missing', () => {
    expect(detectChanges(reportWith({ score: 700 }), reportWith({ score: 651 }))).toEqual([]);
    expect(
      detectChanges(reportWith({ score: 700 }), reportWith({ score: 500 }), { scorePoints: 300 }),
    ).toEqual([]);
    expect(detectChanges(reportWith({ score: null }), reportWith({ score: 100 }))).toEqual([]);
  });

  it('does not count fewer bounced cheques, or a status only one report states, as a change', () => {
    expect(detectChanges(reportWith({ bouncedCheques: 3 }), reportWith({ bouncedCheques: 1 }))).toEqual([]);
    expect(detectChanges(reportWith({ status: null }), reportWith({ status: 'ATIVA' }))).toEqual([]);
  });

  it('lists every change of a document that changed in several ways', () => {
    const changes = detectChanges(
      reportWith({ protests: 0, pendingDebts: 0, score: 800 }),
      reportWith({ protests: 1, pendingDebts: 1, score: 600 }),
    );

    expect(changes.map((change) => change.kind)).toEqual(['new_protest', 'new_pending_debt', 'score_drop']);
  });
});

describe('emulator epochs, seen through detectChanges', () => {
  const random = new SeededRandom('epochs');
  const documents = Array.from({ length: 400 }, (_, index) =>
    index % 4 === 0 ? makeCnpj(random) : makeCpf(random),
  );

  it('keeps every report the same within an epoch', () => {
    for (const document of documents.slice(0, 50)) {
      expect(emulatedReport(document, 'a', 3)).toEqual(emulatedReport(document, 'a', 3));
    }
  });

  it('changes a realistic share of documents between epochs, in every kind', () => {
    const counts = emptyChangeCounts();
    let changedDocuments = 0;
    for (const document of documents) {
      const changes = detectChanges(emulatedReport(document, 'a', 0), emulatedReport(document, 'a', 1));
      if (changes.length > 0) changedDocuments++;
      for (const change of changes) counts[change.kind]++;
    }

    const share = changedDocuments / documents.length;
    expect(share).toBeGreaterThan(0.15);
    expect(share).toBeLessThan(0.5);
    // Decision moves come from a policy (decisionChange), not from the reports alone.
    const fromReports = CHANGE_KINDS.filter(
      (kind) => !['first_screening', 'decision_worsened', 'decision_improved'].includes(kind),
    );
    for (const kind of fromReports) {
      expect(counts[kind], kind).toBeGreaterThan(0);
    }
  });

  it('keeps the records a document already had when it gets a new one', () => {
    for (const document of documents) {
      const before = emulatedReport(document, 'b', 0);
      const after = emulatedReport(document, 'b', 1);
      if (after.protests.count > before.protests.count && before.protests.count > 0) {
        expect(after.protests.items.slice(0, before.protests.count)).toEqual(before.protests.items);
        return;
      }
    }
    throw new Error('no document gained a protest on top of an existing one');
  });
});

describe('ChangesCsvWriter', () => {
  it('writes one line per change with the pass-through columns, neutralising formulas', () => {
    const writer = new ChangesCsvWriter('standard', ['change', 'gerente']);

    const text =
      writer.header() +
      writer.row({
        row: 7,
        document: '51954022212',
        change: { kind: 'score_drop', before: '700', after: '600', delta: '-100' },
        passThrough: ['x', '=HYPERLINK("http://evil")'],
      });

    expect(text).toBe(
      'row,document,change,before,after,delta,input_change,gerente\r\n' +
        `7,51954022212,score_drop,700,600,-100,x,"'=HYPERLINK(""http://evil"")"\r\n`,
    );
  });

  it('writes the Excel dialect with a BOM and semicolons', () => {
    const writer = new ChangesCsvWriter('excel', []);

    expect(writer.header()).toBe('\uFEFFrow;document;change;before;after;delta\r\n');
  });
});

describe('decisionChange', () => {
  it.each([
    ['approve', 'review', 'decision_worsened'],
    ['approve', 'decline', 'decision_worsened'],
    ['review', 'decline', 'decision_worsened'],
    ['decline', 'review', 'decision_improved'],
    ['review', 'approve', 'decision_improved'],
  ] as const)('calls %s → %s %s', (before, after, kind) => {
    expect(decisionChange(before, after)).toEqual({ kind, before, after, delta: '' });
  });

  it('says nothing when the decision stayed', () => {
    expect(decisionChange('review', 'review')).toBeNull();
  });
});
