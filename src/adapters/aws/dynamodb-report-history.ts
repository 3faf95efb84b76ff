import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type ReportKey, reportKeyId, type StoredReport } from '../../domain/batch/index.ts';
import type { ReportHistory } from '../../domain/ports/index.ts';
import type { Bureau } from '../../domain/report/index.ts';
import { toStoredReport } from './dynamodb-items.ts';
import { GET_BATCH, latestKeyOf, type PipelineTable, reportKeyOf } from './dynamodb-pipeline-table.ts';

/**
 * Stored reports on the pipeline table: one item per bureau, document and date, and a `LATEST` item each that
 * names the newest one's date (tables written before it did keep a whole copy there, read as such).
 */
export class DynamoDbReportHistory implements ReportHistory {
  readonly #db: PipelineTable;

  constructor(table: PipelineTable) {
    this.#db = table;
  }

  async latestReports(bureau: Bureau, documents: readonly string[]): Promise<Map<string, StoredReport>> {
    const found = new Map<string, StoredReport>();
    const pointed: ReportKey[] = [];
    const partition = `${latestKeyOf({ bureau, document: '' }).pk}`;
    const keys = [...new Set(documents)].map((document) => latestKeyOf({ bureau, document }));
    for (let start = 0; start < keys.length; start += GET_BATCH) {
      for (const item of await this.#db.batchGet(keys.slice(start, start + GET_BATCH))) {
        if (typeof item.report === 'string') {
          const stored = toStoredReport(item);
          found.set(stored.key.document, stored);
        } else if (typeof item.fetchedAt === 'string')
          pointed.push({
            bureau,
            document: String(item.pk).slice(partition.length),
            fetchedAt: item.fetchedAt,
          });
      }
    }
    const dated = await this.getReports(pointed);
    for (const key of pointed) {
      const stored = dated.get(reportKeyId(key));
      if (stored !== undefined) found.set(key.document, stored);
    }
    return found;
  }

  async getReports(keys: readonly ReportKey[]): Promise<Map<string, StoredReport>> {
    const unique = new Map(keys.map((key) => [reportKeyId(key), reportKeyOf(key)]));
    const found = new Map<string, StoredReport>();
    const ids = [...unique.values()];
    for (let start = 0; start < ids.length; start += GET_BATCH) {
      for (const item of await this.#db.batchGet(ids.slice(start, start + GET_BATCH))) {
        const stored = toStoredReport(item);
        found.set(reportKeyId(stored.key), stored);
      }
    }
    return found;
  }

  async previousReport(key: ReportKey): Promise<StoredReport | null> {
    const { pk } = reportKeyOf(key);
    // Dated items sort by their ISO date; `LATEST` sorts after every date, so `< fetchedAt` never returns it.
    const result = await this.#db.client.send(
      new QueryCommand({
        TableName: this.#db.tableName,
        KeyConditionExpression: 'pk = :pk AND sk < :fetchedAt',
        ExpressionAttributeValues: { ':pk': pk, ':fetchedAt': key.fetchedAt },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const item = result.Items?.[0];
    return item ? toStoredReport(item) : null;
  }
}
