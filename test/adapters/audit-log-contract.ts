import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/domain/audit/index.ts';
import type { AuditLog } from '../../src/domain/ports/index.ts';

function request(documentKey: string, batchId: string, row: number, at: string): AuditEntry {
  return {
    kind: 'bureau_request',
    at,
    batchId,
    row,
    documentKey,
    bureau: 'a',
    charge: 'charged',
    httpStatus: 200,
    purpose: 'análise de crédito',
    legalBasis: 'LGPD art. 7º, X',
  };
}

/**
 * The rules every audit log keeps, run against each implementation (in memory and DynamoDB): append-only (an entry
 * written again stays as first written), read by document or by batch, in time order, within a time window.
 */
export function describeAuditLogContract(name: string, open: () => Promise<AuditLog>): void {
  describe(`${name}: the audit log contract`, () => {
    let log: AuditLog;
    let person: string;
    let company: string;
    beforeEach(async () => {
      log = await open();
      person = randomUUID().replaceAll('-', '');
      company = randomUUID().replaceAll('-', '');
    });

    it('reads a document’s entries across batches in time order, and a batch’s through its documents', async () => {
      const later = request(person, 'batch-2', 4, '2026-11-25T10:00:00.000Z');
      const earlier = request(person, 'batch-1', 1, '2026-11-24T09:00:00.000Z');
      const decision: AuditEntry = {
        kind: 'decision',
        at: '2026-11-24T09:00:05.000Z',
        batchId: 'batch-1',
        row: 1,
        documentKey: person,
        policy: { name: 'pessoa-fisica.json', sha256: 'ab'.repeat(32) },
        decision: 'review',
        reasons: ['PROTESTO', 'SEM_SCORE'],
      };
      const other = request(company, 'batch-1', 2, '2026-11-24T09:00:01.000Z');
      const access: AuditEntry = {
        kind: 'access',
        at: '2026-11-26T08:00:00.000Z',
        batchId: 'batch-1',
        row: 1,
        documentKey: person,
        by: 'dpo@credora.com.br',
        reason: 'Pedido LGPD 2026/120',
      };
      await log.append([later, earlier, decision, other, access]);

      expect(await log.read({ documentKey: person })).toEqual([earlier, decision, later, access]);
      expect(await log.read({ batchId: 'batch-1', documentKeys: [person, company, person] })).toEqual([
        earlier,
        other,
        decision,
        access,
      ]);
    });

    it('keeps an entry as first written when it is written again (a retried write)', async () => {
      const entry = request(person, 'batch-1', 1, '2026-11-24T09:00:00.000Z');
      await log.append([entry]);

      await log.append([{ ...entry, charge: 'not_charged' } as AuditEntry]);

      expect(await log.read({ documentKey: person })).toEqual([entry]);
    });

    it('reads within a time window, both ends included, a day as its end taking in the whole day', async () => {
      const entries = [
        '2026-11-23T23:59:59.999Z',
        '2026-11-24T00:00:00.000Z',
        '2026-11-25T18:00:00.000Z',
        '2026-11-26T00:00:00.000Z',
      ].map((at, index) => request(person, 'batch-1', index + 1, at));
      await log.append(entries);

      const window = await log.read({ documentKey: person, from: '2026-11-24', to: '2026-11-25' });

      expect(window.map((entry) => entry.at)).toEqual([
        '2026-11-24T00:00:00.000Z',
        '2026-11-25T18:00:00.000Z',
      ]);
    });
  });
}
