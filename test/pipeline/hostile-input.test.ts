import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreditReportClient, ServiceTransport } from '../../service-client/index.ts';
import { CreditReportGateway } from '../../src/adapters/bureau/credit-report-gateway.ts';
import { MemoryLogger } from '../../src/adapters/memory/memory-logger.ts';
import { ingestUpload } from '../../src/application/ingest/ingest-upload.ts';
import type { BureauGateway } from '../../src/domain/ports/index.ts';
import { utf8, utf16be, utf16le, windows1252 } from '../factories/byte-sources.ts';
import { screenFile, startTestPipeline, type TestPipeline, writeCsv } from '../factories/pipeline.ts';
import { RecordingWorkQueue } from '../factories/recording-ports.ts';

let test: TestPipeline;
beforeAll(async () => {
  test = await startTestPipeline({ eventSources: false });
}, 60_000);
afterAll(async () => {
  await test?.stop();
});

async function ingest(name: string, content: string | Buffer) {
  const queue = new RecordingWorkQueue();
  const upload = await test.pipeline.upload(await writeCsv(name, content), 'a');
  const outcome = await ingestUpload(upload, {
    ...test.pipeline.adapters,
    queue,
    logger: new MemoryLogger(),
    settings: { defaultBureau: 'a', maxRows: 50, excelSummary: false },
  });
  return {
    outcome,
    queued: queue.work.map((message) => message.document),
    batch: await test.pipeline.store.getBatch(outcome.batchId),
  };
}

function garbage(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  let seed = 42;
  for (let index = 0; index < size; index++) {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    bytes[index] = seed >>> 24;
  }
  return bytes;
}

describe('the ingest Lambda on hostile and broken files', () => {
  it.each([
    ['an empty file', '', 'empty_file'],
    ['a header without rows', 'cpf_cnpj;nome\r\n', 'empty_file'],
    ['no document column', 'nome,idade\nAna,30\n', 'no_document_column'],
    ['an unbalanced quote', 'cpf,nome\n51954022212,"Ana\n11222333000181,Bia\n', 'unbalanced_quote'],
    [
      'a 5 MB line with no line break',
      `cpf,nome\n51954022212,${'A'.repeat(5 * 1024 * 1024)}`,
      'row_too_long',
    ],
    ['more rows than the limit', `cpf\n${'51954022212\n'.repeat(51)}`, 'row_limit_exceeded'],
  ])('refuses %s whole, with one clear reason, queuing nothing', async (_label, content, code) => {
    const { outcome, queued, batch } = await ingest('hostile.csv', content);
    expect(outcome.outcome).toBe('file_rejected');
    expect(batch?.failure?.code).toBe(code);
    expect(batch?.failure?.message.length).toBeGreaterThan(10);
    expect(queued).toEqual([]);
  });

  it('survives binary garbage without queuing anything', async () => {
    const { outcome, queued } = await ingest('garbage.bin', garbage(256 * 1024));
    expect(['file_rejected', 'queued']).toContain(outcome.outcome);
    expect(queued).toEqual([]);
  });

  it('queues only valid documents from a file of damaged cells, each bad row with its reason', async () => {
    const cells = [
      '519.540.222-12',
      'ABC.540.222-12',
      '12.ABC.345/01DE-3X',
      '1,23457E+13',
      '5,19E+10',
      '',
      '=cmd|"/C calc"!A0',
      '11.222.333/0001-81',
      '519.540.222-12',
    ];
    const { outcome, queued } = await ingest(
      'damaged.csv',
      `cpf_cnpj;obs\n${cells.map((cell) => `"${cell.replaceAll('"', '""')}";x`).join('\n')}\n`,
    );
    expect(outcome).toMatchObject({ outcome: 'queued', rows: 9, toScreen: 2 });
    expect(queued.sort()).toEqual(['11222333000181', '51954022212']);
    const rows = [];
    for await (const page of test.pipeline.store.rows(outcome.batchId)) rows.push(...page);
    expect(rows.map((row) => [row.state, row.detail])).toEqual([
      ['queued', null],
      ['invalid_document', 'illegal characters: letters are only valid in a 14-character CNPJ'],
      ['invalid_document', 'illegal characters: the CNPJ check digits must be numeric'],
      ['invalid_document', 'scientific notation: digits lost'],
      ['invalid_document', 'scientific notation: digits lost'],
      ['invalid_document', 'empty'],
      ['invalid_document', 'illegal character "="'],
      ['queued', null],
      ['duplicate', 'row 1'],
    ]);
  });

  it('reads a file that switches encoding half way, queuing every valid document', async () => {
    const { queued } = await ingest(
      'mixed.csv',
      Buffer.concat([utf8('cpf;nome\n51954022212;Conceição\n'), windows1252('11222333000181;Açúcar\n')]),
    );
    expect(queued.sort()).toEqual(['11222333000181', '51954022212']);
  });
});

