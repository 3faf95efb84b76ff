import { describe, expect, it } from 'vitest';
import { CustomerListError } from '../../../src/domain/intake/index.ts';
import { readAll, utf8, utf8WithBom, utf16be, utf16le, windows1252 } from '../../factories/byte-sources.ts';

const HEADER_ALIASES = [
  'document',
  'Documento',
  'DOC',
  'cpf',
  'CNPJ',
  'cpf_cnpj',
  'CPF/CNPJ',
  'cpfcnpj',
  'CPF ou CNPJ',
  'nr_documento',
  'Nº Documento',
];

describe('openCustomerList', () => {
  describe('encodings', () => {
    it('reads UTF-8 with a BOM without leaking the BOM into the first header', async () => {
      const { list, rows } = await readAll(utf8WithBom('cpf_cnpj,nome\n519.540.222-12,João\n'));
      expect(list.layout).toMatchObject({
        encoding: 'utf-8',
        documentColumns: [{ header: 'cpf_cnpj', holds: 'either', seen: null }],
        passThroughColumns: ['nome'],
      });
      expect(rows[0]).toMatchObject({ document: '51954022212', passThrough: ['João'] });
    });

    it('reads Windows-1252 (Excel in Brazil), accents and the 0x80–0x9F characters included', async () => {
      const text = 'Código;CPF/CNPJ;Razão Social\r\n7;11.222.333/0001-81;Açúcar & Café – “Ltda” €\r\n';
      const { list, rows } = await readAll(windows1252(text));
      expect(list.layout).toMatchObject({
        encoding: 'windows-1252',
        delimiter: ';',
        documentColumns: [{ header: 'CPF/CNPJ', holds: 'either', seen: null }],
      });
      expect(list.layout.passThroughColumns).toEqual(['Código', 'Razão Social']);
      expect(rows[0]?.passThrough).toEqual(['7', 'Açúcar & Café – “Ltda” €']);
    });

    it('decides the encoding at the first accent, even far into the file and split across chunks', async () => {
      const filler = Array.from({ length: 2000 }, () => '51954022212;Jose').join('\n');
      const { list, rows } = await readAll(windows1252(`cpf;nome\n${filler}\n11222333000181;Conceição\n`), {
        chunkSize: 1000,
      });
      expect(list.layout.encoding).toBe('windows-1252');
      expect(rows.at(-1)?.passThrough).toEqual(['Conceição']);
    });

    it('keeps multi-byte UTF-8 characters whole when chunks split them', async () => {
      const { rows } = await readAll(utf8('cpf,nome\n51954022212,Conceição Araújo\n'), { chunkSize: 1 });
      expect(rows[0]?.passThrough).toEqual(['Conceição Araújo']);
    });

    it.each([
      ['little-endian', utf16le],
      ['big-endian', utf16be],
    ])(
      'reads Excel\'s "Unicode text" (UTF-16 %s, tab-separated) in odd-sized chunks',
      async (_order, encode) => {
        const text = 'CPF/CNPJ\tRazão Social\r\n11.222.333/0001-81\tAçúcar 😀\r\n519.540.222-12\tJosé\r\n';
        const { list, rows } = await readAll(encode(text), { chunkSize: 3 });
        expect(list.layout).toMatchObject({ delimiter: '\t', documentColumns: [{ header: 'CPF/CNPJ' }] });
        expect(list.layout.encoding).toBe(encode === utf16le ? 'utf-16le' : 'utf-16be');
        expect(rows.map((row) => [row.document, row.passThrough])).toEqual([
          ['11222333000181', ['Açúcar 😀']],
          ['51954022212', ['José']],
        ]);
      },
    );
  });

  describe('delimiters, quoting and line breaks', () => {
    it.each([
      [',', 'comma'],
      [';', 'semicolon'],
      ['\t', 'tab'],
      ['|', 'pipe'],
    ])('sniffs %j (%s)', async (delimiter) => {
      const text = `${['id', 'cpf', 'nome'].join(delimiter)}\n${['1', '519.540.222-12', 'Ana'].join(delimiter)}\n`;
      const { list, rows } = await readAll(utf8(text));
      expect(list.layout.delimiter).toBe(delimiter);
      expect(rows[0]).toMatchObject({ document: '51954022212', passThrough: ['1', 'Ana'] });
    });

    it('is not fooled by decimal commas in a ; file', async () => {
      const text = 'cpf;valor;nome\n51954022212;1,5;Ana\n1,23457E+13;2,75;Bia\n11222333000181;3,0;Caio\n';
      const { list, rows } = await readAll(utf8(text));
      expect(list.layout.delimiter).toBe(';');
      expect(rows.map((row) => row.status)).toEqual(['valid', 'invalid', 'valid']);
    });

    it('handles quoted fields with delimiters, escaped quotes and embedded newlines, with CRLF line breaks', async () => {
      const text =
        'cpf,nome,obs\r\n"519.540.222-12","Silva, Ana","disse ""oi""\r\nsegunda linha"\r\n11222333000181,Caio,x\r\n';
      const { rows } = await readAll(utf8(text), { chunkSize: 7 });
      expect(rows).toHaveLength(2);
      expect(rows[0]?.passThrough).toEqual(['Silva, Ana', 'disse "oi"\r\nsegunda linha']);
      expect(rows[1]?.passThrough).toEqual(['Caio', 'x']);
    });

    it('strips the CR of CRLF files from the last column', async () => {
      const { rows } = await readAll(utf8('cpf;segmento\r\n51954022212;varejo\r\n'));
      expect(rows[0]?.passThrough).toEqual(['varejo']);
    });

    it('reads a file whose last line has no line break', async () => {
      const { rows } = await readAll(utf8('cpf\n51954022212\n11222333000181'));
      expect(rows.map((row) => row.document)).toEqual(['51954022212', '11222333000181']);
    });
  });

  describe('header detection', () => {
    it.each(HEADER_ALIASES)('finds the document column named %j', async (header) => {
      // A whole CNPJ reads the same in every document column, whatever type its header names.
      const { list, rows } = await readAll(utf8(`cliente;${header};segmento\nA1;11.222.333/0001-81;PME\n`));
      expect(list.layout).toMatchObject({
        hasHeader: true,
        documentColumns: [{ header, holds: expect.any(String), seen: null }],
        passThroughColumns: ['cliente', 'segmento'],
      });
      expect(rows[0]).toMatchObject({ row: 1, document: '11222333000181', passThrough: ['A1', 'PME'] });
    });

    it('reads a one-column file of documents with no header, first row included', async () => {
      const { list, rows } = await readAll(utf8('519.540.222-12\n11222333000181\n'));
      expect(list.layout).toMatchObject({
        hasHeader: false,
        delimiter: null,
        documentColumns: [{ header: 'document', holds: 'either', seen: null }],
      });
      expect(rows.map((row) => [row.row, row.document])).toEqual([
        [1, '51954022212'],
        [2, '11222333000181'],
      ]);
    });

    it('reads a headerless one-column file whose first value is invalid, and one with Excel scientific notation', async () => {
      const { rows } = await readAll(utf8('1,23457E+13\n51954022212\n'));
      expect(rows.map((row) => row.status)).toEqual(['invalid', 'valid']);
      const { rows: typo } = await readAll(utf8('519.540.222-13\n51954022212\n'));
      expect(typo.map((row) => row.status)).toEqual(['invalid', 'valid']);
    });

    it('reads a headerless file with other columns, naming them by position', async () => {
      const { list, rows } = await readAll(utf8('A1;51954022212;PME\nA2;11222333000181;corporate\n'));
      expect(list.layout).toMatchObject({ hasHeader: false, passThroughColumns: ['column_1', 'column_3'] });
      expect(rows).toHaveLength(2);
    });

    it('fails with the headers it saw when no column holds documents', async () => {
      const failure = readAll(utf8('nome,idade\nAna,30\n'));
      await expect(failure).rejects.toBeInstanceOf(CustomerListError);
      await expect(failure).rejects.toMatchObject({ code: 'no_document_column' });
      await expect(failure).rejects.toThrow('headers seen: "nome", "idade"');
    });

    it('fails clearly on an empty file and on a file of blank lines', async () => {
      await expect(readAll(utf8(''))).rejects.toMatchObject({ code: 'empty_file' });
      await expect(readAll(utf8('\n\r\n  \n;;\n'))).rejects.toMatchObject({ code: 'empty_file' });
    });
  });

  describe('rows', () => {
    it('numbers data rows from 1, skipping blank lines without counting them', async () => {
      const { rows } = await readAll(utf8('cpf;nome\n\n51954022212;Ana\n;;\n   \n11222333000181;Caio\n\n'));
      expect(rows.map((row) => row.row)).toEqual([1, 2]);
    });

    it('settles every row as valid, invalid or duplicate, pointing duplicates at the first occurrence', async () => {
      const text = 'cpf\n519.540.222-12\n51954022213\n51954022212\n12.abc.345/01de-35\n12ABC34501DE35\n\n';
      const { rows } = await readAll(utf8(text));
      expect(
        rows.map(({ row, status, document, duplicateOf }) => ({ row, status, document, duplicateOf })),
      ).toEqual([
        { row: 1, status: 'valid', document: '51954022212', duplicateOf: null },
        { row: 2, status: 'invalid', document: null, duplicateOf: null },
        { row: 3, status: 'duplicate', document: '51954022212', duplicateOf: 1 },
        { row: 4, status: 'valid', document: '12ABC34501DE35', duplicateOf: null },
        { row: 5, status: 'duplicate', document: '12ABC34501DE35', duplicateOf: 4 },
      ]);
      expect(rows[1]).toMatchObject({
        input: '51954022213',
        reason: 'bad CPF check digit',
        rejection: 'bad_check_digit',
        type: 'cpf',
      });
    });

    it('detects duplicates across leading-zero damage (same document once restored)', async () => {
      const { rows } = await readAll(utf8('cpf\n012.345.678-90\n1234567890\n'));
      expect(rows[1]).toMatchObject({ status: 'duplicate', duplicateOf: 1, restoredLeadingZeros: 1 });
    });

    it('keeps pass-through columns in order, padding short rows and dropping cells past the header', async () => {
      const { rows } = await readAll(utf8('id;cpf;nome;seg\n1;51954022212\n2;11222333000181;Caio;PME;;;\n'));
      expect(rows.map((row) => row.passThrough)).toEqual([
        ['1', '', ''],
        ['2', 'Caio', 'PME'],
      ]);
    });
  });

  describe('a column named for CNPJs or for CPFs', () => {
    it('reads a CNPJ that lost leading zeros as a CNPJ, not as the CPF its digits also pass for', async () => {
      const { list, rows } = await readAll(utf8('cnpj;razao\n40188000100;A\n'));
      expect(list.layout.documentColumns).toEqual([{ header: 'cnpj', holds: 'cnpj', seen: null }]);
      expect(rows[0]).toMatchObject({
        status: 'valid',
        document: '00040188000100',
        type: 'cnpj',
        restoredLeadingZeros: 3,
      });
    });

    it('refuses a value that passes only as a CPF in a CNPJ column, with a reason', async () => {
      const { rows } = await readAll(utf8('Nº CNPJ;razao\n519.540.222-12;A\n'));
      expect(rows[0]).toMatchObject({
        status: 'invalid',
        document: null,
        rejection: 'wrong_type',
        reason: 'a CPF in a column named for CNPJs (not a CNPJ even with leading zeros restored)',
      });
    });

    it('reads a CPF that lost any number of zeros in a CPF column', async () => {
      const { rows } = await readAll(utf8('CPF;nome\n191;A\n'));
      expect(rows[0]).toMatchObject({ status: 'valid', document: '00000000191', type: 'cpf' });
    });
  });

  describe('a column named for both types, read by its other rows', () => {
    const companies = [
      '11.222.333/0001-81',
      '01234567000195',
      '11444777000161',
      '12ABC34501DE35',
      '60701190000104',
    ];

    it('reads a number that passes as a CPF and as a CNPJ missing zeros as a CNPJ when the column holds CNPJs', async () => {
      const { list, rows } = await readAll(
        utf8(`documento;razao\n${companies.join(';x\n')};x\n40188000100;A\n`),
      );
      expect(list.layout.documentColumns).toEqual([{ header: 'documento', holds: 'either', seen: 'cnpj' }]);
      expect(rows.at(-1)).toMatchObject({ status: 'valid', document: '00040188000100', type: 'cnpj' });
    });

    it('reads the same number in a headerless list of CNPJs as a CNPJ, the first row counted', async () => {
      const { rows } = await readAll(utf8(`${companies.join('\n')}\n40188000100\n`));
      expect(rows.map((row) => row.type)).toEqual(['cnpj', 'cnpj', 'cnpj', 'cnpj', 'cnpj', 'cnpj']);
    });

    it('keeps reading it as a CPF in a mixed column, and never refuses a CPF on this evidence', async () => {
      const mixed = await readAll(utf8(`documento\n${companies.join('\n')}\n519.540.222-12\n40188000100\n`));
      expect(mixed.list.layout.documentColumns[0]?.seen).toBeNull();
      expect(mixed.rows.at(-1)).toMatchObject({ document: '40188000100', type: 'cpf' });
      const late = await readAll(utf8(`documento\n${companies.join('\n')}\n519.540.222-12\n`));
      expect(late.rows.at(-1)).toMatchObject({ status: 'valid', document: '51954022212', type: 'cpf' });
    });
  });

  describe('separate CPF and CNPJ columns', () => {
    const text = [
      'cpf;cnpj;nome',
      '519.540.222-12;;Ana',
      ';11.222.333/0001-81;Loja',
      ';40188000100;Zeros',
      '51954022212;11222333000181;Both',
      '519.540.222-12;519.540.222-12;Same twice',
      ';;Nobody',
      '519.540.222-13;;Bad',
    ].join('\n');

    it('reads the document from whichever column is filled, and says which columns it used', async () => {
      const { list, rows } = await readAll(utf8(text));
      expect(list.layout).toMatchObject({
        documentColumns: [
          { header: 'cpf', holds: 'cpf', seen: null },
          { header: 'cnpj', holds: 'cnpj', seen: null },
        ],
        passThroughColumns: ['nome'],
      });
      expect(rows.map(({ status, document, type }) => [status, document, type])).toEqual([
        ['valid', '51954022212', 'cpf'],
        ['valid', '11222333000181', 'cnpj'],
        ['valid', '00040188000100', 'cnpj'],
        ['invalid', null, null],
        ['duplicate', '51954022212', 'cpf'],
        ['invalid', null, null],
        ['invalid', null, 'cpf'],
      ]);
      expect(rows.map((row) => row.passThrough[0])).toEqual([
        'Ana',
        'Loja',
        'Zeros',
        'Both',
        'Same twice',
        'Nobody',
        'Bad',
      ]);
    });

    it('gives a clear reason for a row with both filled and different, and for a row with neither', async () => {
      const { rows } = await readAll(utf8(text));
      expect(rows[3]).toMatchObject({
        input: '51954022212 / 11222333000181',
        rejection: 'conflicting_documents',
        reason: 'both the CPF and the CNPJ columns are filled, with different values: keep one',
      });
      expect(rows[5]).toMatchObject({
        rejection: 'empty',
        reason: 'empty: neither the CPF nor the CNPJ column is filled',
      });
      expect(rows[6]).toMatchObject({ input: '519.540.222-13', reason: 'bad CPF check digit' });
    });

    it('keeps one column when another is named for both', async () => {
      const { list } = await readAll(utf8('cpf;documento;cnpj\n;51954022212;\n'));
      expect(list.layout.documentColumns).toEqual([{ header: 'documento', holds: 'either', seen: null }]);
    });
  });

  describe('limits', () => {
    it('fails the file once it passes the row limit', async () => {
      const text = `cpf\n${'51954022212\n'.repeat(11)}`;
      await expect(readAll(utf8(text), { maxRows: 10 })).rejects.toMatchObject({
        code: 'row_limit_exceeded',
        message: expect.stringContaining('more than 10 data rows'),
      });
      await expect(readAll(utf8(text), { maxRows: 11 })).resolves.toMatchObject({ rows: expect.any(Array) });
    });

    it('fails with a clear error on an unbalanced quote instead of holding the rest of the file', async () => {
      const text = `cpf;nome\n51954022212;"Ana\n${'11222333000181;Caio\n'.repeat(100_000)}`;
      await expect(readAll(utf8(text))).rejects.toMatchObject({ code: 'row_too_long' });
    });
  });
});

