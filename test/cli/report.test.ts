import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SummaryCsvWriter } from '../../src/domain/summary/index.ts';
import { runCli } from '../factories/run-cli.ts';
import { invalidRowWith, manifestFor, reportColumnsWith, summaryRowWith } from '../factories/summary-rows.ts';

const rows = [
  summaryRowWith({
    row: 1,
    report: reportColumnsWith({ score: 150, protestsCount: 1, protestsCents: 123_456 }),
  }),
  summaryRowWith({ row: 2, status: 'cached', statusDetail: 'report of 2026-11-22 reused' }),
  invalidRowWith(3, '123'),
];

/** A results folder as `screen` leaves it: summary.csv and manifest.json. */
async function resultsFolder(summary?: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'credit-screen-report-cli-'));
  const writer = new SummaryCsvWriter('standard', ['customer_id']);
  await writeFile(
    join(directory, 'summary.csv'),
    summary ?? writer.header() + rows.map((row) => writer.row(row)).join(''),
  );
  await writeFile(join(directory, 'manifest.json'), JSON.stringify(manifestFor(rows)));
  return directory;
}

describe('credit-screen report', () => {
  it('writes the report of a results folder beside its files, readable by its owner only', async () => {
    const directory = await resultsFolder();

    const result = await runCli(['report', directory]);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`report: ${join(directory, 'report.html')}\n`);
    const page = await readFile(join(directory, 'report.html'), 'utf8');
    expect(page).toContain('<html lang="pt-BR">');
    expect(page).toMatch(/R\$\s1\.234,56/);
    expect((await stat(join(directory, 'report.html'))).mode & 0o777).toBe(0o600);
  });

  it('writes English to the file --out names', async () => {
    const directory = await resultsFolder();
    const out = join(directory, 'elsewhere', 'batch.html');

    const result = await runCli(['report', directory, '--lang', 'en', '--out', out]);

    expect(result.code).toBe(0);
    expect(await readFile(out, 'utf8')).toContain('Batch report');
  });

  it('says in one line that a folder holds no results', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'credit-screen-report-cli-'));

    const result = await runCli(['report', directory]);

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`credit-screen: ${directory}: no manifest.json here (not a results folder)\n`);
  });

  it('says in one line that a summary is not one', async () => {
    const directory = await resultsFolder('a,b\r\n1,2\r\n');

    const result = await runCli(['report', directory]);

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^credit-screen: .*summary\.csv: missing columns: row, document, .*\n$/);
  });

  it('refuses a language it does not write', async () => {
    const result = await runCli(['report', await resultsFolder(), '--lang', 'fr']);

    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--lang.*fr.*is invalid/);
  });
});
