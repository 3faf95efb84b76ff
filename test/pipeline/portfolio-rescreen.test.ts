import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCreditReport } from '../../emulator/report-generator.ts';
import type { BatchManifest } from '../../src/contract/index.ts';
import { DEFAULT_ALERT_CHANGE_KINDS, EVENTS } from '../../src/contract/index.ts';
import { CHANGE_KINDS, type ChangeKind, detectChanges } from '../../src/domain/monitoring/index.ts';
import { normaliseCreditReport } from '../../src/domain/report/index.ts';
import { distinctDocuments } from '../factories/customer-lists.ts';
import { parseSummary, startTestPipeline, type TestPipeline, writeCsv } from '../factories/pipeline.ts';

let test: TestPipeline;
const PORTFOLIO = 'carteira-ativa';
const documents = distinctDocuments(300, 'portfolio');

beforeAll(async () => {
  test = await startTestPipeline({ settings: { freshnessHours: 24 } });
  const csv = ['cpf_cnpj;gerente', ...documents.map((document, index) => `${document};gerente-${index % 7}`)];
  await test.pipeline.putPortfolio(PORTFOLIO, await writeCsv('carteira.csv', `${csv.join('\n')}\n`), {
    bureau: 'a',
  });
}, 60_000);
afterAll(async () => {
  await test?.stop();
});

async function rescreen() {
  const outcome = await test.pipeline.runPortfolio(PORTFOLIO);
  if (!('batchId' in outcome)) throw new Error(`portfolio not run: ${JSON.stringify(outcome)}`);
  await test.pipeline.waitForCompletion(outcome.batchId, { pollMs: 100 });
  const manifest = JSON.parse(
    await test.pipeline.readText(`results/${outcome.batchId}/manifest.json`),
  ) as BatchManifest;
  const changes = manifest.files?.changes
    ? parseSummary(await test.pipeline.readText(manifest.files.changes))
    : [];
  return { batchId: outcome.batchId, manifest, changes };
}

const normalised = (document: string, epoch: number) =>
  normaliseCreditReport(
    generateCreditReport(document, 'a', { serviceName: 'bureau-emulator', docsUrl: 'x', epoch }),
    {
      bureau: 'a',
      document,
      fetchedAt: '2026-01-01T00:00:00.000Z',
    },
  );

