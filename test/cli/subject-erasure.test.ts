import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { documentSpellings } from '../../src/domain/data-subject/index.ts';
import { AutoTextDecoder } from '../../src/domain/intake/index.ts';
import { distinctDocuments } from '../factories/customer-lists.ts';
import { punctuate } from '../factories/documents.ts';
import { parseSummary, writeCsv } from '../factories/pipeline.ts';
import { runCli } from '../factories/run-cli.ts';

const PESSOA_FISICA = join(process.cwd(), 'samples/policies/pessoa-fisica.json');

/** Every file under a folder, as text in its own encoding (or one byte a character: a database file). */
async function filesNaming(folder: string, document: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const naming: string[] = [];
  for (const entry of entries.filter((found) => found.isFile())) {
    const path = join(entry.parentPath, entry.name);
    const bytes = await readFile(path);
    let text = bytes.toString('latin1');
    try {
      const decoder = new AutoTextDecoder();
      text += decoder.write(bytes) + decoder.end();
    } catch {
      // Not text: its bytes read one a character are searched.
    }
    if (documentSpellings(document).some((spelling) => text.includes(spelling))) naming.push(path);
  }
  return naming;
}

describe('credit-screen subject --erase on the local state', () => {
  it('leaves no occurrence in the state (database file included) or the downloaded results, keeps the audit, and buys the document again', async () => {
    // Arrange: the person in two batches, one list in UTF-16 (Excel's "Unicode text"), with a duplicate
    const cwd = await mkdtemp(join(tmpdir(), 'credit-screen-erasure-'));
    const state = join(cwd, 'state');
    const [person, ...others] = distinctDocuments(40, 'cli erasure').filter(
      (document) => document.length === 11,
    );
    const first = await writeCsv(
      'clientes.csv',
      `cpf,cliente,valor_solicitado\n${others[0]},Bia,1000\n${punctuate(person as string)},Ana Souza,20000\n${others[1]},Caio,500\n`,
    );
    const second = await writeCsv(
      'unicode.csv',
      Buffer.concat([
        Buffer.from([0xff, 0xfe]),
        iconv.encode(
          `cpf\tnome\r\n${person}\tAna Simões\r\n${others[2]}\tDora\r\n${person}\tAna Simões\r\n`,
          'utf16le',
        ),
      ]),
    );
    const screen = (file: string, out: string) =>
      runCli(
        ['screen', file, '--policy', PESSOA_FISICA, '--state', state, '--out', out, '--freshness-hours', '0'],
        { cwd },
      );
    expect((await screen(first, 'primeira')).code).toBe(0);
    expect((await screen(second, join('out', 'segunda'))).code).toBe(0);
    const before = await runCli(['audit', '--document', person as string, '--state', state, '--json'], {
      cwd,
    });
    const entriesBefore = (JSON.parse(before.stdout) as { entries: { kind: string }[] }).entries;
    expect(entriesBefore.filter((entry) => entry.kind === 'bureau_request')).toHaveLength(2);
    expect((await filesNaming(cwd, person as string)).length).toBeGreaterThan(5);

    // Act
    const erased = await runCli(
      [
        'subject',
        person as string,
        '--erase',
        '--by',
        'dpo@credora.com.br',
        '--reason',
        'Pedido LGPD 118',
        '--state',
        state,
        '--out',
        'primeira',
      ],
      { cwd },
    );

    // Assert: it says what it removed, in one screen, with the document masked
    expect(erased.code).toBe(0);
    expect(erased.stdout).toMatch(/^erased \*\*\*\.\d{3}\.\d{3}-\*\* from local state .* at \d{4}-/);
    expect(erased.stdout).toContain('3 rows in 2 batches emptied');
    expect(erased.stdout).toContain('2 stored reports, 1 purchase, 0 overrides deleted');
    expect(erased.stdout).not.toContain(person as string);
    // No file of the state (the database file included) or of the first batch's results names the person.
    expect(await filesNaming(state, person as string)).toEqual([]);
    expect(await filesNaming(join(cwd, 'primeira'), person as string)).toEqual([]);
    for (const stranger of others.slice(0, 3))
      expect((await filesNaming(state, stranger as string)).length).toBeGreaterThan(0);
    const summary = parseSummary(await readFile(join(cwd, 'primeira', 'summary.csv'), 'utf8'));
    expect(summary.map((line) => [line.row, line.document, line.status])).toEqual([
      ['1', others[0], 'screened'],
      ['2', '', 'screened'],
      ['3', others[1], 'screened'],
    ]);
    // The audit log still counts the two queries, and records the erasure of each row.
    const after = await runCli(['audit', '--document', person as string, '--state', state, '--json'], {
      cwd,
    });
    const entriesAfter = (JSON.parse(after.stdout) as { entries: { kind: string }[] }).entries;
    expect(entriesAfter.filter((entry) => entry.kind === 'bureau_request')).toHaveLength(2);
    expect(entriesAfter.filter((entry) => entry.kind === 'erasure')).toHaveLength(3);
    // The next screen buys it again, even allowed to reuse a day-old report.
    const again = await runCli(
      [
        'screen',
        await writeCsv('de-novo.csv', `cpf\n${person}\n${others[0]}\n`),
        '--state',
        state,
        '--out',
        'de-novo',
        '--freshness-hours',
        '24',
      ],
      { cwd },
    );
    expect(again.code).toBe(0);
    const stats = JSON.parse(await readFile(join(cwd, 'de-novo', 'emulator-stats.json'), 'utf8'));
    expect(stats.charged).toBe(1);
    const lines = parseSummary(await readFile(join(cwd, 'de-novo', 'summary.csv'), 'utf8'));
    expect(lines.map((line) => line.status)).toEqual(['screened', 'cached']);
  }, 240_000);

  it('refuses an erasure without who and why, and a document that is no CPF or CNPJ, in one line each', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'credit-screen-erasure-refused-'));

    const withoutBy = await runCli(['subject', '52998224725', '--erase', '--reason', 'x'], { cwd });
    const notADocument = await runCli(['subject', '123', '--erase', '--by', 'a', '--reason', 'x'], { cwd });
    const neither = await runCli(['subject', '52998224725'], { cwd });

    expect([withoutBy.code, notADocument.code, neither.code]).toEqual([2, 2, 2]);
    expect(withoutBy.stderr.trim()).toBe(
      'credit-screen: --erase needs --by "<who>": the audit log records who erased',
    );
    expect(notADocument.stderr.trim().split('\n')).toHaveLength(1);
    expect(neither.stderr.trim()).toBe(
      'credit-screen: give --export <file> (what is held about the document) or --erase (erase it)',
    );
  });
});