describe('openCustomerList on a header without rows', () => {
  it('refuses the file with a clear reason once the rows are read', async () => {
    await expect(readAll(utf8('cpf_cnpj;nome\r\n;;\r\n'))).rejects.toMatchObject({
      code: 'empty_file',
      message: 'the file has a header row but no data rows',
    });
  });
});

describe('openCustomerList on hostile input', () => {
  it('refuses an unbalanced quote in a small file instead of swallowing the rows after it', async () => {
    await expect(readAll(utf8('cpf,nome\n51954022212,"Ana\n11222333000181,Bia\n'))).rejects.toMatchObject({
      code: 'unbalanced_quote',
    });
  });

  it('stops a 100 MB line without a line break after about 1 MiB, in bounded memory', async () => {
    let produced = 0;
    async function* endlessLine(): AsyncGenerator<Uint8Array> {
      yield utf8('cpf,nome\n51954022212,');
      const block = new Uint8Array(64 * 1024).fill(0x41);
      while (produced < 100 * 1024 * 1024) {
        produced += block.length;
        yield block;
      }
    }
    const { openCustomerList } = await import('../../../src/domain/intake/index.ts');
    const consume = async () => {
      const list = await openCustomerList(endlessLine());
      for await (const _row of list.rows) {
        // reading
      }
    };
    await expect(consume()).rejects.toMatchObject({ code: 'row_too_long' });
    expect(produced).toBeLessThan(4 * 1024 * 1024);
  });

  it('reads binary garbage as nothing usable, never as documents', async () => {
    const garbage = new Uint8Array(64 * 1024);
    let seed = 7;
    for (let index = 0; index < garbage.length; index++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      garbage[index] = seed >>> 24;
    }
    const outcome = await readAll(garbage).then(
      ({ rows }) => rows.filter((row) => row.status !== 'invalid').length,
      (error: unknown) => (error as { code: string }).code,
    );
    expect(['no_document_column', 'row_too_long', 'unbalanced_quote', 0]).toContain(outcome);
  });

  it('reads a file whose encoding changes half way without losing a row', async () => {
    const first = utf8('cpf;nome\n51954022212;Conceição\n');
    const second = windows1252('11222333000181;Açúcar\n');
    const { rows } = await readAll(Buffer.concat([first, second]));
    expect(rows.map((row) => row.document)).toEqual(['51954022212', '11222333000181']);
  });
});

describe('openCustomerList: columns headed for the same documents', () => {
  it.each([
    ['cpf;nome;cpf\n51954022212;Ana;11144477735\n', '"cpf" (column 1), "cpf" (column 3)'],
    ['documento;doc\n51954022212;11144477735\n', '"documento" (column 1), "doc" (column 2)'],
    ['CNPJ,nome,cnpj\n11222333000181,Bia,11444777000161\n', '"CNPJ" (column 1), "cnpj" (column 3)'],
  ])('refuses %j in one line naming the columns, instead of reading one of them', async (text, named) => {
    await expect(readAll(utf8(text))).rejects.toMatchObject({
      code: 'ambiguous_document_column',
      message: expect.stringContaining(named),
    });
  });
});
