import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalServices } from '../../../cli/local/local-services.ts';
import { DynamoDbAuditLog } from '../../../src/adapters/aws/dynamodb-audit-log.ts';
import { dynamoDbBatchStore } from '../../../src/adapters/aws/dynamodb-batch-store.ts';
import { DynamoDbChargeBudget } from '../../../src/adapters/aws/dynamodb-charge-budget.ts';
import { DynamoDbDecisionOverrides } from '../../../src/adapters/aws/dynamodb-decision-overrides.ts';
import { DynamoDbDocumentPurchases } from '../../../src/adapters/aws/dynamodb-document-purchases.ts';
import { DynamoDbReviewCases } from '../../../src/adapters/aws/dynamodb-review-cases.ts';
import { DynamoDbSubjectErasure } from '../../../src/adapters/aws/dynamodb-subject-erasure.ts';
import { DEFAULT_SETTINGS } from '../../../src/contract/index.ts';
import { distinctDocuments } from '../../factories/customer-lists.ts';
import { emulatedReport } from '../../factories/normalised-reports.ts';
import { sharedDynamoDb } from '../../factories/shared-dynamodb.ts';
import { describeAuditLogContract } from '../audit-log-contract.ts';
import { describeBatchStoreContract } from '../batch-store-contract.ts';
import { describeChargeBudgetContract } from '../charge-budget-contract.ts';
import { describeDecisionOverridesContract } from '../decision-overrides-contract.ts';
import { describeDocumentPurchasesContract } from '../document-purchases-contract.ts';
import { describeReviewCasesContract } from '../review-cases-contract.ts';
import { describeSubjectErasureContract } from '../subject-erasure-contract.ts';

let stack: Promise<LocalServices> | undefined;
afterAll(async () => {
  await (await stack)?.stop();
});

describeBatchStoreContract('DynamoDbBatchStore (DynamoDB Local)', async () => {
  stack ??= LocalServices.start(DEFAULT_SETTINGS, { sharedDynamoDb: sharedDynamoDb() });
  const { clients, resources } = await stack;
  let clock = Date.now();
  return {
    store: dynamoDbBatchStore({
      client: clients.dynamo,
      tableName: resources.tableName,
      retentionDays: 1,
      now: () => clock,
    }),
    advance: (milliseconds) => {
      clock += milliseconds;
    },
  };
});

describeChargeBudgetContract('DynamoDbChargeBudget (DynamoDB Local)', async () => {
  stack ??= LocalServices.start(DEFAULT_SETTINGS, { sharedDynamoDb: sharedDynamoDb() });
  const { clients, resources } = await stack;
  const table = { client: clients.dynamo, tableName: resources.tableName, retentionDays: 1 };
  return { budget: new DynamoDbChargeBudget(table), store: dynamoDbBatchStore(table) };
});

describeDocumentPurchasesContract('DynamoDbDocumentPurchases (DynamoDB Local)', async () => {
  stack ??= LocalServices.start(DEFAULT_SETTINGS, { sharedDynamoDb: sharedDynamoDb() });
  const { clients, resources } = await stack;
  let clock = Date.now();
  return {
    purchases: new DynamoDbDocumentPurchases({
      client: clients.dynamo,
      tableName: resources.tableName,
      retentionDays: 1,
      now: () => clock,
    }),
    now: () => clock,
    advance: (milliseconds) => {
      clock += milliseconds;
    },
  };
});

describeDecisionOverridesContract('DynamoDbDecisionOverrides (DynamoDB Local)', async () => {
  stack ??= LocalServices.start(DEFAULT_SETTINGS, { sharedDynamoDb: sharedDynamoDb() });
  const { clients, resources } = await stack;
  return new DynamoDbDecisionOverrides({
    client: clients.dynamo,
    tableName: resources.tableName,
    retentionDays: 1,
  });
});

describeReviewCasesContract('DynamoDbReviewCases (DynamoDB Local)', async () => {
  stack ??= LocalServices.start(DEFAULT_SETTINGS, { sharedDynamoDb: sharedDynamoDb() });
  const { clients, resources } = await stack;
  return new DynamoDbReviewCases({
    client: clients.dynamo,
    tableName: resources.tableName,
    retentionDays: 1,
  });
});

describeAuditLogContract('DynamoDbAuditLog (DynamoDB Local)', async () => {
  stack ??= LocalServices.start(DEFAULT_SETTINGS, { sharedDynamoDb: sharedDynamoDb() });
  const { clients, resources } = await stack;
  return new DynamoDbAuditLog({ client: clients.dynamo, tableName: resources.tableName, retentionDays: 1 });
});

describeSubjectErasureContract('DynamoDbSubjectErasure (DynamoDB Local)', async () => {
  stack ??= LocalServices.start(DEFAULT_SETTINGS, { sharedDynamoDb: sharedDynamoDb() });
  const { clients, resources } = await stack;
  const table = { client: clients.dynamo, tableName: resources.tableName, retentionDays: 1 };
  return {
    erasure: new DynamoDbSubjectErasure(table),
    store: dynamoDbBatchStore(table),
    purchases: new DynamoDbDocumentPurchases(table),
    overrides: new DynamoDbDecisionOverrides(table),
  };
});

describe('DynamoDbReportHistory (DynamoDB Local): a table written before LATEST became a pointer', () => {
  it('still reads the newest report from a LATEST item that holds a whole copy', async () => {
    stack ??= LocalServices.start(DEFAULT_SETTINGS, { sharedDynamoDb: sharedDynamoDb() });
    const { clients, resources } = await stack;
    const store = dynamoDbBatchStore({
      client: clients.dynamo,
      tableName: resources.tableName,
      retentionDays: 1,
    });
    const document = distinctDocuments(1, `legacy-latest-${randomUUID()}`)[0] as string;
    const report = emulatedReport(document, 'a', 2);
    const key = { bureau: 'a' as const, document, fetchedAt: '2026-03-01T00:00:00.000Z' };
    const copy = {
      ...key,
      report: JSON.stringify(report),
      rawKey: 'raw/a/old.json',
      expiresAt: 2_000_000_000,
    };
    await clients.dynamo.send(
      new PutCommand({
        TableName: resources.tableName,
        Item: { pk: `REPORT#a#${document}`, sk: 'LATEST', ...copy },
      }),
    );

    const latest = await store.latestReports('a', [document]);

    expect(latest.get(document)).toEqual({ key, report, rawKey: 'raw/a/old.json' });
  });
});
