import { randomBytes } from 'node:crypto';
import {
  DynamoDBClient,
  type DynamoDBServiceException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  ThrottlingException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import {
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  SQSServiceException,
} from '@aws-sdk/client-sqs';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalServices } from '../../../cli/local/local-services.ts';
import { keyShape, StrictAwsProxy, type StrictModeOptions } from '../../../cli/local/strict-aws-proxy.ts';
import { FAST_SETTINGS } from '../../factories/pipeline.ts';
import { sharedDynamoDb } from '../../factories/shared-dynamodb.ts';

const REGION = 'us-east-1';
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

// One set of emulators for the file; each test puts its own strict endpoint in front of them.
let emulators: LocalServices;
const proxies: StrictAwsProxy[] = [];

beforeAll(async () => {
  emulators = await LocalServices.start(FAST_SETTINGS, { sharedDynamoDb: sharedDynamoDb() });
}, 60_000);
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await emulators?.stop();
});

/** A strict endpoint in front of the emulators, with SDK clients (default retry strategy) that go through it. */
async function strictClients(options: StrictModeOptions = {}, clientOptions: { maxAttempts?: number } = {}) {
  const { endpoints } = emulators;
  const proxy = await StrictAwsProxy.start({
    ...options,
    upstreams: { dynamodb: endpoints.dynamodb, s3: endpoints.s3AndSqs, sqs: endpoints.s3AndSqs },
    keyAttributes: ['pk', 'sk'],
  });
  proxies.push(proxy);
  const common = { endpoint: proxy.url, region: REGION, credentials: CREDENTIALS, ...clientOptions };
  return {
    proxy,
    dynamo: DynamoDBDocumentClient.from(new DynamoDBClient(common)),
    s3: new S3Client({ ...common, forcePathStyle: true }),
    sqs: new SQSClient(common),
  };
}

