import type { BatchStore } from '../../domain/ports/index.ts';
import { type BatchStores, joinBatchStores } from '../batch-stores.ts';
import { DynamoDbBatchRecords } from './dynamodb-batch-records.ts';
import { DynamoDbBatchRows } from './dynamodb-batch-rows.ts';
import { PipelineTable, type PipelineTableConfig } from './dynamodb-pipeline-table.ts';
import { DynamoDbReportHistory } from './dynamodb-report-history.ts';
import { DynamoDbTokenProbes } from './dynamodb-token-probes.ts';

/** The four batch stores on one pipeline table (see `src/contract/table-keys.ts`). */
export function dynamoDbBatchStores(config: PipelineTableConfig): BatchStores {
  const table = new PipelineTable(config);
  return {
    batchRecords: new DynamoDbBatchRecords(table),
    batchRows: new DynamoDbBatchRows(table),
    tokenProbes: new DynamoDbTokenProbes(table),
    reportHistory: new DynamoDbReportHistory(table),
  };
}

/** The four stores as one object, for tools and tests that read across them (see {@link joinBatchStores}). */
export function dynamoDbBatchStore(config: PipelineTableConfig): BatchStore {
  return joinBatchStores(dynamoDbBatchStores(config));
}
