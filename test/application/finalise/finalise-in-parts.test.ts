import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zenCreditPolicyLoader } from '../../../src/adapters/decision/zen-credit-policy.ts';
import { MemoryLogger } from '../../../src/adapters/memory/memory-logger.ts';
import { DEFAULT_REPORT_LANGUAGE, renderBatchReport } from '../../../src/application/batch-report/index.ts';
import {
  type FinaliseDependencies,
  handleFinaliseMessage,
} from '../../../src/application/finalise/finalise-batch.ts';
import { type RangeResults, writeRangeFiles } from '../../../src/application/finalise/result-files.ts';
import { finalisePartKeys, finalisePartsPrefix, policyKey, resultKeys } from '../../../src/contract/index.ts';
import type { FinaliseMessage } from '../../../src/domain/batch/index.ts';
import type { BureauGateway } from '../../../src/domain/ports/index.ts';
import { passThroughHeaders } from '../../../src/domain/summary/index.ts';
import { distinctDocuments } from '../../factories/customer-lists.ts';
import { type MemoryPipeline, startMemoryPipeline } from '../../factories/memory-pipeline.ts';
import { parseSummary } from '../../factories/pipeline.ts';
import { screenListOn } from '../../factories/screen-list.ts';

let test: MemoryPipeline;
let bureau: BureauGateway;
beforeAll(async () => {
  test = await startMemoryPipeline();
  bureau = test.bureau;
  test.objects.put(policyKey('pessoa-fisica.json'), readFileSync('samples/policies/pessoa-fisica.json'));
}, 60_000);
afterAll(async () => {
  await test?.stop();
});

/** The finaliser's dependencies on the test's stores; `sent` receives what it queues. */
function finaliseDeps(sent: FinaliseMessage[] = [], partRows?: number): FinaliseDependencies {
  return {
    ...test.adapters,
    logger: new MemoryLogger(),
    policyLoader: zenCreditPolicyLoader,
    queue: { sendFinalise: async (message) => void sent.push(message) },
    ...(partRows === undefined ? {} : { partRows }),
  };
}

/** The batch's files as one pass over every row writes them (under other keys), with what it counted. */
async function writtenAtOnce(
  batchId: string,
): Promise<{ files: Record<string, string>; results: RangeResults }> {
  const batch = await test.adapters.batchRecords.getBatch(batchId);
  if (batch === null) throw new Error('no batch');
  const targets = {
    summary: `reference/${batchId}/summary.csv`,
    reports: `reference/${batchId}/reports.jsonl`,
    changes: `reference/${batchId}/changes.csv`,
    review: `reference/${batchId}/review.jsonl`,
  };
  // Without an audit log: the reference must not record decisions the parts record.
  const { audit: _audit, ...withoutAudit } = finaliseDeps();
  const results = await writeRangeFiles(
    batch,
    targets,
    { withHeaders: true },
    resultKeys(batchId).changes,
    withoutAudit,
  );
  const files = {
    summary: await test.readText(targets.summary),
    reports: await test.readText(targets.reports),
    changes: batch.portfolio === null ? '' : await test.readText(targets.changes),
    review: batch.policy === null ? '' : await test.readText(targets.review),
  };
  return { files, results };
}

/** A page with its charts' generated class names (numbered per chart drawn in the process) made alike. */
const withoutChartIds = (page: string) => page.replace(/zr\d+-cls-\d+/gu, 'zr-cls');

async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of test.objects.list(prefix)) keys.push(key);
  return keys;
}

/** A list with duplicates whose first occurrence lies parts before them, invalid documents and a customer column. */
function listWithDuplicatesAcrossParts(documents: readonly string[]): string {
  const lines = documents.map((document, index) => `${document},"R$ ${(index + 1) * 10_000},00"`);
  const first = lines[0] as string;
  const third = lines[2] as string;
  return `cpf_cnpj,requested_amount\n${[
    ...lines.slice(0, 10),
    '123.456.789-00,"R$ 1,00"',
    first,
    ...lines.slice(10, 20),
    third,
    'not a document,"R$ 2,00"',
    first,
    ...lines.slice(20),
  ].join('\n')}\n`;
}

