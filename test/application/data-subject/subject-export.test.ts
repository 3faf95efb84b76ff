import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../../src/adapters/memory/memory-logger.ts';
import { exportSubject } from '../../../src/application/data-subject/subject-export.ts';
import { recordOverride } from '../../../src/application/review/record-override.ts';
import { policyKey } from '../../../src/contract/index.ts';
import { distinctDocuments } from '../../factories/customer-lists.ts';
import { type MemoryPipeline, startMemoryPipeline } from '../../factories/memory-pipeline.ts';
import { screenListOn } from '../../factories/screen-list.ts';

let test: MemoryPipeline;
beforeAll(async () => {
  test = await startMemoryPipeline();
  test.objects.put(policyKey('pessoa-fisica.json'), readFileSync('samples/policies/pessoa-fisica.json'));
}, 60_000);
afterAll(async () => {
  await test?.stop();
});

describe('a data subject’s access request (everything held about one document)', () => {
  it('finds the document in each of the three batches it appears in, with its rows, reports, raw answers and overrides', async () => {
    const [person, other, another] = distinctDocuments(60, 'subject').filter(
      (document) => document.length === 11,
    );
    const lists = [
      `cpf,valor\n${other},1000\n${person},5000\n`,
      `cpf,valor\n${person},7000\n`,
      `cpf,valor\n${another},1000\n${other},1000\n${person},9000\n`,
    ];
    const batchIds: string[] = [];
    for (const csv of lists)
      batchIds.push((await screenListOn(test, test.bureau, csv, { policy: 'pessoa-fisica.json' })).batchId);
    await recordOverride(
      { batchId: batchIds[1] as string, row: 1 },
      { decision: 'approve', creditLimit: 2000, reason: 'Cliente antigo', by: 'ana@credora.com.br' },
      { ...test.adapters, logger: new MemoryLogger() },
    );

    const held = await exportSubject(person as string, test.adapters);

    expect(held.batches.map((batch) => batch.batchId)).toEqual(batchIds);
    expect(held.batches.map((batch) => batch.rows.map((row) => row.row))).toEqual([[2], [1], [3]]);
    expect(held.batches.flatMap((batch) => batch.rows).every((row) => row.document === person)).toBe(true);
    expect(held.batches[1]?.overrides.map((override) => override.by)).toEqual(['ana@credora.com.br']);
    expect(held.reports.length).toBe(3); // each batch bought it (no freshness window here)
    expect(held.reports.every((report) => report.key.document === person)).toBe(true);
    expect(held.rawResponses).toHaveLength(3);
    expect(held.audit.filter((entry) => entry.kind === 'bureau_request')).toHaveLength(3);
    // Nothing of the other customers.
    const text = JSON.stringify(held);
    for (const stranger of [other, another]) expect(text).not.toContain(stranger as string);
  });

  it('records who read everything held about the person, once per row that holds them, and only when told who', async () => {
    const [person] = distinctDocuments(40, 'subject access').filter((document) => document.length === 11);
    const { batchId } = await screenListOn(test, test.bureau, `cpf,valor\n${person},5000\n`, {
      policy: 'pessoa-fisica.json',
    });
    const documentKey = await test.audit.documentKeys.keyOf(person as string);
    const accesses = async () =>
      (await test.audit.log.read({ documentKey })).filter((entry) => entry.kind === 'access');

    await exportSubject(person as string, test.adapters);
    const unrecorded = await accesses();
    const held = await exportSubject(person as string, test.adapters, {
      by: 'dpo@credora.com.br',
      reason: 'Pedido LGPD 2026/120',
    });

    expect(unrecorded).toEqual([]);
    expect(await accesses()).toEqual([
      {
        kind: 'access',
        at: held.exportedAt,
        batchId,
        row: 1,
        documentKey,
        by: 'dpo@credora.com.br',
        reason: 'Pedido LGPD 2026/120',
      },
    ]);
  });
});
