import { PutCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { AUDIT_KEY_PREFIX } from '../../contract/index.ts';
import { type AuditEntry, type AuditQuery, byTime } from '../../domain/audit/index.ts';
import type { AuditLog } from '../../domain/ports/index.ts';
import { auditEntryId } from '../audit/audit-entry-id.ts';
import { isConditionFailure } from './dynamodb-conditions.ts';
import { auditEntrySchema, parseItem } from './dynamodb-items.ts';
import type { PipelineTableConfig } from './dynamodb-pipeline-table.ts';

/** Requests in flight at once: entries written, documents' partitions read. */
const PARALLEL_REQUESTS = 8;
/** Below and above every instant (a key may not be empty): the ends of an open time window. */
const START_OF_TIME = '0';
const END_OF_TIME = '~';

/**
 * The audit log in the pipeline table, one partition per document (`AUDIT#<documentKey>`), entries in time order
 * under it. Append-only: each entry is put once (`attribute_not_exists`); the pipeline's roles are denied updates
 * and deletes of `AUDIT#` items in IAM, so only the table's TTL removes an entry, after `retentionDays` (the audit
 * log's own retention).
 */
export class DynamoDbAuditLog implements AuditLog {
  constructor(private readonly config: PipelineTableConfig) {}

  async append(entries: readonly AuditEntry[]): Promise<void> {
    const expiresAt = Math.floor((this.config.now ?? Date.now)() / 1000) + this.config.retentionDays * 86_400;
    const limit = pLimit(PARALLEL_REQUESTS);
    await Promise.all(
      entries.map((entry) =>
        limit(async () => {
          try {
            await this.config.client.send(
              new PutCommand({
                TableName: this.config.tableName,
                Item: {
                  pk: `${AUDIT_KEY_PREFIX}${entry.documentKey}`,
                  sk: auditEntryId(entry),
                  ...entry,
                  expiresAt,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              }),
            );
          } catch (error) {
            if (!isConditionFailure(error)) throw error; // recorded already: kept as it was
          }
        }),
      ),
    );
  }

  async read(query: AuditQuery): Promise<AuditEntry[]> {
    const keys = 'documentKey' in query ? [query.documentKey] : [...new Set(query.documentKeys)];
    const limit = pLimit(PARALLEL_REQUESTS);
    const found = (await Promise.all(keys.map((key) => limit(() => this.#partition(key, query))))).flat();
    return found.filter((entry) => 'documentKey' in query || entry.batchId === query.batchId).sort(byTime);
  }

  async #partition(documentKey: string, window: { from?: string; to?: string }): Promise<AuditEntry[]> {
    const entries: AuditEntry[] = [];
    const pages = paginateQuery(
      { client: this.config.client },
      {
        TableName: this.config.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': `${AUDIT_KEY_PREFIX}${documentKey}`,
          ':from': window.from ?? START_OF_TIME,
          // An entry's key starts with its instant: `to` itself is included, whatever follows it.
          ':to': window.to === undefined ? END_OF_TIME : `${window.to}${END_OF_TIME}`,
        },
      },
    );
    for await (const page of pages)
      for (const item of page.Items ?? []) entries.push(parseItem(auditEntrySchema, item, 'audit entry'));
    return entries;
  }
}