const table = () => emulators.resources.tableName;
const uniqueId = () => randomBytes(6).toString('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once the proxy has received `count` requests of `operation` (it holds their items from then on). */
async function arrived(proxy: StrictAwsProxy, operation: string, count = 1): Promise<void> {
  while ((proxy.stats().requests[operation] ?? 0) < count) await sleep(2);
}

/** A settle-like transaction: count on a shared item, write one item of its own. */
const counterTransaction = (sharedPk: string, ownPk: string) =>
  new TransactWriteCommand({
    TransactItems: [
      {
        Update: {
          TableName: table(),
          Key: { pk: sharedPk, sk: 'META' },
          UpdateExpression: 'ADD settled :one',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      { Put: { TableName: table(), Item: { pk: ownPk, sk: 'ROW#000000001', status: 'settled' } } },
    ],
  });

async function outcomes<T>(promises: Promise<T>[]) {
  const settled = await Promise.allSettled(promises);
  return {
    fulfilled: settled.filter((result) => result.status === 'fulfilled').length,
    errors: settled.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : [])),
  };
}

describe('keyShape', () => {
  it('elides identifiers and keeps the fixed vocabulary of the keys', () => {
    expect(keyShape('BATCH#9c41e0b7a2d35f186e04b8c2|META')).toBe('BATCH#…|META');
    expect(keyShape('BATCH#9c41e0b7a2d35f186e04b8c2|ROW#000000012')).toBe('BATCH#…|ROW#…');
    expect(keyShape('REPORT#a#12345678909|2026-11-23T10:00:00.000Z')).toBe('REPORT#…#…|…');
    expect(keyShape('RATE#a|BUCKET')).toBe('RATE#…|BUCKET');
  });
});

describe('StrictAwsProxy: DynamoDB transaction conflicts', () => {
  it('cancels concurrent transactions on one item with TransactionConflict, and the SDK does not retry them', async () => {
    const { proxy, dynamo } = await strictClients({ holdMs: 30 });
    const shared = `COUNTER#${uniqueId()}`;

    const { fulfilled, errors } = await outcomes(
      Array.from({ length: 20 }, () => dynamo.send(counterTransaction(shared, `OWN#${uniqueId()}`))),
    );

    expect(fulfilled).toBeGreaterThan(0);
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) {
      expect(error).toBeInstanceOf(TransactionCanceledException);
      const cancelled = error as TransactionCanceledException;
      expect(cancelled.CancellationReasons?.map((reason) => reason.Code)).toEqual([
        'TransactionConflict',
        'None',
      ]);
      expect(cancelled.message).toContain('[TransactionConflict, None]');
      expect(cancelled.$metadata.httpStatusCode).toBe(400);
      // The default retry strategy does not retry a cancelled transaction (not throttling, not transient): one attempt.
      expect(cancelled.$metadata.attempts).toBe(1);
    }
    // What succeeded was applied once each; what was cancelled never reached DynamoDB Local.
    const counter = await dynamo.send(
      new GetCommand({ TableName: table(), Key: { pk: shared, sk: 'META' } }),
    );
    expect(counter.Item?.settled).toBe(fulfilled);
    const stats = proxy.stats();
    expect(stats.conflicts).toEqual({
      total: errors.length,
      byOperation: { TransactWriteItems: errors.length },
      byItemShape: { 'COUNTER#…|META': errors.length },
    });
    expect(stats.requests['dynamodb.TransactWriteItems']).toBe(20);
  });

  it('lets concurrent transactions on distinct items all through', async () => {
    const { proxy, dynamo } = await strictClients({ holdMs: 30 });

    const { fulfilled } = await outcomes(
      Array.from({ length: 20 }, () =>
        dynamo.send(counterTransaction(`COUNTER#${uniqueId()}`, `OWN#${uniqueId()}`)),
      ),
    );

    expect(fulfilled).toBe(20);
    expect(proxy.stats().conflicts.total).toBe(0);
  });

  it('fails a plain write to an item of an ongoing transaction with TransactionConflictException, not retried', async () => {
    const { proxy, dynamo } = await strictClients({ holdMs: 300 });
    const shared = `COUNTER#${uniqueId()}`;
    const transaction = dynamo.send(counterTransaction(shared, `OWN#${uniqueId()}`));
    await arrived(proxy, 'dynamodb.TransactWriteItems');

    const write = dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: shared, sk: 'META' },
        UpdateExpression: 'SET note = :note',
        ExpressionAttributeValues: { ':note': 'outside' },
      }),
    );
    const elsewhere = dynamo.send(
      new PutCommand({ TableName: table(), Item: { pk: `OTHER#${uniqueId()}`, sk: 'META' } }),
    );

    const error = await write.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionConflictException);
    expect((error as TransactionConflictException).$metadata.attempts).toBe(1);
    await expect(elsewhere).resolves.toBeDefined();
    await expect(transaction).resolves.toBeDefined();
    expect(proxy.stats().conflicts.byOperation).toEqual({ UpdateItem: 1 });
    // The transaction kept its items for the hold after DynamoDB Local answered.
    expect(proxy.stats().meanMs['dynamodb.TransactWriteItems']).toBeGreaterThanOrEqual(300);
  });

  it('cancels a transaction on an item a plain write has in flight, and a transactional read of it', async () => {
    const { proxy, dynamo } = await strictClients({ singleWriteHoldMs: 300 });
    const shared = `COUNTER#${uniqueId()}`;
    const write = dynamo.send(
      new PutCommand({ TableName: table(), Item: { pk: shared, sk: 'ROW#000000001', status: 'claimed' } }),
    );
    await arrived(proxy, 'dynamodb.PutItem');

    const transaction = await dynamo
      .send(counterTransaction(`OWN#${uniqueId()}`, shared))
      .catch((caught: unknown) => caught);
    const read = await dynamo
      .send(
        new TransactGetCommand({
          TransactItems: [{ Get: { TableName: table(), Key: { pk: shared, sk: 'ROW#000000001' } } }],
        }),
      )
      .catch((caught: unknown) => caught);

    expect(transaction).toBeInstanceOf(TransactionCanceledException);
    expect(
      (transaction as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code),
    ).toEqual(['None', 'TransactionConflict']);
    expect(read).toBeInstanceOf(TransactionCanceledException);
    await expect(write).resolves.toBeDefined();
    expect(proxy.stats().conflicts.byOperation).toEqual({ TransactWriteItems: 1, TransactGetItems: 1 });
  });
});