describe('the ingest Lambda on real exports', () => {
  async function settledRows(batchId: string) {
    const rows = [];
    for await (const page of test.pipeline.store.rows(batchId)) rows.push(...page);
    return rows.map((row) => [row.state, row.document, row.detail]);
  }

  it('queues a CNPJ that lost leading zeros as that CNPJ, never as the stranger whose CPF its digits pass for', async () => {
    const { queued, outcome } = await ingest(
      'lost-zeros.csv',
      'cnpj;razao\n40188000100;A\n519.540.222-12;B\n',
    );
    expect(queued).toEqual(['00040188000100']);
    expect(await settledRows(outcome.batchId)).toEqual([
      ['queued', '00040188000100', null],
      [
        'invalid_document',
        null,
        'a CPF in a column named for CNPJs (not a CNPJ even with leading zeros restored)',
      ],
    ]);
  });

  it('reads separate CPF and CNPJ columns, refusing a row whose two columns disagree', async () => {
    const { queued, outcome, batch } = await ingest(
      'two-columns.csv',
      'cpf;cnpj;nome\n519.540.222-12;;Ana\n;11.222.333/0001-81;Loja\n51954022212;11222333000181;Both\n;;Nobody\n',
    );
    expect(queued.sort()).toEqual(['11222333000181', '51954022212']);
    expect(batch?.layout).toMatchObject({ documentColumns: ['cpf', 'cnpj'], passThroughColumns: ['nome'] });
    expect((await settledRows(outcome.batchId)).slice(2)).toEqual([
      [
        'invalid_document',
        null,
        'both the CPF and the CNPJ columns are filled, with different values: keep one',
      ],
      ['invalid_document', null, 'empty: neither the CPF nor the CNPJ column is filled'],
    ]);
  });

  it.each([
    ['little-endian', utf16le],
    ['big-endian', utf16be],
  ])('reads Excel\'s "Unicode text" export (UTF-16 %s)', async (_order, encode) => {
    const { queued, batch } = await ingest(
      'unicode.txt',
      encode('CPF/CNPJ\tRazão Social\r\n11.222.333/0001-81\tAçúcar\r\n519.540.222-12\tJosé\r\n'),
    );
    expect(queued.sort()).toEqual(['11222333000181', '51954022212']);
    expect(batch?.layout?.encoding).toBe(encode === utf16le ? 'utf-16le' : 'utf-16be');
  });
});

describe('file names in the bucket', () => {
  it.each([
    ['a document', '529.982.247-25.csv'],
    ['a document without punctuation', '52998224725'],
    ['a line break', 'lista\r\nsegunda linha.csv'],
    ['an escape sequence', '\u001b]0;pwned\u0007.csv'],
  ])('never put %s from the file name into the upload key or the batch', async (_label, name) => {
    const { batch } = await ingest(name, 'cpf\n51954022212\n');

    expect(batch?.sourceKey).toMatch(/^incoming\/a\/\d{8}T\d{9}Z-[a-z]{12}\.csv$/);
    expect(batch?.sourceKey).not.toMatch(/\d{11}/);
  });

  it.each([
    ['a plain name', 'Relação de clientes.csv', 'Relação de clientes.csv'],
    ['a document', '529.982.247-25.csv', '***.982.247-**.csv'],
    ['a document without punctuation', '52998224725.csv', '***.982.247-**.csv'],
    ['a document written with spaces', '529 982 247 25.csv', '*** *** *** **.csv'],
    ['a line break', 'lista\r\nsegunda linha.csv', 'lista segunda linha.csv'],
    ['an escape sequence', '\u001b]0;pwned\u0007.csv', ']0;pwned .csv'],
  ])(
    'keeps the name of a file named with %s on its batch, for the report, with no document in it',
    async (_label, name, kept) => {
      const { batch } = await ingest(name, 'cpf\n51954022212\n');

      expect(batch?.sourceName).toBe(kept);
    },
  );

  it('keeps a short extension of the name, which cannot hold a document', async () => {
    const { batch } = await ingest('clientes.TXT', 'cpf\n51954022212\n');

    expect(batch?.sourceKey).toMatch(/-[a-z]{12}\.txt$/);
  });
});

describe('formula injection through the whole pipeline', () => {
  let full: TestPipeline;
  beforeAll(async () => {
    // A bureau whose registration name is a spreadsheet formula.
    full = await startTestPipeline({
      bureau: (emulator) => {
        const real = new CreditReportGateway(
          new CreditReportClient(new ServiceTransport({ baseUrl: emulator.url, token: emulator.token })),
        );
        const hostile: BureauGateway = {
          fetchReport: async (...args) => {
            const response = await real.fetchReport(...args);
            const body = structuredClone(response.body) as {
              dados: { consultaCredito: { dadosCadastrais: Record<string, string> } };
            };
            body.dados.consultaCredito.dadosCadastrais.nome = '=HYPERLINK("http://evil.invalid","clique")';
            return { ...response, body };
          },
        };
        return hostile;
      },
    });
  }, 60_000);
  afterAll(async () => {
    await full?.stop();
  });

  it('neutralises formulas from the customer file and from the bureau in every summary cell', async () => {
    const file = await writeCsv(
      'formulas.csv',
      'cpf,note,other\n51954022212,=1+1,@SUM(A1)\n51954022213,+55 11 9999,-5\n',
    );
    const { summary } = await screenFile(full, file);
    expect(summary[0]).toMatchObject({
      note: "'=1+1",
      other: "'@SUM(A1)",
      name: '\'=HYPERLINK("http://evil.invalid","clique")',
    });
    expect(summary[1]).toMatchObject({ status: 'invalid_document', note: "'+55 11 9999", other: "'-5" });
  }, 60_000);
});
