import {
  ReceiveMessageCommand,
  type ReceiveMessageCommandOutput,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsWorkQueue } from '../../../src/adapters/aws/sqs-work-queue.ts';
import type { WorkMessage } from '../../../src/domain/batch/index.ts';

/** An SQS client that records what it is asked to send and accepts all of it. */
function recordingClient() {
  const sent: SendMessageBatchCommand['input'][] = [];
  const client = {
    send: async (command: unknown) => {
      if (!(command instanceof SendMessageBatchCommand)) throw new Error('unexpected command');
      sent.push(command.input);
      return { Successful: command.input.Entries?.map((entry) => ({ Id: entry.Id })), Failed: [] };
    },
  } as unknown as SQSClient;
  return { client, sent };
}

const message = (overrides: Partial<WorkMessage>): WorkMessage => ({
  version: 1,
  batchId: 'batch-1',
  row: 2,
  document: '52998224725',
  bureau: 'a',
  ...overrides,
});

const queueFor = (client: SQSClient, fairQueues?: boolean, workQueueUrl = 'http://queue/work') =>
  new SqsWorkQueue({ client, workQueueUrl, finaliseQueueUrl: 'http://queue/final', fairQueues });

describe('SqsWorkQueue', () => {
  it("sends each work message with its lane's fair-queue group, none for priority", async () => {
    const { client, sent } = recordingClient();

    await queueFor(client).sendWork([
      message({ lane: 'upload', batchId: 'upload-batch' }),
      message({ lane: 'priority', row: 3 }),
      message({ lane: 'scheduled', row: 4 }),
    ]);

    const groups = sent.flatMap((input) => input.Entries ?? []).map((entry) => entry.MessageGroupId);
    expect(groups).toEqual(['upload-batch', undefined, 'scheduled-a']);
  });

  it('sends no group at all with fair queues off', async () => {
    const { client, sent } = recordingClient();

    await queueFor(client, false).sendWork([message({ lane: 'upload' })]);

    expect(sent[0]?.Entries?.[0]).not.toHaveProperty('MessageGroupId');
  });
});

describe('fauxqs, the local SQS', () => {
  let server: FauxqsServer;
  beforeAll(async () => {
    server = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('accepts a message group on a standard queue but keeps none (so the local event source orders fairly itself)', async () => {
    const sqs = new SQSClient({
      endpoint: `http://127.0.0.1:${server.port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const { queueUrl } = server.createQueue('standard');

    await queueFor(sqs, true, queueUrl).sendWork([message({ lane: 'upload' })]);
    const received: ReceiveMessageCommandOutput = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MessageSystemAttributeNames: ['All'] }),
    );

    expect(received.Messages).toHaveLength(1);
    expect(received.Messages?.[0]?.Attributes?.MessageGroupId).toBeUndefined();
    sqs.destroy();
  });
});