describe('StrictAwsProxy: injected faults', () => {
  it("raises each fault as the SDK's own error after the default strategy's retries", async () => {
    const bucket = emulators.resources.bucketName;
    const queueUrl = emulators.resources.workQueueUrl;
    const getItem = (dynamo: DynamoDBDocumentClient) =>
      dynamo.send(new GetCommand({ TableName: table(), Key: { pk: 'NONE', sk: 'META' } }));
    const cases = [
      {
        faults: { dynamodb: { throughputExceeded: 1 } },
        kind: 'dynamodb.ProvisionedThroughputExceededException',
      },
      { faults: { dynamodb: { throttling: 1 } }, kind: 'dynamodb.ThrottlingException' },
      { faults: { dynamodb: { internalServerError: 1 } }, kind: 'dynamodb.InternalServerError' },
      { faults: { s3: { slowDown: 1 } }, kind: 's3.SlowDown' },
      { faults: { sqs: { internalFailure: 1 } }, kind: 'sqs.InternalFailure' },
    ] as const;

    const results = await Promise.all(
      cases.map(async ({ faults, kind }) => {
        const clients = await strictClients({ faults });
        const call = kind.startsWith('dynamodb')
          ? getItem(clients.dynamo)
          : kind === 's3.SlowDown'
            ? clients.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'anything' }))
            : clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{}' }));
        return { kind, error: await call.catch((caught: unknown) => caught), stats: clients.proxy.stats() };
      }),
    );

    const [throughput, throttling, internal, slowDown, sqsFailure] = results.map((result) => result.error);
    expect(throughput).toBeInstanceOf(ProvisionedThroughputExceededException);
    expect(throttling).toBeInstanceOf(ThrottlingException);
    expect(internal).toBeInstanceOf(InternalServerError);
    expect((internal as DynamoDBServiceException).$metadata.httpStatusCode).toBe(500);
    expect(slowDown).toBeInstanceOf(S3ServiceException);
    expect((slowDown as S3ServiceException).name).toBe('SlowDown');
    expect((slowDown as S3ServiceException).$metadata.httpStatusCode).toBe(503);
    expect(sqsFailure).toBeInstanceOf(SQSServiceException);
    expect((sqsFailure as SQSServiceException).name).toBe('InternalFailure');
    expect((sqsFailure as SQSServiceException).$metadata.httpStatusCode).toBe(500);
    for (const { kind, error, stats } of results) {
      // Every one of them is retried by the default strategy (this SDK's 2026 retry defaults: four attempts for
      // DynamoDB, three for the others), each attempt a counted fault, then raised.
      const attempts = kind.startsWith('dynamodb') ? 4 : 3;
      expect((error as { $metadata: { attempts?: number } }).$metadata.attempts, kind).toBe(attempts);
      expect(stats.faults, kind).toEqual({ total: attempts, byKind: { [kind]: attempts } });
    }
  });

  it('lets the default retries absorb a low fault rate, and counts every fault it injected', async () => {
    const { proxy, dynamo } = await strictClients({
      seed: 7,
      faults: { dynamodb: { internalServerError: 0.3 } },
    });
    let attempts = 0;
    let failures = 0;

    for (let index = 0; index < 30; index++) {
      try {
        const result = await dynamo.send(
          new PutCommand({ TableName: table(), Item: { pk: `LOW#${index}`, sk: 'META' } }),
        );
        attempts += result.$metadata.attempts ?? 1;
      } catch (error) {
        expect(error).toBeInstanceOf(InternalServerError);
        attempts += (error as InternalServerError).$metadata.attempts ?? 1;
        failures++;
      }
    }

    const stats = proxy.stats();
    expect(stats.requests['dynamodb.PutItem']).toBe(attempts);
    // Each injected fault cost one attempt; the requests that succeeded are the other attempts.
    expect(stats.faults.total).toBe(attempts - (30 - failures));
    expect(stats.faults.total).toBeGreaterThan(0);
    expect(failures).toBeLessThan(3);
  });

  it('injects the same faults for the same seed and order of requests', async () => {
    const pattern = async (seed: string) => {
      const { dynamo } = await strictClients(
        { seed, faults: { dynamodb: { internalServerError: 0.5 } } },
        { maxAttempts: 1 },
      );
      const outcomes: boolean[] = [];
      for (let index = 0; index < 30; index++)
        outcomes.push(
          await dynamo.send(new GetCommand({ TableName: table(), Key: { pk: 'NONE', sk: 'META' } })).then(
            () => true,
            () => false,
          ),
        );
      return outcomes;
    };

    const first = await pattern('same');
    expect(await pattern('same')).toEqual(first);
    expect(await pattern('other')).not.toEqual(first);
    expect(first).toContain(true);
    expect(first).toContain(false);
  });

  it('delivers sends twice at the configured rate (at-least-once), and counts the duplicates', async () => {
    const { proxy, sqs } = await strictClients({ faults: { sqs: { duplicateDelivery: 0.5 } } });
    const { QueueUrl } = await emulators.clients.sqs.send(
      new CreateQueueCommand({ QueueName: `dup-${uniqueId()}` }),
    );
    for (let index = 0; index < 10; index++)
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: `single ${index}` }));
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: Array.from({ length: 10 }, (_, index) => ({
          Id: String(index),
          MessageBody: `batch ${index}`,
        })),
      }),
    );

    const received: string[] = [];
    for (;;) {
      const page = await emulators.clients.sqs.send(
        new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      if (!page.Messages?.length) break;
      received.push(...page.Messages.map((message) => message.Body ?? ''));
    }

    const { duplicateDeliveries } = proxy.stats();
    expect(duplicateDeliveries).toBeGreaterThan(0);
    expect(received.length).toBe(20 + duplicateDeliveries);
    expect(new Set(received).size).toBe(20);
  });

  it('leaves S3 alone without faults: objects go through whole, HEAD lengths intact', async () => {
    const { proxy, s3 } = await strictClients({ faults: { dynamodb: { throttling: 1 } } });
    const bucket = emulators.resources.bucketName;
    const body = randomBytes(300_000).toString('hex');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'strict/object.txt', Body: body }));

    const read = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'strict/object.txt' }));

    expect(await read.Body?.transformToString()).toBe(body);
    expect(read.ContentLength).toBe(body.length);
    expect(proxy.stats().faults.total).toBe(0);
  });
});

describe('LocalServices in strict mode', () => {
  it('routes every client of the pipeline through the strict endpoint', async () => {
    const stack = await LocalServices.start(FAST_SETTINGS, {
      strict: { seed: 1 },
      sharedDynamoDb: sharedDynamoDb(),
    });
    try {
      await stack.clients.dynamo.send(
        new GetCommand({ TableName: stack.resources.tableName, Key: { pk: 'NONE', sk: 'META' } }),
      );
      await stack.clients.s3.send(
        new PutObjectCommand({ Bucket: stack.resources.bucketName, Key: 'strict.txt', Body: 'x' }),
      );
      await stack.clients.sqs.send(
        new SendMessageCommand({ QueueUrl: stack.resources.workQueueUrl, MessageBody: '{}' }),
      );

      expect(stack.strictStats()?.requests).toEqual({
        'dynamodb.GetItem': 1,
        's3.PutObject': 1,
        'sqs.SendMessage': 1,
      });
      expect(stack.endpoints.dynamodb).toBe(stack.endpoints.s3AndSqs);
    } finally {
      await stack.stop();
    }
    expect(emulators.strictStats()).toBeNull();
  }, 60_000);
});
