import { mkdtemp, readdir, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalStateDirectory } from '../../local/local-state.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { screenFile, startTestPipeline, type TestPipeline, writeCsv } from '../factories/pipeline.ts';

const running: TestPipeline[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((test) => test.stop()));
});

async function start(stateDirectory: string, fresh = false) {
  const test = await startTestPipeline({ stateDirectory, fresh, settings: { freshnessHours: 24 } });
  running.push(test);
  return test;
}

async function stop(test: TestPipeline) {
  running.splice(running.indexOf(test), 1);
  await test.stop();
}

describe('local state between runs', () => {
  it('keeps reports and results across runs, so the freshness cache spends nothing the second time', async () => {
    const state = await mkdtemp(join(tmpdir(), 'credit-screen-state-'));
    const file = await writeCsv('lista.csv', customerListCsv(distinctDocuments(25, 'state')));

    const first = await start(state);
    const firstRun = await screenFile(first, file);
    await stop(first);
    const second = await start(state);
    const secondRun = await screenFile(second, file);

    expect(firstRun.manifest.counts).toMatchObject({ screened: 25, cached: 0 });
    expect(secondRun.manifest.counts).toMatchObject({ screened: 0, cached: 25 });
    expect(second.emulator.stats().charged).toBe(0);
    // The first run's results are still in the (restored) bucket.
    expect(await second.pipeline.readText(`results/${firstRun.batchId}/summary.csv`)).toContain('screened');
  }, 120_000);

  it('starts empty with fresh, and refuses a directory another run holds', async () => {
    const state = await mkdtemp(join(tmpdir(), 'credit-screen-state-'));
    const file = await writeCsv('lista.csv', customerListCsv(distinctDocuments(5, 'fresh')));
    const first = await start(state);
    await screenFile(first, file);

    await expect(LocalStateDirectory.open(state)).rejects.toThrow(
      `is in use by another run (pid ${process.pid})`,
    );
    await expect(LocalStateDirectory.open(state, { fresh: true })).rejects.toThrow(
      'is in use by another run',
    );
    await stop(first);
    const again = await start(state, true);
    const rerun = await screenFile(again, file);

    expect(rerun.manifest.counts).toMatchObject({ screened: 5, cached: 0 });
  }, 120_000);

  it('drops saved objects older than the retention period when it opens', async () => {
    const state = await mkdtemp(join(tmpdir(), 'credit-screen-state-'));
    const first = await start(state);
    await screenFile(first, await writeCsv('lista.csv', customerListCsv(distinctDocuments(3, 'old'))));
    await stop(first);
    const saved = join(state, 's3', 'results');
    const [batch] = await readdir(saved);
    const longAgo = new Date(Date.now() - 400 * 86_400_000);
    for (const name of await readdir(join(saved, batch as string)))
      await utimes(join(saved, batch as string, name), longAgo, longAgo);

    const second = await start(state);

    await expect(second.pipeline.readText(`results/${batch}/summary.csv`)).rejects.toThrow();
  }, 120_000);
});
