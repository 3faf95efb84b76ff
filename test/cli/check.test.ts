import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_FILES } from '../../scripts/generate-samples.ts';
import { cpfCheckDigits } from '../../src/domain/documents/index.ts';
import { utf16le, windows1252 } from '../factories/byte-sources.ts';
import { runCli } from '../factories/run-cli.ts';

let directory: string;
const file = (name: string) => join(directory, name);

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'credit-screen-check-'));
  // The example of the specification of `check --json`: 10 rows, 6 valid (one a duplicate), 4 invalid.
  const rows = [
    '519.540.222-12',
    '11.222.333/0001-81',
    '12.ABC.345/01DE-35',
    '012.345.678-90',
    '111.444.777-35',
    '51954022212',
    '519.540.222-13',
    '1,23457E+13',
    '11.222.333/0001-82',
    '111.111.111-11',
  ];
  await writeFile(
    file('example.csv'),
    `cpf_cnpj;nome\n${rows.map((row, index) => `${row};Cliente ${index + 1}`).join('\n')}\n`,
  );
  await writeFile(file('no-document.csv'), 'nome,idade\nAna,30\n');
  await writeFile(file('cnpj-lost-zeros.csv'), 'cnpj;razao\n40188000100;A\n');
  await writeFile(
    file('companies.csv'),
    'documento;razao\n11222333000181;A\n01234567000195;B\n11444777000161;C\n12ABC34501DE35;D\n60701190000104;E\n40188000100;F\n',
  );
  await writeFile(
    file('separate-columns.csv'),
    'cpf;cnpj;nome\n519.540.222-12;;Ana\n;11.222.333/0001-81;Loja\n51954022212;11222333000181;Both\n',
  );
  await writeFile(file('unicode-text.txt'), utf16le('CPF/CNPJ\tNome\r\n519.540.222-12\tJosé\r\n'));
  await writeFile(
    file('excel-damaged.csv'),
    windows1252(
      'Código;CPF;Observação\r\n1;1234567890;sem zero à esquerda\r\n2;5,19540E+10;científico\r\n3;="01234567890";fórmula\r\n',
    ),
  );
});

describe('credit-screen check --json', () => {
  it('prints exactly one JSON object with the counts and every row', async () => {
    const result = await runCli(['check', file('example.csv'), '--json', '--reveal']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      rows: 10,
      valid: 6,
      invalid: 4,
      duplicates: 1,
      unique: 5,
      byType: { cpf: 6, cnpj: 3 },
    });
    expect(report.rows_detail).toHaveLength(10);
    expect(report.rows_detail[0]).toEqual({ row: 1, document: '51954022212', type: 'cpf', status: 'valid' });
    expect(report.rows_detail[5]).toEqual({
      row: 6,
      document: '51954022212',
      type: 'cpf',
      status: 'duplicate',
      duplicate_of: 1,
    });
    expect(report.rows_detail[7]).toEqual({
      row: 8,
      document: null,
      type: null,
      status: 'invalid',
      reason: 'scientific notation: digits lost',
      input: '1,23457E+13',
    });
  });

  it('recovers or explains every Excel-damaged cell', async () => {
    const report = JSON.parse(
      (await runCli(['check', file('excel-damaged.csv'), '--json', '--reveal'])).stdout,
    );
    expect(
      report.rows_detail.map((row: { status: string; document: string | null }) => [
        row.status,
        row.document,
      ]),
    ).toEqual([
      ['valid', '01234567890'],
      ['invalid', null],
      ['duplicate', '01234567890'],
    ]);
  });
});

