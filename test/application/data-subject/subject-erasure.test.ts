import { readFileSync } from 'node:fs';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../../src/adapters/memory/memory-logger.ts';
import { ErasureRefused, eraseSubject } from '../../../src/application/data-subject/subject-erasure.ts';
import { ingestUpload } from '../../../src/application/ingest/ingest-upload.ts';
import { recordOverride } from '../../../src/application/review/record-override.ts';
import { policyKey, S3_LAYOUT } from '../../../src/contract/index.ts';
import { documentSpellings, ERASED_METADATA } from '../../../src/domain/data-subject/index.ts';
import { AutoTextDecoder } from '../../../src/domain/intake/index.ts';
import { distinctDocuments } from '../../factories/customer-lists.ts';
import { punctuate } from '../../factories/documents.ts';
import { type MemoryPipeline, startMemoryPipeline } from '../../factories/memory-pipeline.ts';
import { RecordingWorkQueue } from '../../factories/recording-ports.ts';
import { screenListOn } from '../../factories/screen-list.ts';

let test: MemoryPipeline;
beforeAll(async () => {
  test = await startMemoryPipeline();
  test.objects.put(policyKey('pessoa-fisica.json'), readFileSync('samples/policies/pessoa-fisica.json'));
}, 60_000);
afterAll(async () => {
  await test?.stop();
});

/** Every object of the bucket as text, whatever its encoding. */
async function everyObject(): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const key of test.objects.keys()) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of test.objects.read(key)) chunks.push(chunk);
    const decoder = new AutoTextDecoder();
    texts.set(key, decoder.write(Buffer.concat(chunks)) + decoder.end());
  }
  return texts;
}

const holding = (texts: Map<string, string>, document: string) =>
  [...texts].filter(([, text]) => documentSpellings(document).some((spelling) => text.includes(spelling)));

const erasure = (document: string) =>
  eraseSubject({ document, by: 'dpo@credora.com.br', reason: 'Pedido LGPD 2026/118' }, test.adapters);

