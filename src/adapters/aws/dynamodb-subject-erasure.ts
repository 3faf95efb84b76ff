import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  paginateQuery,
  paginateScan,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type RowRecord, SETTLED_STATES, type StoredReport } from '../../domain/batch/index.ts';
import { documentSpellings } from '../../domain/data-subject/index.ts';
import type { SubjectErasureStore } from '../../domain/ports/index.ts';
import { BUREAUS, type Bureau } from '../../domain/report/index.ts';
import { isConditionFailure } from './dynamodb-conditions.ts';
import { OVERRIDE_PREFIX } from './dynamodb-decision-overrides.ts';
import { purchaseKey } from './dynamodb-document-purchases.ts';
import { toRow, toStoredReport } from './dynamodb-items.ts';
import { latestKeyOf, ROW_PREFIX, rowKey } from './dynamodb-pipeline-table.ts';
import { caseKey } from './dynamodb-review-cases.ts';

export interface DynamoDbSubjectErasureConfig {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

const reportPartition = (bureau: Bureau, document: string) => latestKeyOf({ bureau, document }).pk;

/**
 * Erasure on the pipeline table. Rows are found by a scan, the one way to find every batch a document was in
 * without an index that would itself name documents; reports, purchases and overrides by their keys. The audit
 * log (`AUDIT#…`) is never read nor written here: it names documents only by their keyed hash.
 */
export class DynamoDbSubjectErasure implements SubjectErasureStore {
  constructor(private readonly config: DynamoDbSubjectErasureConfig) {}

  async rowsHolding(document: string): Promise<RowRecord[]> {
    const found: RowRecord[] = [];
    const pages = paginateScan(
      { client: this.config.client },
      {
        TableName: this.config.tableName,
        // A row whose input cell names the document without a document of its own (a CPF and a CNPJ column
        // that disagreed) holds it all the same.
        FilterExpression:
          'begins_with(sk, :row) AND (#document = :document OR contains(#input, :document) OR contains(#input, :formatted))',
        ExpressionAttributeNames: { '#document': 'document', '#input': 'input' },
        ExpressionAttributeValues: {
          ':document': document,
          ':formatted': documentSpellings(document)[1],
          ':row': ROW_PREFIX,
        },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) for (const item of page.Items ?? []) found.push(toRow(item));
    return found.sort((a, b) => a.batchId.localeCompare(b.batchId) || a.row - b.row);
  }

  async reportsOf(document: string): Promise<StoredReport[]> {
    const found: StoredReport[] = [];
    for (const bureau of BUREAUS)
      for (const item of await this.#partition(reportPartition(bureau, document)))
        if (item.sk !== latestKeyOf({ bureau, document }).sk) found.push(toStoredReport(item));
    return found;
  }

  async eraseRow(batchId: string, row: number, erasedAt: string): Promise<boolean> {
    try {
      await this.config.client.send(
        new UpdateCommand({
          TableName: this.config.tableName,
          Key: rowKey(batchId, row),
          // A row in flight (queued, claimed) is refused: its holder would write the document back.
          ConditionExpression: `#state IN (${SETTLED_STATES.map((_, index) => `:settled${index}`).join(', ')})`,
          UpdateExpression:
            'SET #input = :empty, passThrough = :none, erasedAt = :erasedAt REMOVE #document, report, reportKey, decision',
          ExpressionAttributeNames: { '#state': 'state', '#input': 'input', '#document': 'document' },
          ExpressionAttributeValues: {
            ...Object.fromEntries(SETTLED_STATES.map((state, index) => [`:settled${index}`, state])),
            ':empty': '',
            ':none': [],
            ':erasedAt': erasedAt,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async eraseReports(document: string): Promise<number> {
    let erased = 0;
    for (const bureau of BUREAUS) {
      for (const item of await this.#partition(reportPartition(bureau, document))) {
        await this.#delete({ pk: item.pk, sk: item.sk });
        if (item.sk !== latestKeyOf({ bureau, document }).sk) erased++;
      }
    }
    return erased;
  }

  async erasePurchases(document: string): Promise<number> {
    let erased = 0;
    for (const bureau of BUREAUS) if (await this.#delete(purchaseKey(bureau, document))) erased++;
    return erased;
  }

  async eraseOverrides(batchId: string, row: number): Promise<number> {
    const prefix = `${OVERRIDE_PREFIX}${String(row).padStart(9, '0')}#`;
    const items = await this.#partition(`BATCH#${batchId}`, prefix);
    for (const item of items) await this.#delete({ pk: item.pk, sk: item.sk });
    // The row's review case: its comments may speak of the person.
    const erasedCase = await this.#delete(caseKey({ batchId, row }));
    return items.length + (erasedCase ? 1 : 0);
  }

  async #partition(pk: string, skPrefix?: string): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    const pages = paginateQuery(
      { client: this.config.client },
      {
        TableName: this.config.tableName,
        KeyConditionExpression: skPrefix === undefined ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues:
          skPrefix === undefined ? { ':pk': pk } : { ':pk': pk, ':prefix': skPrefix },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) items.push(...(page.Items ?? []));
    return items;
  }

  /** Deletes an item; whether it was there. */
  async #delete(key: Record<string, unknown>): Promise<boolean> {
    const result = await this.config.client.send(
      new DeleteCommand({ TableName: this.config.tableName, Key: key, ReturnValues: 'ALL_OLD' }),
    );
    return result.Attributes !== undefined;
  }
}
