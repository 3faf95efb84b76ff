import { describe, expect, it } from 'vitest';
import { distinctDocuments } from '../factories/customer-lists.ts';
import { consoleApiHarness } from './console-api-harness.ts';

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('the local console’s uploads', () => {
  it('reads a list as ingest would and quotes it, writing and buying nothing', async () => {
    const { call, signInAs, submitted } = await consoleApiHarness();
    const analyst = await signInAs('Ana Analista', ['analyst']);
    const documents = distinctDocuments(4, 'console upload');
    const list = `cpf\n${[...documents, documents[0]].join('\n')}\n123.456.789-00\n`;

    const response = await call('/api/uploads/check', {
      method: 'POST',
      body: { fileName: 'clientes.csv', content: base64(list), bureau: 'a' },
      session: analyst,
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      rows: 6,
      valid: 5,
      invalid: 1,
      duplicates: 1,
      unique: 4,
      toBuy: 4,
      estimatedCost: 10.8,
      problems: [{ row: 6, reason: expect.stringContaining('check digit') }],
    });
    expect(submitted).toEqual([]);
  });

  it.each([
    [{ fileName: 'x.csv', content: base64('nome\nAna\n'), bureau: 'a' }, 400, /document column/i],
    [
      { fileName: '../x.csv', content: base64('cpf\n'), bureau: 'a' },
      400,
      /^fileName: a file name, not a path$/,
    ],
    [{ fileName: 'x.csv', content: 'não é base64!', bureau: 'a' }, 400, /^content: not base64$/],
    [{ fileName: 'x.csv', content: base64('cpf\n52998224725\n'), bureau: 'z' }, 400, /^bureau: /],
  ])('refuses %j in one line', async (body, status, error) => {
    const { call, signInAs, submitted } = await consoleApiHarness();
    const analyst = await signInAs('Ana Analista', ['analyst']);

    const response = await call('/api/uploads/check', { method: 'POST', body, session: analyst });
    const answer = (await response.json()) as { error: string };

    expect([response.status, answer.error]).toEqual([status, expect.stringMatching(error)]);
    expect(submitted).toEqual([]);
  });

  it('hands the list to the pipeline with the bureau and policy chosen, and answers its batch', async () => {
    const { call, signInAs, submitted } = await consoleApiHarness();
    const manager = await signInAs('Marta Gerente', ['manager']);

    const response = await call('/api/uploads', {
      method: 'POST',
      body: {
        fileName: 'clientes.csv',
        content: base64('cpf\n52998224725\n'),
        bureau: 'b',
        policy: 'pessoa-fisica.json',
      },
      session: manager,
    });

    expect([response.status, await response.json()]).toEqual([
      201,
      { batchId: 'batch-uploaded', outcome: 'queued', reason: null },
    ]);
    expect(
      submitted.map((upload) => [
        upload.fileName,
        Buffer.from(upload.bytes).toString(),
        upload.bureau,
        upload.policy,
      ]),
    ).toEqual([['clientes.csv', 'cpf\n52998224725\n', 'b', 'pessoa-fisica.json']]);
  });
});

describe('the console’s upload tickets (AWS: the list goes straight to S3)', () => {
  it('signs an upload under an opaque incoming/ key, the file’s name and policy as metadata only', async () => {
    const { call, signInAs, tickets } = await consoleApiHarness();
    const analyst = await signInAs('Ana Analista', ['analyst']);

    const response = await call('/api/uploads/ticket', {
      method: 'POST',
      body: {
        fileName: '529.982.247-25 clientes.csv',
        bureau: 'b',
        policy: 'pessoa-fisica.json',
        size: 2048,
      },
      session: analyst,
    });

    expect(response.status).toBe(200);
    const [asked] = tickets;
    expect(asked?.key).toMatch(/^incoming\/b\/\d{8}T\d{9}Z-[a-z]{12}\.csv$/);
    expect(asked?.metadata).toEqual({
      // A document in the file's name is masked before it is kept anywhere, metadata included.
      'source-name': encodeURIComponent('***.982.247-** clientes.csv'),
      policy: 'pessoa-fisica.json',
    });
    expect(asked?.maxBytes).toBe(15 * 1024 * 1024);
    await expect(response.json()).resolves.toMatchObject({ maxBytes: 15 * 1024 * 1024 });
  });

  it.each([
    [{ fileName: 'a.csv', bureau: 'a', size: 16 * 1024 * 1024 }, 'size: the console takes lists up to 15 MB'],
    [{ fileName: 'a.csv', bureau: 'a', size: 0 }, 'size: the file is empty'],
    [{ fileName: '../a.csv', bureau: 'a', size: 10 }, 'fileName: a file name, not a path'],
    [
      { fileName: 'a.csv', bureau: 'a', size: 10, policy: '../x.json' },
      'policy: a policy file name under policies/ (letters, digits, . _ -, ending in .json)',
    ],
  ])('refuses %j in one line, signing nothing', async (body, error) => {
    const { call, signInAs, tickets } = await consoleApiHarness();
    const analyst = await signInAs('Ana Analista', ['analyst']);

    const response = await call('/api/uploads/ticket', { method: 'POST', body, session: analyst });

    expect([response.status, await response.json()]).toEqual([400, { error }]);
    expect(tickets).toEqual([]);
  });
});
