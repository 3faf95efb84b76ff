import { type AuditEntry, type AuditQuery, byTime, inWindow } from '../../domain/audit/index.ts';
import type { AuditLog } from '../../domain/ports/index.ts';
import { auditEntryId } from '../audit/audit-entry-id.ts';

/** The audit log in memory: append-only like the DynamoDB one (an entry recorded again is kept as it was). */
export class MemoryAuditLog implements AuditLog {
  readonly #entries = new Map<string, AuditEntry>();

  async append(entries: readonly AuditEntry[]): Promise<void> {
    for (const entry of entries) {
      const id = auditEntryId(entry);
      if (!this.#entries.has(id)) this.#entries.set(id, structuredClone(entry));
    }
  }

  async read(query: AuditQuery): Promise<AuditEntry[]> {
    const keys = 'documentKey' in query ? new Set([query.documentKey]) : new Set(query.documentKeys);
    return [...this.#entries.values()]
      .filter((entry) => keys.has(entry.documentKey) && inWindow(entry, query))
      .filter((entry) => 'documentKey' in query || entry.batchId === query.batchId)
      .sort(byTime)
      .map((entry) => structuredClone(entry));
  }
}