describe('re-screening a portfolio across two epochs', () => {
  let first: Awaited<ReturnType<typeof rescreen>>;
  let second: Awaited<ReturnType<typeof rescreen>>;
  let chargesAfterFirst: number;

  beforeAll(async () => {
    test.emulator.setEpoch(0);
    first = await rescreen();
    chargesAfterFirst = test.emulator.stats().charged;
    test.emulator.setEpoch(1);
    second = await rescreen();
  }, 180_000);

  it('reports every document as a first screening the first time', () => {
    expect(first.manifest).toMatchObject({ status: 'completed', portfolio: PORTFOLIO, bureau: 'a' });
    expect(first.changes).toHaveLength(documents.length);
    expect(new Set(first.changes.map((line) => line.change))).toEqual(new Set(['first_screening']));
    expect(first.manifest.changes?.counts.first_screening).toBe(documents.length);
  });

  it('asks the bureau again for every document (no maxAgeHours), once each per run', () => {
    expect(chargesAfterFirst).toBe(documents.length);
    expect(test.emulator.stats().charged).toBe(2 * documents.length);
    expect(second.manifest.counts).toMatchObject({
      rows: documents.length,
      screened: documents.length,
      cached: 0,
    });
  });

  it('lists exactly the changes between the two normalised reports of each document, every kind present', () => {
    const expected = documents.flatMap((document, index) =>
      detectChanges(normalised(document, 0), normalised(document, 1)).map((change) => ({
        row: String(index + 1),
        document,
        change: change.kind,
        before: change.before,
        after: change.after,
        delta: change.delta,
        gerente: `gerente-${index % 7}`,
      })),
    );

    expect(second.changes).toEqual(expected);
    const kinds = new Set(second.changes.map((line) => line.change as ChangeKind));
    // Bureau B gives no registration status for companies and none at all for people, so no status_change here;
    // a portfolio without a policy has no decisions to move (decisions-in-pipeline.test.ts covers those).
    const withoutPolicy = ['decision_worsened', 'decision_improved'];
    for (const kind of CHANGE_KINDS.filter(
      (kind) => kind !== 'first_screening' && kind !== 'status_change' && !withoutPolicy.includes(kind),
    )) {
      expect(kinds, kind).toContain(kind);
    }
    for (const kind of withoutPolicy) expect(kinds, kind).not.toContain(kind);
  });

  it('writes changes.csv before the manifest, announces PortfolioChanged once with the counts, then each alerted document', () => {
    const events = test.pipeline.events.events.filter(
      (event) => 'batchId' in event.detail && event.detail.batchId === second.batchId,
    );
    const changed = events.filter((event) => event.detailType === EVENTS.portfolioChanged);

    expect(second.manifest.files?.changes).toBe(`results/${second.batchId}/changes.csv`);
    // Then one DocumentChanged per document with a change of a kind alerts select by default.
    const alerted = new Set(
      second.changes
        .filter((line) => DEFAULT_ALERT_CHANGE_KINDS.includes(line.change as ChangeKind))
        .map((line) => line.document),
    );
    expect(events.map((event) => event.detailType)).toEqual([
      EVENTS.batchCompleted,
      EVENTS.portfolioChanged,
      ...[...alerted].map(() => EVENTS.documentChanged),
    ]);
    const counts = Object.fromEntries(CHANGE_KINDS.map((kind) => [kind, 0]));
    for (const line of second.changes)
      counts[line.change as string] = (counts[line.change as string] ?? 0) + 1;
    expect(changed[0]?.detail).toMatchObject({
      portfolio: PORTFOLIO,
      counts,
      documentsChanged: new Set(second.changes.map((line) => line.document)).size,
    });
  });
});

describe('a portfolio with maxAgeHours', () => {
  it('reuses reports younger than maxAgeHours, spends nothing on them and reports no change', async () => {
    const name = 'recentes';
    const subset = documents.slice(0, 40);
    await test.pipeline.putPortfolio(
      name,
      await writeCsv('recentes.csv', `documento\n${subset.join('\n')}\n`),
      {
        bureau: 'a',
        maxAgeHours: 24,
      },
    );
    const chargedBefore = test.emulator.stats().charged;

    const outcome = await test.pipeline.runPortfolio(name);
    if (!('batchId' in outcome)) throw new Error('not run');
    await test.pipeline.waitForCompletion(outcome.batchId, { pollMs: 100 });
    const manifest = JSON.parse(
      await test.pipeline.readText(`results/${outcome.batchId}/manifest.json`),
    ) as BatchManifest;

    expect(test.emulator.stats().charged).toBe(chargedBefore);
    expect(manifest.counts).toMatchObject({ cached: subset.length, screened: 0 });
    expect(parseSummary(await test.pipeline.readText(manifest.files?.changes as string))).toEqual([]);
    expect(manifest.changes?.documentsChanged).toBe(0);
  });

  it('skips a run whose portfolio has no list, or unreadable settings, without a batch', async () => {
    await test.pipeline.putPortfolio('quebrado', await writeCsv('q.csv', `documento\n${documents[0]}\n`), {
      bureau: 'x',
    } as never);

    expect(await test.pipeline.runPortfolio('inexistente')).toMatchObject({ outcome: 'portfolio_missing' });
    expect(await test.pipeline.runPortfolio('quebrado')).toMatchObject({
      outcome: 'settings_invalid',
      reason: expect.stringContaining('bureau'),
    });
  });
});
