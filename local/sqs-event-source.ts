import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

export interface SqsEventSourceOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  /** Messages per invocation (the event source's BatchSize). */
  readonly batchSize: number;
  /** Invocations at once (the event source's MaximumConcurrency). */
  readonly maxConcurrency: number;
  /**
   * Longest wait to fill a batch before invoking with fewer messages (MaximumBatchingWindowInSeconds).
   * @default 0
   */
  readonly batchingWindowSeconds?: number;
  /** The function's timeout: handlers get a context whose remaining time counts down from it. */
  readonly functionTimeoutSeconds: number;
  readonly handler: (
    event: SQSEvent,
    context: { getRemainingTimeInMillis(): number },
  ) => Promise<SQSBatchResponse | undefined>;
  /** Called when an invocation throws (every message of its batch then returns after its visibility timeout). */
  readonly onInvocationError?: (error: unknown) => void;
}

/**
 * Gives a handler SQS batches the way Lambda's SQS event source does: up to `batchSize` messages per invocation, at
 * most `maxConcurrency` invocations at once, and with ReportBatchItemFailures: messages the handler names as failed
 * stay in the queue (visible again after their visibility timeout), the rest are deleted; if the invocation throws,
 * none is deleted.
 */
export class SqsEventSource {
  readonly #options: SqsEventSourceOptions;
  #running = false;
  #loops: Promise<void>[] = [];
  #invocations = 0;

  constructor(options: SqsEventSourceOptions) {
    this.#options = options;
  }

  /** Invocations so far (for tests and progress). */
  get invocations(): number {
    return this.#invocations;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loops = Array.from({ length: this.#options.maxConcurrency }, () => this.#poll());
  }

  /** Stops polling and waits for the invocations under way to finish. */
  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#loops);
  }

  async #poll(): Promise<void> {
    const { sqs, queueUrl, batchSize } = this.#options;
    while (this.#running) {
      const received: Message[] = [];
      try {
        // Like Lambda's event source: keep receiving until the batch is full or the batching window has passed.
        const windowEnds = Date.now() + (this.#options.batchingWindowSeconds ?? 0) * 1000;
        do {
          const response = await sqs.send(
            new ReceiveMessageCommand({
              QueueUrl: queueUrl,
              MaxNumberOfMessages: batchSize - received.length,
              WaitTimeSeconds: received.length === 0 ? 1 : 0,
              MessageSystemAttributeNames: ['All'],
            }),
          );
          const messages = response.Messages ?? [];
          received.push(...messages);
          if (messages.length === 0 && received.length > 0)
            await new Promise((resolve) => setTimeout(resolve, 20));
        } while (
          this.#running &&
          received.length > 0 &&
          received.length < batchSize &&
          Date.now() < windowEnds
        );
      } catch (error) {
        if (!this.#running) return;
        this.#options.onInvocationError?.(error);
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      if (received.length === 0) continue;
      await this.#invoke(received);
    }
  }

  async #invoke(received: Message[]): Promise<void> {
    const { sqs, queueUrl, handler, functionTimeoutSeconds } = this.#options;
    this.#invocations++;
    const records: SQSRecord[] = received.map((message) => ({
      messageId: message.MessageId ?? '',
      receiptHandle: message.ReceiptHandle ?? '',
      body: message.Body ?? '',
      attributes: {
        ApproximateReceiveCount: message.Attributes?.ApproximateReceiveCount ?? '1',
        SentTimestamp: message.Attributes?.SentTimestamp ?? String(Date.now()),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp:
          message.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: message.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queueUrl.split('/').pop()}`,
      awsRegion: 'us-east-1',
    }));
    const deadline = Date.now() + functionTimeoutSeconds * 1000;
    let failed: Set<string>;
    try {
      const response = await handler(
        { Records: records },
        { getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) },
      );
      failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      this.#options.onInvocationError?.(error);
      return;
    }
    const done = records.filter((record) => !failed.has(record.messageId));
    if (done.length === 0) return;
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: done.map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle })),
      }),
    );
  }
}
