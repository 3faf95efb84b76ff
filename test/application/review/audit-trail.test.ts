import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../emulator/seeded-random.ts';
import { MemoryLogger } from '../../../src/adapters/memory/memory-logger.ts';
import { recordOverride } from '../../../src/application/review/record-override.ts';
import { policyKey } from '../../../src/contract/index.ts';
import type { AuditEntry } from '../../../src/domain/audit/index.ts';
import type { BureauGateway } from '../../../src/domain/ports/index.ts';
import { distinctDocuments } from '../../factories/customer-lists.ts';
import { type MemoryPipeline, startMemoryPipeline } from '../../factories/memory-pipeline.ts';
import { screenListOn } from '../../factories/screen-list.ts';

let test: MemoryPipeline;
let bureau: BureauGateway;
beforeAll(async () => {
  // One in five requests fails transiently: failed requests are requests too, and are retried.
  const random = new SeededRandom('audit trail');
  test = await startMemoryPipeline({ emulator: { errorRate: 0.2, random: () => random.next() } });
  bureau = test.bureau;
  test.objects.put(policyKey('pessoa-fisica.json'), readFileSync('samples/policies/pessoa-fisica.json'));
}, 60_000);
afterAll(async () => {
  await test?.stop();
});

/** Every entry of a batch, through its documents' keys. */
async function entriesOf(batchId: string, documents: readonly string[]): Promise<AuditEntry[]> {
  return test.audit.log.read({
    batchId,
    documentKeys: await Promise.all(documents.map((document) => test.audit.documentKeys.keyOf(document))),
  });
}

describe('the audit log (append-only, documents named by a keyed hash)', () => {
  it('records one entry per bureau request, as many as the bureau saw, and one per decision', async () => {
    const documents = distinctDocuments(30, 'audited');
    const before = test.emulator.stats();
    const csv = `cpf_cnpj,valor\n${[...documents, documents[0]].map((cell) => `${cell},10000`).join('\n')}\n`;

    const { batchId, summary } = await screenListOn(test, bureau, csv, { policy: 'pessoa-fisica.json' });
    const entries = await entriesOf(batchId, documents);

    const requests = entries.filter((entry) => entry.kind === 'bureau_request');
    const after = test.emulator.stats();
    expect(requests).toHaveLength(after.requests - before.requests);
    expect(requests.filter((entry) => entry.charge === 'charged')).toHaveLength(
      after.charged - before.charged,
    );
    // The failed attempts are there too, not charged (their rows were retried and bought).
    expect(requests.filter((entry) => entry.charge === 'not_charged').length).toBeGreaterThan(0);
    for (const entry of requests)
      expect(entry).toMatchObject({
        purpose: 'análise de crédito',
        legalBasis: 'LGPD art. 7º, X (proteção do crédito)',
      });
    const decisions = entries.filter((entry) => entry.kind === 'decision');
    expect(decisions).toHaveLength(summary.filter((line) => line.status === 'screened').length);
    for (const entry of decisions) {
      if (entry.kind !== 'decision') continue;
      expect(entry.decision).toBe(summary[entry.row - 1]?.decision);
      expect(entry.policy.name).toBe('pessoa-fisica.json');
    }
    // No entry holds a document: the log alone identifies no one.
    const text = JSON.stringify(entries);
    for (const document of documents) expect(text).not.toContain(document);
  });

  it('records an override, and finds a document’s entries across batches by its key', async () => {
    const [person] = distinctDocuments(40, 'audited twice').filter((document) => document.length === 11);
    const csv = `cpf,valor\n${person},10000\n`;
    const first = await screenListOn(test, bureau, csv, { policy: 'pessoa-fisica.json' });
    const second = await screenListOn(test, bureau, csv, { policy: 'pessoa-fisica.json' });
    await recordOverride(
      { batchId: second.batchId, row: 1 },
      {
        decision: 'decline',
        creditLimit: null,
        reason: 'Documento adulterado',
        by: 'auditoria@credora.com.br',
      },
      { ...test.adapters, logger: new MemoryLogger() },
    );

    const entries = await test.audit.log.read({
      documentKey: await test.audit.documentKeys.keyOf(person as string),
    });

    expect(new Set(entries.map((entry) => entry.batchId))).toEqual(new Set([first.batchId, second.batchId]));
    expect(entries.at(-1)).toMatchObject({
      kind: 'override',
      batchId: second.batchId,
      row: 1,
      decision: 'decline',
      by: 'auditoria@credora.com.br',
      reason: 'Documento adulterado',
    });
  });
});
