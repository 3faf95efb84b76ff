import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { queuedRows } from '../factories/batch-records.ts';
import { expectChargesReconciled } from '../factories/charges.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { screenFile, startTestPipeline, type TestPipeline, writeCsv } from '../factories/pipeline.ts';

let test: TestPipeline | undefined;
afterEach(async () => {
  await test?.stop();
  test = undefined;
});

/** A running batch of `count` queued rows, each already claimed, as 25 workers would hold them at once. */
async function claimedRows(pipeline: TestPipeline, count: number) {
  const { store } = pipeline.pipeline;
  const batchId = `strict-${randomUUID()}`;
  const rows = queuedRows(count, batchId, () => []);
  await store.createBatch({ batchId, sourceBucket: 'b', sourceKey: 'k', bureau: 'a', excelSummary: false });
  await store.writeRows(batchId, rows);
  await store.finishIngest(batchId, { rows: count, invalid: 0, duplicates: 0, toScreen: count, cached: 0 });
  const claims = await Promise.all(rows.map((row) => store.claimRow(batchId, row.row, 60)));
  return { batchId, tokens: claims.map((claim) => (claim.claimed ? claim.claimToken : '')) };
}

describe('exactly-once under DynamoDB’s real transaction semantics (strict mode)', () => {
  it('the old settle (row and batch counters in one transaction) fails under contention; the new one does not', async () => {
    test = await startTestPipeline({ eventSources: false, strict: { holdMs: 10 } });
    const { stack } = test.pipeline;
    const old = await claimedRows(test, 25);
    const current = await claimedRows(test, 25);

    // The settle as it was: the row and `ADD settled, screened` on the batch item, in one transaction. Every
    // refusal was a worker giving its row back after the bureau had answered, and a second paid query.
    const oldSettles = await Promise.allSettled(
      old.tokens.map((token, index) =>
        stack.clients.dynamo.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: stack.resources.tableName,
                  Key: { pk: `BATCH#${old.batchId}`, sk: `ROW#${String(index + 1).padStart(9, '0')}` },
                  UpdateExpression: 'SET #state = :screened REMOVE claimToken',
                  ConditionExpression: 'claimToken = :token',
                  ExpressionAttributeNames: { '#state': 'state' },
                  ExpressionAttributeValues: { ':screened': 'screened', ':token': token },
                },
              },
              {
                Update: {
                  TableName: stack.resources.tableName,
                  Key: { pk: `BATCH#${old.batchId}`, sk: 'META' },
                  UpdateExpression: 'ADD settled :one, screened :one',
                  ExpressionAttributeValues: { ':one': 1 },
                },
              },
            ],
          }),
        ),
      ),
    );
    const newSettles = await Promise.allSettled(
      current.tokens.map((token, index) =>
        test?.pipeline.store.settleRow(current.batchId, index + 1, token, { outcome: 'failed', reason: 'x' }),
      ),
    );

    const conflicts = oldSettles.filter(
      (settle) => settle.status === 'rejected' && settle.reason instanceof TransactionCanceledException,
    );
    expect(conflicts.length).toBeGreaterThan(0);
    expect(newSettles.filter((settle) => settle.status === 'rejected')).toEqual([]);
    expect(newSettles.every((settle) => settle.status === 'fulfilled' && settle.value === true)).toBe(true);
    expect(await test.pipeline.store.getBatch(current.batchId)).toMatchObject({ settled: 25, failed: 25 });
  }, 120_000);

  it('screens 300 documents with 25 calls at once and AWS faults injected, paying exactly once each', async () => {
    test = await startTestPipeline({
      settings: { workerConcurrency: 5, callsPerInvocation: 5 },
      strict: {
        seed: 'strict pipeline',
        holdMs: 10,
        faults: {
          dynamodb: { throttling: 0.02, internalServerError: 0.01 },
          s3: { slowDown: 0.02 },
          sqs: { internalFailure: 0.01, duplicateDelivery: 0.05 },
        },
      },
    });
    const documents = distinctDocuments(300, 'strict pipeline');

    const { manifest, summary } = await screenFile(
      test,
      await writeCsv('strict.csv', customerListCsv(documents)),
    );
    const stats = test.pipeline.stack.strictStats();

    expect(manifest.counts).toMatchObject({ rows: 300, screened: 300, failed: 0 });
    expect(test.emulator.stats().charged).toBe(300);
    expect(Object.values(test.emulator.stats().chargesByDocument).every((count) => count === 1)).toBe(true);
    expect(expectChargesReconciled(summary, test.emulator.stats().chargesByDocument)).toMatchObject({
      charged: 300,
      unknown: 0,
    });
    // The faults really happened, and no conflict was on a batch item every row writes.
    expect(stats?.faults.total).toBeGreaterThan(0);
    expect(stats?.duplicateDeliveries).toBeGreaterThan(0);
    expect(
      Object.keys(stats?.conflicts.byItemShape ?? {}).filter((shape) => shape.endsWith('|META')),
    ).toEqual([]);
  }, 300_000);
});
