import { setTimeout as sleep } from 'node:timers/promises';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type FairQueueBehaviour, FairQueueBuffer, type FairQueueTicket } from './fair-queue-buffer.ts';

/**
 * The queue is an SQS fair queue, whose order the emulator lacks: the event source reproduces it. It receives
 * every ready message as soon as it arrives and holds it (invisible, for up to SQS's longest visibility timeout)
 * in a {@link FairQueueBuffer}, which picks each invocation's messages in the fair queue's order. A message handed
 * to the handler gets the queue's visibility timeout from then on, as if it had just been received: retries,
 * receive counts and the dead-letter redrive behave as with Lambda's event source.
 */
export interface FairQueueEmulation {
  readonly behaviour: FairQueueBehaviour;
  /** The message's `MessageGroupId`, read from its body (fauxqs drops the attribute on a standard queue). */
  readonly tenantOf: (body: string) => string | undefined;
  /** The queue's visibility timeout, which a message gets when it is handed to the handler. */
  readonly visibilityTimeoutSeconds: number;
}

/** SQS's longest visibility timeout: how long a message waits invisible in the fair buffer at most. */
const HOLD_SECONDS = 12 * 60 * 60;
const IDLE_POLL_MS = 20;

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
  /** Set for a fair queue: the order of delivery AWS gives it (see {@link FairQueueEmulation}). */
  readonly fairQueue?: FairQueueEmulation;
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
  readonly #fair: FairQueueBuffer<Message> | null;

  constructor(options: SqsEventSourceOptions) {
    this.#options = options;
    this.#fair = options.fairQueue ? new FairQueueBuffer<Message>(options.fairQueue.behaviour) : null;
  }

  /** Invocations so far (for tests and progress). */
  get invocations(): number {
    return this.#invocations;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    const fair = this.#fair;
    this.#loops =
      fair === null
        ? Array.from({ length: this.#options.maxConcurrency }, () => this.#poll())
        : [
            this.#fill(fair),
            ...Array.from({ length: this.#options.maxConcurrency }, () => this.#pollFair(fair)),
          ];
  }

  /** Stops polling and waits for the invocations under way to finish. */
  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#loops);
    // Messages the fair buffer still held go back to the queue at once, as they were never received.
    if (this.#fair !== null) await this.#changeVisibility(this.#fair.drain(), 0).catch(() => undefined);
  }

  /** Fair queue: receives every message as it arrives into the buffer, which decides the order. */
  async #fill(fair: FairQueueBuffer<Message>): Promise<void> {
    const { sqs, queueUrl, fairQueue } = this.#options;
    while (this.#running) {
      try {
        const response = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            VisibilityTimeout: HOLD_SECONDS,
            MessageSystemAttributeNames: ['All'],
          }),
        );
        for (const message of response.Messages ?? [])
          fair.add(message, fairQueue?.tenantOf(message.Body ?? ''));
      } catch (error) {
        if (!this.#running) return;
        this.#options.onInvocationError?.(error);
        await sleep(500);
      }
    }
  }

  /** Fair queue: one concurrent invocation's loop, taking its batches from the buffer in the fair order. */
  async #pollFair(fair: FairQueueBuffer<Message>): Promise<void> {
    const { batchSize, fairQueue } = this.#options;
    while (this.#running) {
      if (fair.waiting === 0) {
        await sleep(IDLE_POLL_MS);
        continue;
      }
      // Like Lambda's event source: wait for a full batch until the batching window has passed.
      const windowEnds = Date.now() + (this.#options.batchingWindowSeconds ?? 0) * 1000;
      while (this.#running && fair.waiting < batchSize && Date.now() < windowEnds) await sleep(IDLE_POLL_MS);
      const tickets: FairQueueTicket<Message>[] = fair.take(batchSize);
      if (tickets.length === 0) continue;
      try {
        const messages = tickets.map((ticket) => ticket.item);
        await this.#changeVisibility(messages, fairQueue?.visibilityTimeoutSeconds ?? 30);
        await this.#invoke(messages);
      } catch (error) {
        this.#options.onInvocationError?.(error);
      } finally {
        fair.done(tickets);
      }
    }
  }

  async #changeVisibility(messages: readonly Message[], seconds: number): Promise<void> {
    const { sqs, queueUrl } = this.#options;
    for (let start = 0; start < messages.length; start += 10) {
      await sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.slice(start, start + 10).map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle ?? '',
            VisibilityTimeout: seconds,
          })),
        }),
      );
    }
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
          if (messages.length === 0 && received.length > 0) await sleep(20);
        } while (
          this.#running &&
          received.length > 0 &&
          received.length < batchSize &&
          Date.now() < windowEnds
        );
      } catch (error) {
        if (!this.#running) return;
        this.#options.onInvocationError?.(error);
        await sleep(500);
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
