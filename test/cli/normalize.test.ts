import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { normaliseCreditReport, type ReportArchive } from '../../src/domain/report/index.ts';
import { bureauResponse } from '../factories/bureau-responses.ts';
import { runCli } from '../factories/run-cli.ts';

const fixture = (name: string) =>
  fileURLToPath(new URL(`../fixtures/bureau-responses/${name}.json`, import.meta.url));

describe('credit-screen normalize', () => {
  it('prints the normalised report of a saved response, reading the document from it', async () => {
    const result = await runCli([
      'normalize',
      fixture('bureau-a-person'),
      '--bureau',
      'a',
      '--fetched-at',
      '2026-01-02T03:04:05.000Z',
    ]);
    expect(result.code).toBe(0);
    const expected = normaliseCreditReport(bureauResponse('bureau-a-person'), {
      bureau: 'a',
      document: '51954022212',
      fetchedAt: '2026-01-02T03:04:05.000Z',
    });
    expect(JSON.parse(result.stdout)).toEqual(JSON.parse(JSON.stringify(expected)));
  });

  it('reads bureau, document and date from a pipeline archive', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'credit-screen-normalize-'));
    const archive: ReportArchive = {
      archiveVersion: 1,
      bureau: 'b',
      document: '11222333000181',
      fetchedAt: '2026-03-04T05:06:07.000Z',
      httpStatus: 200,
      response: bureauResponse('bureau-b-company'),
    };
    await writeFile(join(directory, 'archive.json'), JSON.stringify(archive));
    const report = JSON.parse((await runCli(['normalize', join(directory, 'archive.json')])).stdout);
    expect(report).toMatchObject({
      bureau: 'b',
      document: '11222333000181',
      documentType: 'cnpj',
      subject: null,
      fetchedAt: '2026-03-04T05:06:07.000Z',
    });
  });

  it('normalises a bureau B company response, which names no document, as a CNPJ with a null document', async () => {
    const result = await runCli(['normalize', fixture('bureau-b-company'), '--bureau', 'b']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ bureau: 'b', document: null, documentType: 'cnpj', subject: null });
    expect(report.warnings).toContainEqual(expect.stringContaining('no document'));
  });

  it('fills in the document of a bureau B company response from --document', async () => {
    const result = await runCli([
      'normalize',
      fixture('bureau-b-company'),
      '--bureau',
      'b',
      '--document',
      '11.222.333/0001-81',
    ]);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ document: '11222333000181', documentType: 'cnpj' });
    expect(report.warnings).not.toContainEqual(expect.stringContaining('no document'));
  });

  it('still asks for --document when the shape does not tell the type (bureau A, empty registration)', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'credit-screen-normalize-'));
    const response = bureauResponse('bureau-a-company');
    (response.dados as { consultaCredito: Record<string, unknown> }).consultaCredito.dadosCadastrais = [];
    await writeFile(join(directory, 'a.json'), JSON.stringify(response));
    const result = await runCli(['normalize', join(directory, 'a.json'), '--bureau', 'a']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toContain('pass --document');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it.each([
    [
      'no bureau for a bare response',
      ['normalize', fixture('bureau-b-company')],
      'with --bureau a or --bureau b',
    ],
    [
      'a missing file',
      ['normalize', '/no/such.json', '--bureau', 'a'],
      'cannot read /no/such.json: no such file',
    ],
    [
      'an invalid --document',
      ['normalize', fixture('bureau-b-company'), '--bureau', 'b', '--document', '123'],
      '--document "123": wrong length',
    ],
  ])('fails with one clear line for %s', async (_label, args, message) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
