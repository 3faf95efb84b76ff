import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { runCli } from '../factories/run-cli.ts';

describe('credit-screen screen with several files', () => {
  it('runs each file as its own batch in one pipeline, results under --out/<batchId>/, each completion time printed', async () => {
    const out = await mkdtemp(join(tmpdir(), 'credit-screen-cli-'));
    const large = join(out, 'large.csv');
    const small = join(out, 'small.csv');
    const [largeDocuments, smallDocuments] = [
      distinctDocuments(120, 'cli-large'),
      distinctDocuments(6, 'cli-small'),
    ];
    await writeFile(large, customerListCsv(largeDocuments));
    await writeFile(small, customerListCsv(smallDocuments));

    const result = await runCli(
      [
        'screen',
        large,
        small,
        '--stagger',
        '0.5',
        '--rate-limit',
        '60',
        '--no-state',
        '--out',
        join(out, 'results'),
      ],
      { cwd: out },
    );

    expect(result.stderr).not.toContain('Error');
    expect(result.code).toBe(0);
    const reports = [...result.stdout.matchAll(/^batch ([0-9a-f]{24}): completed in [\d.]+ s/gm)];
    expect(reports).toHaveLength(2);
    const manifests = await Promise.all(
      reports.map(async ([, batchId]) =>
        JSON.parse(await readFile(join(out, 'results', batchId as string, 'manifest.json'), 'utf8')),
      ),
    );
    expect(manifests.map((manifest) => manifest.counts.rows).sort((a, b) => a - b)).toEqual([6, 120]);
    expect(result.stderr).toMatch(/rows settled/);
  }, 120_000);
});

describe('credit-screen screen with files that share customers', () => {
  it('buys each unique document once across three overlapping files run together', async () => {
    const out = await mkdtemp(join(tmpdir(), 'credit-screen-cli-'));
    const documents = distinctDocuments(60, 'cli-overlap');
    const files = [
      documents.slice(0, 30),
      documents.slice(20, 50),
      [...documents.slice(40, 60), ...documents.slice(0, 10)],
    ];
    const paths = await Promise.all(
      files.map(async (list, index) => {
        const path = join(out, `list-${index + 1}.csv`);
        await writeFile(path, customerListCsv(list));
        return path;
      }),
    );

    const result = await runCli(
      [
        'screen',
        ...paths,
        '--stagger',
        '0',
        '--rate-limit',
        '20',
        '--no-state',
        '--out',
        join(out, 'results'),
      ],
      { cwd: out },
    );

    expect(result.stderr).not.toContain('Error');
    expect(result.code).toBe(0);
    const batchIds = [...result.stdout.matchAll(/^batch ([0-9a-f]{24}): completed in [\d.]+ s/gm)].map(
      ([, batchId]) => batchId as string,
    );
    expect(batchIds).toHaveLength(3);
    const results = await Promise.all(
      batchIds.map(async (batchId) => ({
        manifest: JSON.parse(await readFile(join(out, 'results', batchId, 'manifest.json'), 'utf8')),
        stats: JSON.parse(await readFile(join(out, 'results', batchId, 'emulator-stats.json'), 'utf8')),
      })),
    );
    // The emulator counts across the run: the stats written last hold every charge.
    expect(Math.max(...results.map(({ stats }) => stats.charged as number))).toBe(60);
    const screened = results.reduce((sum, { manifest }) => sum + manifest.counts.screened, 0);
    const cached = results.reduce((sum, { manifest }) => sum + manifest.counts.cached, 0);
    expect(screened).toBe(60);
    expect(cached).toBe(30);
  }, 300_000);
});
