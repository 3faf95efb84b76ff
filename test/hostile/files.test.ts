import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SummaryCsvWriter } from '../../src/domain/summary/index.ts';
import { emulatedReport } from '../factories/normalised-reports.ts';
import { invalidRowWith, manifestFor, summaryRowWith } from '../factories/summary-rows.ts';
import { caseFolder, expectOneLineRefusal, runInProcess, treeOf } from './harness.ts';

// The hostile-input corpus, round four (issue #37): files. A command that writes one file the user names
// (`subject --export`, `report --out`, as `studio export --out` already did) keeps a file that exists, unless
// `--force`, and says so before it opens a state or reads a result; and `decide` on a results folder whose summary
// was cut short says the folder is incomplete (it said "upload the file again", which is for customer lists).

const PESSOA_FISICA = join(process.cwd(), 'samples/policies/pessoa-fisica.json');
const modeOf = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

/** A folder holding the user's own file `mine.json` (0644), which nothing may replace without --force. */
async function folderWithOwnFile(label: string): Promise<string> {
  const folder = await caseFolder(label);
  await writeFile(join(folder, 'mine.json'), 'mine');
  await chmod(join(folder, 'mine.json'), 0o644);
  return folder;
}

/** A results folder as `screen` leaves it, in `folder/results`. */
async function resultsFolder(folder: string): Promise<string> {
  const directory = join(folder, 'results');
  await mkdir(directory);
  const rows = [summaryRowWith({ row: 1 }), invalidRowWith(2, '123')];
  const writer = new SummaryCsvWriter('standard', ['customer_id']);
  await writeFile(
    join(directory, 'summary.csv'),
    writer.header() + rows.map((row) => writer.row(row)).join(''),
  );
  await writeFile(join(directory, 'manifest.json'), JSON.stringify(manifestFor(rows)));
  return directory;
}

describe('a file the user names, which exists already', () => {
  it.each([
    [
      'subject --export',
      (folder: string) => ['subject', '52998224725', '--export', join(folder, 'mine.json')],
    ],
    [
      'subject --export, before a state that is not there',
      (folder: string) => [
        'subject',
        '52998224725',
        '--export',
        join(folder, 'mine.json'),
        '--state',
        join(folder, 'nowhere'),
      ],
    ],
    [
      'report --out',
      (folder: string) => ['report', join(folder, 'nowhere'), '--out', join(folder, 'mine.json')],
    ],
  ])('%s: kept, refused in one line before anything is opened', async (_label, args) => {
    const folder = await folderWithOwnFile('kept');

    const result = await runInProcess(args(folder), folder);

    expectOneLineRefusal(result, /(--export|--out) .*mine\.json: already exists \(--force replaces it\)$/);
    expect(result.stderr).not.toContain('starting DynamoDB Local');
    expect(await readFile(join(folder, 'mine.json'), 'utf8')).toBe('mine');
    expect(await modeOf(join(folder, 'mine.json'))).toBe('644');
    expect(Object.keys(await treeOf(folder))).toEqual(['mine.json']);
  });

  it.each([
    [
      'subject --export <a folder>',
      (folder: string) => ['subject', '52998224725', '--export', folder],
      /--export .*: is a folder; name the file to write/,
    ],
    [
      'subject --export into no folder',
      (folder: string) => ['subject', '52998224725', '--export', join(folder, 'missing', 'f.json')],
      /--export .*missing\/f\.json: no such folder/,
    ],
    [
      'subject --force without --export',
      () => ['subject', '52998224725', '--erase', '--by', 'x', '--reason', 'y', '--force'],
      /--force replaces the --export file: give --export/,
    ],
    [
      'report --force without --out',
      (folder: string) => ['report', folder, '--force'],
      /--force replaces the --out file: give --out/,
    ],
  ])('%s: refused in one line', async (_label, args, refusal) => {
    const folder = await folderWithOwnFile('refused');

    const result = await runInProcess(args(folder), folder);

    expectOneLineRefusal(result, refusal);
    expect(Object.keys(await treeOf(folder))).toEqual(['mine.json']);
  });

  it('report --out --force replaces it, readable by its owner only', async () => {
    const folder = await folderWithOwnFile('forced');
    const results = await resultsFolder(folder);

    const result = await runInProcess(
      ['report', results, '--out', join(folder, 'mine.json'), '--force'],
      folder,
    );

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(await readFile(join(folder, 'mine.json'), 'utf8')).toContain('<html');
    expect(await modeOf(join(folder, 'mine.json'))).toBe('600');
  });

  it('report without --out writes the batch’s own report.html again, as before', async () => {
    const folder = await caseFolder('again');
    const results = await resultsFolder(folder);
    await writeFile(join(results, 'report.html'), 'an older report');

    const result = await runInProcess(['report', results], folder);

    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(join(results, 'report.html'), 'utf8')).toContain('<html');
  });
});