/**
 * Screens `list`, stopping the factory's own finalisation: `deliver` gets the batch id and delivers the finalise
 * messages itself. Returns the batch id.
 */
async function screenDeliveringFinalise(
  list: string,
  deliver: (batchId: string) => Promise<void>,
): Promise<string> {
  let batchId = '';
  await screenListOn(
    test,
    bureau,
    list,
    {},
    {
      beforeFinalise: async (id) => {
        batchId = id;
        await deliver(id);
      },
    },
  );
  return batchId;
}

describe('a batch finalised in parts', () => {
  it('writes byte for byte the files, counts and page one pass over every row writes, in any order', async () => {
    const list = listWithDuplicatesAcrossParts(distinctDocuments(24, 'finalise parts'));
    let reference: Awaited<ReturnType<typeof writtenAtOnce>> | undefined;

    const { batchId, manifest } = await screenListOn(
      test,
      bureau,
      list,
      { policy: 'pessoa-fisica.json' },
      {
        // The finaliser decides every row: a duplicate's first occurrence, parts before, is decided again.
        workerDecides: false,
        finalisePartRows: 7,
        finaliseOrder: 'reversed',
        beforeFinalise: async (id) => {
          reference = await writtenAtOnce(id);
        },
      },
    );

    if (manifest === null || reference === undefined) throw new Error('the batch was not finalised');
    const keys = resultKeys(batchId);
    expect(manifest.counts.rows).toBe(29);
    expect(manifest.counts.duplicate).toBe(3);
    expect(await test.readText(keys.summary)).toBe(reference.files.summary);
    expect(await test.readText(keys.reports)).toBe(reference.files.reports);
    // The rows in review, joined from the parts as one pass writes them, and listed in the manifest.
    expect((reference.files.review ?? '').split('\n').length).toBeGreaterThan(2);
    expect(await test.readText(keys.review)).toBe(reference.files.review);
    expect(manifest.files?.review).toBe(keys.review);
    expect(manifest.counts).toMatchObject(reference.results.counts);
    expect(manifest.charges).toEqual(reference.results.charges);
    expect(manifest.decisions).toEqual(reference.results.decisions);
    const page = await renderBatchReport({
      manifest,
      statistics: reference.results.statistics.result(),
      passThroughHeaders: passThroughHeaders(['requested_amount']),
      language: DEFAULT_REPORT_LANGUAGE,
      generatedAt: manifest.completedAt,
    });
    expect(withoutChartIds(await test.readText(keys.report))).toBe(withoutChartIds(page));
    expect(await keysUnder(finalisePartsPrefix(batchId))).toEqual([]);
    const completed = test.events.events.filter(
      (event) => event.detailType === 'BatchCompleted' && event.detail.batchId === batchId,
    );
    expect(completed).toHaveLength(1);
  });

  it('joins a re-screen’s changes and alerts as one pass finds them', async () => {
    const documents = distinctDocuments(20, 'finalise parts rescreen');
    const list = `cpf_cnpj,requested_amount\n${documents.map((document) => `${document},"R$ 900.000,00"`).join('\n')}\n`;
    await screenListOn(test, bureau, list, { policy: 'pessoa-fisica.json' });
    test.emulator.setEpoch(1);
    let reference: Awaited<ReturnType<typeof writtenAtOnce>> | undefined;
    try {
      const { batchId, manifest } = await screenListOn(
        test,
        bureau,
        list,
        {},
        {
          portfolio: { name: 'carteira-partes', policy: 'pessoa-fisica.json' },
          finalisePartRows: 6,
          beforeFinalise: async (id) => {
            reference = await writtenAtOnce(id);
          },
        },
      );

      if (manifest === null || reference === undefined) throw new Error('the batch was not finalised');
      const alerts = reference.results.changeAlerts;
      expect(alerts?.documentEvents.length).toBeGreaterThan(0);
      expect(await test.readText(resultKeys(batchId).changes)).toBe(reference.files.changes);
      expect(manifest.changes).toEqual(reference.results.changeTally);
      const published = test.events.events.filter(
        (event) => 'batchId' in event.detail && event.detail.batchId === batchId,
      );
      const portfolio = published.find((event) => event.detailType === 'PortfolioChanged');
      expect(portfolio?.detail).toMatchObject({ worstChanges: alerts?.worstChanges });
      const documentEvents = published.filter((event) => event.detailType === 'DocumentChanged');
      expect(documentEvents.map((event) => event.detail)).toEqual(alerts?.documentEvents);
    } finally {
      test.emulator.setEpoch(0);
    }
  });

  it('sends again only the parts not written, and completes once however often a message comes', async () => {
    const list = `cpf_cnpj\n${distinctDocuments(10, 'finalise parts repeats').join('\n')}\n`;
    const sent: FinaliseMessage[] = [];
    const deps = finaliseDeps(sent, 3);

    const batchId = await screenDeliveringFinalise(list, async (id) => {
      // A part cut at another size (the setting changed meanwhile) is not one of this batch's parts.
      await handleFinaliseMessage({ version: 1, batchId: id, part: { index: 0, first: 1, last: 5 } }, deps);
      expect(await keysUnder(finalisePartsPrefix(id))).toEqual([]);
      await handleFinaliseMessage({ version: 1, batchId: id }, deps);
      const [first, second] = sent.splice(0);
      await handleFinaliseMessage(first as FinaliseMessage, deps);
      await handleFinaliseMessage(second as FinaliseMessage, deps);
      await handleFinaliseMessage(second as FinaliseMessage, deps);
      // The whole-batch message comes again (a redelivery, the local runner resuming an interrupted batch).
      await handleFinaliseMessage({ version: 1, batchId: id }, deps);
      const resent = sent.splice(0);
      expect(resent.map((message) => message.part?.index)).toEqual([2, 3]);
      for (const message of resent) await handleFinaliseMessage(message, deps);
      const joins = sent.splice(0);
      expect(joins).toEqual([{ version: 1, batchId: id, compose: true, partRows: 3 }]);
      const [join] = joins as [FinaliseMessage];
      expect((await handleFinaliseMessage(join, deps))?.counts.rows).toBe(10);
      expect(await handleFinaliseMessage(join, deps)).toBeNull();
    });

    const completed = test.events.events.filter(
      (event) => event.detailType === 'BatchCompleted' && event.detail.batchId === batchId,
    );
    expect(completed).toHaveLength(1);
    const summary = parseSummary(await test.readText(resultKeys(batchId).summary));
    expect(summary.map((line) => Number(line.row))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(summary.every((line) => line.status === 'screened')).toBe(true);
  });

  it('never joins the parts an earlier finalisation of the batch left behind (a redrive finalises it again)', async () => {
    const list = `cpf_cnpj\n${distinctDocuments(6, 'finalise parts stale').join('\n')}\n`;
    let batchId = '';

    const { manifest, summary } = await screenListOn(
      test,
      bureau,
      list,
      {},
      {
        finalisePartRows: 3,
        // What a first finalisation's join left when it stopped before removing its parts, and a redrive followed.
        beforeFinalise: async (id) => {
          batchId = id;
          const batch = await test.adapters.batchRecords.getBatch(id);
          for (const part of [
            { first: 1, last: 3 },
            { first: 4, last: 6 },
          ]) {
            const stale = finalisePartKeys(id, (batch?.revision ?? 1) - 1, part);
            test.objects.put(stale.summary, 'row,stale\n');
            test.objects.put(stale.reports, '{"stale":true}\n');
            test.objects.put(stale.alerts, '');
            test.objects.put(stale.aggregate, '{"version":1}');
          }
        },
      },
    );

    expect(manifest?.counts.rows).toBe(6);
    expect(summary.map((line) => Number(line.row))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await test.readText(resultKeys(batchId).reports)).not.toContain('stale');
    expect(await keysUnder(finalisePartsPrefix(batchId))).toEqual([]);
  });

  it('announces every change once when two joins run at once, and only the one that completes removes the parts', async () => {
    const documents = distinctDocuments(12, 'finalise parts two joins');
    const list = `cpf_cnpj,requested_amount\n${documents.map((document) => `${document},"R$ 900.000,00"`).join('\n')}\n`;
    await screenListOn(test, bureau, list, { policy: 'pessoa-fisica.json' });
    test.emulator.setEpoch(1);
    const sent: FinaliseMessage[] = [];
    let expected = 0;
    let batchId = '';
    try {
      await screenListOn(
        test,
        bureau,
        list,
        {},
        {
          portfolio: { name: 'carteira-duas-juncoes', policy: 'pessoa-fisica.json' },
          beforeFinalise: async (id) => {
            batchId = id;
            expected = (await writtenAtOnce(id)).results.changeAlerts?.documentEvents.length ?? 0;
            // The join that wins is slow to announce: the other must not take the alerts it is still reading.
            const slowEvents = new Proxy(test.events, {
              get(target, name, receiver) {
                const value = Reflect.get(target, name, receiver);
                if (typeof value !== 'function') return value;
                return async (...args: unknown[]) => {
                  if (name === 'portfolioChanged') await new Promise((resolve) => setTimeout(resolve, 100));
                  return value.apply(target, args);
                };
              },
            });
            const deps = { ...finaliseDeps(sent, 4), events: slowEvents };
            await handleFinaliseMessage({ version: 1, batchId: id }, deps);
            for (const part of sent.splice(0)) await handleFinaliseMessage(part, deps);
            const [join] = sent.splice(0) as [FinaliseMessage];
            await Promise.all([handleFinaliseMessage(join, deps), handleFinaliseMessage(join, deps)]);
          },
        },
      );
    } finally {
      test.emulator.setEpoch(0);
    }

    expect(expected).toBeGreaterThan(0);
    const announced = test.events.events.filter(
      (event) => event.detailType === 'DocumentChanged' && event.detail.batchId === batchId,
    );
    expect(announced).toHaveLength(expected);
    expect(await keysUnder(finalisePartsPrefix(batchId))).toEqual([]);
  });

  it('leaves no copy of a part written again while the join completed the batch', async () => {
    const list = `cpf_cnpj\n${distinctDocuments(6, 'finalise parts late part').join('\n')}\n`;
    const sent: FinaliseMessage[] = [];

    const batchId = await screenDeliveringFinalise(list, async (id) => {
      const deps = finaliseDeps(sent, 3);
      await handleFinaliseMessage({ version: 1, batchId: id }, deps);
      const [first, second] = sent.splice(0) as [FinaliseMessage, FinaliseMessage];
      const stillFinalising = await test.adapters.batchRecords.getBatch(id);
      await handleFinaliseMessage(first, deps);
      await handleFinaliseMessage(second, deps);
      for (const join of sent.splice(0)) await handleFinaliseMessage(join, deps);
      // A repeat of the first part that read the batch before the join completed it.
      let reads = 0;
      const staleFirstRead = {
        ...deps,
        batchRecords: {
          ...test.adapters.batchRecords,
          getBatch: async (batch: string) =>
            reads++ === 0 ? stillFinalising : test.adapters.batchRecords.getBatch(batch),
        },
      };
      await handleFinaliseMessage(first, staleFirstRead);
    });

    expect(batchId).not.toBe('');
    expect(await keysUnder(finalisePartsPrefix(batchId))).toEqual([]);
  });
});