describe('a data subject’s erasure request', () => {
  it('leaves no occurrence of the document in any object or row, keeps the audit entries, and the next screen buys it again', async () => {
    // Arrange: the person in three batches (formatted once, twice in one list, in a Windows-1252 list), a
    // reviewer's override of their row, and a portfolio list naming them.
    const [person, other, another] = distinctDocuments(60, 'erasure').filter(
      (document) => document.length === 11,
    );
    const lists = [
      `cpf,nome,valor\n${other},Bia,1000\n${punctuate(person as string)},Ana Souza,5000\n`,
      iconv.encode(`cpf;nome;valor\r\n${person};Ana Simões;7000\r\n${person};Ana Simões;7000\r\n`, 'win1252'),
      `cpf,nome,valor\n${another},Caio,1000\n${other},Bia,1000\n${person},Ana,9000\n`,
    ];
    const batchIds: string[] = [];
    for (const csv of lists)
      batchIds.push((await screenListOn(test, test.bureau, csv, { policy: 'pessoa-fisica.json' })).batchId);
    await recordOverride(
      { batchId: batchIds[1] as string, row: 1 },
      { decision: 'approve', creditLimit: 2000, reason: 'Cliente antigo', by: 'ana@credora.com.br' },
      { ...test.adapters, logger: new MemoryLogger() },
    );
    test.objects.put(`${S3_LAYOUT.portfolios}carteira.csv`, `cpf\n${other}\n${person}\n`);
    const documentKey = await test.audit.documentKeys.keyOf(person as string);
    const auditBefore = await test.audit.log.read({ documentKey });
    expect(holding(await everyObject(), person as string).length).toBeGreaterThan(8);

    // Act
    const erased = await erasure(person as string);

    // Assert: nothing names the person any more, anywhere in the bucket or the stores
    const texts = await everyObject();
    expect(holding(texts, person as string)).toEqual([]);
    expect(await test.adapters.subjectErasure.rowsHolding(person as string)).toEqual([]);
    expect(await test.adapters.subjectErasure.reportsOf(person as string)).toEqual([]);
    expect(erased.batches.map((batch) => [batch.batchId, batch.rows])).toEqual([
      [batchIds[0], [2]],
      [batchIds[1], [1, 2]],
      [batchIds[2], [3]],
    ]);
    expect([erased.storedReports, erased.purchases, erased.overrides]).toEqual([3, 1, 1]);
    // Everyone else is as they were.
    for (const stranger of [other, another])
      expect(holding(texts, stranger as string).length).toBeGreaterThan(0);
    const [strangerRow, erasedRow] = await test.store.getRows(batchIds[0] as string, [1, 2]);
    expect(erasedRow).toMatchObject({ state: 'screened', answered: true, document: null, report: null });
    expect(strangerRow?.document).toBe(other);
    // The lists keep their other rows, byte for byte, and are never taken for new uploads.
    const firstSource = (await test.store.getBatch(batchIds[0] as string))?.sourceKey ?? '';
    expect(await test.objects.readTextIfExists(firstSource)).toBe(`cpf,nome,valor\n${other},Bia,1000\n,,\n`);
    const source = (await test.store.getBatch(batchIds[1] as string))?.sourceKey ?? '';
    expect((await test.objects.metadataOf(source))[ERASED_METADATA]).toBe(erased.erasedAt);
    // In AWS the rewrite is a new upload event: ingest screens nothing of it.
    const batchesBefore = await test.store.listBatches(100);
    const rewrittenUpload = await ingestUpload(
      { bucket: test.objects.bucket, key: source, eTag: 'rewritten-by-erasure', sequencer: 'ff' },
      {
        ...test.adapters,
        queue: new RecordingWorkQueue(),
        logger: new MemoryLogger(),
        settings: { defaultBureau: 'a', maxRows: 1000, excelSummary: false, freshnessHours: 0 },
      },
    );
    expect(rewrittenUpload.outcome).toBe('already_ingested');
    expect(await test.store.listBatches(100)).toHaveLength(batchesBefore.length);
    // The audit log keeps every entry it had, plus one erasure entry per row.
    const auditAfter = await test.audit.log.read({ documentKey });
    expect(auditAfter.slice(0, auditBefore.length)).toEqual(auditBefore);
    expect(auditBefore.filter((entry) => entry.kind === 'bureau_request')).toHaveLength(3);
    expect(
      auditAfter
        .filter((entry) => entry.kind === 'erasure')
        .map((entry) => `${entry.batchId}:${entry.row}`)
        .sort(),
    ).toEqual(erased.batches.flatMap((batch) => batch.rows.map((row) => `${batch.batchId}:${row}`)).sort());
    expect(erased.auditEntriesKept).toBe(auditAfter.length);

    // And the next screen of the person buys the report again, even with a freshness window that would reuse it.
    const charged = test.emulator.stats().charged;
    const again = await screenListOn(
      test,
      test.bureau,
      `cpf\n${person}\n${other}\n`,
      {},
      { freshnessHours: 24 },
    );
    expect(test.emulator.stats().charged - charged).toBe(1);
    expect(again.summary.map((line) => line.status)).toEqual(['screened', 'cached']);
  });

  it('refuses, changing nothing, while a batch holding the document is still screening it', async () => {
    // Arrange: a batch ingested whose row of the person is still queued
    const [person] = distinctDocuments(20, 'erasure running').filter((document) => document.length === 11);
    const batchId = 'erasure-running-batch';
    await test.store.createBatch({
      batchId,
      sourceBucket: test.objects.bucket,
      sourceKey: `${S3_LAYOUT.incoming}a/running.csv`,
      bureau: 'a',
      excelSummary: false,
    });
    await test.store.writeRows(batchId, [
      {
        row: 1,
        input: person as string,
        document: person as string,
        documentType: 'cpf',
        state: 'queued',
        detail: null,
        duplicateOf: null,
        passThrough: [],
      },
    ]);
    await test.store.finishIngest(batchId, { rows: 1, invalid: 0, duplicates: 0, toScreen: 1, cached: 0 });

    // Act
    const error = await erasure(person as string).catch((refused: unknown) => refused);

    // Assert
    expect(error).toBeInstanceOf(ErasureRefused);
    expect((error as Error).message).toBe(
      `batch ${batchId} holds the document and is screening it (queued): wait for it to end (or cancel it), then erase again; nothing was erased`,
    );
    expect((await test.store.getRows(batchId, [1]))[0]?.document).toBe(person);
  });
});