describe('decide on a results folder whose summary was cut short', () => {
  it('says the results folder is incomplete, in one line, writing no decisions', async () => {
    const folder = await caseFolder('cut');
    const results = join(folder, 'results');
    await mkdir(results);
    // Rows without a report (nothing to read in reports.jsonl), whose customer cells are quoted.
    const rows = [
      invalidRowWith(1, '123', 'bad CPF check digit'),
      invalidRowWith(2, '456', 'bad CPF check digit'),
    ].map((row, index) => ({ ...row, passThrough: [['Silva, Ana', 'Souza, Bia'][index] as string] }));
    const writer = new SummaryCsvWriter('standard', ['cliente']);
    const whole = writer.header() + rows.map((row) => writer.row(row)).join('');
    await writeFile(join(results, 'summary.csv'), whole.slice(0, whole.indexOf('"Souza') + 4));
    await writeFile(join(results, 'reports.jsonl'), '');
    const before = await treeOf(folder);

    const result = await runInProcess(['decide', results, '--policy', PESSOA_FISICA], folder);

    expectOneLineRefusal(
      result,
      /summary\.csv: a quote opened after data line \d+ is never closed: the results folder is incomplete/,
    );
    expect(result.stderr).not.toMatch(/upload/);
    expect(await treeOf(folder)).toEqual(before);
  });
});

describe('decide on a results folder whose files disagree with its manifest', () => {
  it('refuses a summary cut at a line end, naming the count that differs, writing no decisions', async () => {
    const folder = await caseFolder('cut-at-a-line');
    const results = join(folder, 'results');
    await mkdir(results);
    const rows = [1, 2, 3].map((row) => invalidRowWith(row, String(row * 111)));
    const writer = new SummaryCsvWriter('standard', ['requested_amount']);
    await writeFile(
      join(results, 'summary.csv'),
      writer.header() +
        rows
          .slice(0, 2)
          .map((row) => writer.row(row))
          .join(''),
    );
    await writeFile(join(results, 'reports.jsonl'), '');
    await writeFile(join(results, 'manifest.json'), JSON.stringify(manifestFor(rows)));
    const before = await treeOf(folder);

    const result = await runInProcess(['decide', results, '--policy', PESSOA_FISICA], folder);

    expectOneLineRefusal(
      result,
      /summary\.csv has 2 rows where manifest\.json counts 3: the folder is incomplete, or its files are not of one batch$/,
    );
    expect(await treeOf(folder)).toEqual(before);
  });

  it('names the documents of a summary and reports that are not of one batch masked', async () => {
    const folder = await caseFolder('two-batches');
    const results = join(folder, 'results');
    await mkdir(results);
    const row = summaryRowWith({ row: 1, document: '52998224725' });
    const writer = new SummaryCsvWriter('standard', ['requested_amount']);
    await writeFile(join(results, 'summary.csv'), writer.header() + writer.row(row));
    await writeFile(
      join(results, 'reports.jsonl'),
      `${JSON.stringify(emulatedReport('11144477735', 'a', 1))}\n`,
    );

    const result = await runInProcess(['decide', results, '--policy', PESSOA_FISICA], folder);

    expectOneLineRefusal(result, /the two files are not of the same batch/);
    expect(result.stderr).not.toMatch(/52998224725|11144477735/);
    expect(result.stderr).toMatch(/\*{3}\.\d{3}\.\d{3}-\*{2}.*\*{3}\.\d{3}\.\d{3}-\*{2}/);
  });
});
