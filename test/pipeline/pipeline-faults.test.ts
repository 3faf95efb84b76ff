import { afterEach, describe, expect, it } from 'vitest';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { screenFile, startTestPipeline, type TestPipeline, writeCsv } from '../factories/pipeline.ts';

let test: TestPipeline | undefined;
afterEach(async () => {
  await test?.stop();
  test = undefined;
});

describe('the pipeline under upstream faults', () => {
  it('stops at once on a rejected token: one request, every row settled, the manifest says so', async () => {
    test = await startTestPipeline({ token: 'not-the-right-token' });
    const documents = distinctDocuments(60, 'token');
    const file = await writeCsv(
      'token.csv',
      customerListCsv([...documents, 'not a document', documents[0] as string]),
    );
    const result = await screenFile(test, file);
    const stats = test.emulator.stats();
    expect(stats.requests).toBeLessThanOrEqual(2);
    expect(stats.charged).toBe(0);
    expect(result.manifest.status).toBe('token_rejected');
    expect(result.manifest.counts).toMatchObject({ rows: 62, failed: 60, invalid_document: 1, duplicate: 1 });
    const failed = result.summary.filter((line) => line.status === 'failed');
    expect(failed.every((line) => /token/.test(line.status_detail ?? ''))).toBe(true);
  }, 60_000);

  it('settles a query the bureau refuses (200 with a non-success status) as failed with its message, without retrying', async () => {
    test = await startTestPipeline({ emulator: { errorRate: 1, random: () => 0.9 } });
    const result = await screenFile(
      test,
      await writeCsv('refused.csv', customerListCsv(distinctDocuments(8, 'refused'))),
    );
    expect(test.emulator.stats().requests).toBe(8);
    expect(result.manifest.counts).toMatchObject({ failed: 8 });
    expect(result.summary[0]?.status_detail).toBe(
      'rejected by the bureau: Não foi possível concluir a consulta. Tente novamente.',
    );
  }, 60_000);

  it('retries 5xx with backoff and settles as failed after the attempts run out; the batch still completes', async () => {
    test = await startTestPipeline({
      emulator: { errorRate: 1, random: () => 0.1 },
      settings: { maxAttempts: 2 },
    });
    const result = await screenFile(
      test,
      await writeCsv('down.csv', customerListCsv(distinctDocuments(5, 'down'))),
    );
    const stats = test.emulator.stats();
    expect(stats.byStatus).toEqual({ '500': 10 });
    expect(stats.charged).toBe(0);
    expect(result.manifest.counts).toMatchObject({ rows: 5, failed: 5 });
    expect(result.summary[0]?.status_detail).toMatch(/^bureau unavailable after 2 attempts: server error/);
  }, 90_000);

  it('refuses a file without a document column whole, querying nothing', async () => {
    test = await startTestPipeline();
    const result = await screenFile(test, await writeCsv('names.csv', 'nome,idade\nAna,30\n'));
    expect(result.manifest).toMatchObject({
      status: 'file_rejected',
      files: null,
      failure: { code: 'no_document_column' },
    });
    expect(test.emulator.stats().requests).toBe(0);
  }, 60_000);

  it('refuses a file over the row limit whole, querying nothing, even for the rows before the limit', async () => {
    test = await startTestPipeline({ settings: { maxRows: 10 } });
    const result = await screenFile(
      test,
      await writeCsv('big.csv', customerListCsv(distinctDocuments(11, 'big'))),
    );
    expect(result.manifest).toMatchObject({
      status: 'file_rejected',
      failure: { code: 'row_limit_exceeded' },
    });
    expect(test.emulator.stats().requests).toBe(0);
  }, 60_000);
});