describe('credit-screen check on columns named for one type', () => {
  it("reads a CNPJ that lost leading zeros as that CNPJ, not as somebody's CPF", async () => {
    const result = await runCli(['check', file('cnpj-lost-zeros.csv'), '--json', '--reveal']);
    const report = JSON.parse(result.stdout);
    expect(report.documentColumns).toEqual([{ header: 'cnpj', holds: 'cnpj', seen: null }]);
    expect(report.byType).toEqual({ cpf: 0, cnpj: 1 });
    expect(report.rows_detail).toEqual([
      { row: 1, document: '00040188000100', type: 'cnpj', status: 'valid' },
    ]);
  });

  it('says when a column named for both was read as CNPJs from its values', async () => {
    const result = await runCli(['check', file('companies.csv')]);
    expect(result.stdout).toContain(
      '6 rows (utf-8, delimiter ";", document column "documento" (its values: CNPJs))',
    );
    expect(result.stdout).toMatch(/CPF 0, CNPJ 6/);
  });

  it('reads separate CPF and CNPJ columns and says which columns it used, in text and in JSON', async () => {
    const text = await runCli(['check', file('separate-columns.csv')]);
    expect(text.stdout).toContain(
      '3 rows (utf-8, delimiter ";", document columns "cpf" (CPFs) and "cnpj" (CNPJs), one filled per row)',
    );
    expect(text.stdout).toMatch(/valid\s+2\s+CPF 1, CNPJ 1/);
    expect(text.stdout).toContain('both the CPF and the CNPJ columns are filled, with different values');
    const report = JSON.parse(
      (await runCli(['check', file('separate-columns.csv'), '--json', '--reveal'])).stdout,
    );
    expect(report.documentColumns).toEqual([
      { header: 'cpf', holds: 'cpf', seen: null },
      { header: 'cnpj', holds: 'cnpj', seen: null },
    ]);
    expect(report.rows_detail.map((row: { document: string | null }) => row.document)).toEqual([
      '51954022212',
      '11222333000181',
      null,
    ]);
  });

  it('reads Excel\'s UTF-16 "Unicode text" and names the encoding', async () => {
    const result = await runCli(['check', file('unicode-text.txt')]);
    expect(result.stdout).toContain('1 rows (utf-16le, delimiter "\\t", document column "CPF/CNPJ")');
  });
});

describe('credit-screen check', () => {
  it('prints counts and the first problems for people', async () => {
    const result = await runCli(['check', file('example.csv'), '--show', '2']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('10 rows (utf-8, delimiter ";", document column "cpf_cnpj")');
    expect(result.stdout).toMatch(/to query\s+5\s/);
    expect(result.stdout).toContain('Problems (first 2 of 5):');
    expect(result.stdout).toContain('duplicate of row 1');
  });

  it.each([
    [
      'a missing file',
      ['check', '/no/such/file.csv'],
      'credit-screen: cannot read /no/such/file.csv: no such file',
    ],
    ['a directory', ['check', '/'], 'credit-screen: cannot read /: is a directory'],
  ])('exits non-zero with one clear line for %s', async (_label, args, message) => {
    const result = await runCli(args);
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim()).toBe(message);
    expect(result.stdout).toBe('');
  });

  it('exits non-zero with one clear line for a file without a document column', async () => {
    const result = await runCli(['check', file('no-document.csv')]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('no document column found; headers seen: "nome", "idade"');
  });

  it('refuses a file over --max-rows', async () => {
    const result = await runCli(['check', file('example.csv'), '--max-rows', '9']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('more than 9 data rows');
  });

  it('agrees on the two committed samples: same customers, the Excel one damaged', async () => {
    const standard = JSON.parse(
      (await runCli(['check', SAMPLE_FILES.standard, '--json', '--reveal'])).stdout,
    );
    const excel = JSON.parse((await runCli(['check', SAMPLE_FILES.excel, '--json', '--reveal'])).stdout);
    expect(standard).toMatchObject({ rows: 311, invalid: 6, duplicates: 5, unique: 300 });
    expect(excel.rows).toBe(311);
    // Every row Excel damaged is either recovered to the same document or invalid with a reason: never another one.
    standard.rows_detail.forEach((row: { document: string | null }, index: number) => {
      const damaged = excel.rows_detail[index];
      if (damaged.document !== null) expect(damaged.document).toBe(row.document);
      else expect(damaged.reason).toEqual(expect.any(String));
    });
  });
});

describe('credit-screen check on a list too long for one batch', () => {
  it('says the queries would outlast what the pipeline keeps, and proposes the split or the rate that fits', async () => {
    // Arrange: 11,000 different valid CPFs at the lowest rate (0.01 per second): 1.1 million seconds, 12.7 days
    const cpfs = Array.from({ length: 11_000 }, (_, index) => {
      const base = String(100_000_000 + index);
      return base + cpfCheckDigits(base);
    });
    const list = file('long.csv');
    await writeFile(list, `cpf\n${cpfs.join('\n')}\n`);

    // Act
    const text = await runCli(['check', list, '--rate-limit', '0.01']);
    const json = await runCli(['check', list, '--rate-limit', '0.01', '--json']);
    const fitting = await runCli(['check', list, '--rate-limit', '0.02', '--json']);

    // Assert: the work queue alarms at 7 days (604,800 s), 6,048 documents at 0.01 per second
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      'too long for one batch: its queries must end within 7 days, to leave time before a queued document expires; split the documents to buy into 2 lists of at most 6048 each, screened one after another, or screen at 0.02 queries per second',
    );
    expect(JSON.parse(json.stdout).overrun).toEqual({
      limit_seconds: 604_800,
      parts: 2,
      documents_per_part: 6_048,
      rate_per_second: 0.02,
    });
    expect(JSON.parse(fitting.stdout).overrun).toBeNull();
  });
});
