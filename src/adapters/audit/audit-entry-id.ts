import type { AuditEntry } from '../../domain/audit/index.ts';

/**
 * What makes an entry one: its instant, batch, row and kind (a bureau request also by its HTTP status, as a retry
 * at the same millisecond is another request). Recording the same entry twice (a retried write) keeps one.
 */
export const auditEntryId = (entry: AuditEntry): string =>
  `${entry.at}#${entry.batchId}#${String(entry.row).padStart(9, '0')}#${entry.kind}${entry.kind === 'bureau_request' ? `#${entry.httpStatus ?? 'none'}` : ''}`;
