import { setTimeout as sleep } from 'node:timers/promises';
import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import pLimit from 'p-limit';
import {
  type DispatchMessage,
  type FinaliseMessage,
  messageGroupFor,
  type WorkMessage,
} from '../../domain/batch/index.ts';
import type { WorkQueue } from '../../domain/ports/index.ts';

export interface SqsWorkQueueConfig {
  readonly client: SQSClient;
  readonly workQueueUrl: string;
  readonly finaliseQueueUrl: string;
  /** The dispatcher's queue (ingest, approvals and the sweeper's renewals ask for dispatches); a worker may leave it out. */
  readonly dispatchQueueUrl?: string;
  /**
   * SendMessageBatch calls in flight at once.
   * @default 8
   */
  readonly parallelSends?: number;
  /**
   * Give each work message its fair-queue `MessageGroupId` (see core/batch/delivery-lane.ts). Off, every message is
   * sent without one, for a queue service that refuses message groups on a standard queue.
   * @default true
   */
  readonly fairQueues?: boolean;
}

const SQS_BATCH = 10;
const MAX_SEND_ATTEMPTS = 6;
/** SQS's longest `DelaySeconds`. */
const MAX_DELAY_SECONDS = 900;

export class SqsWorkQueue implements WorkQueue {
  readonly #client: SQSClient;
  readonly #workQueueUrl: string;
  readonly #finaliseQueueUrl: string;
  readonly #dispatchQueueUrl: string | undefined;
  readonly #limit: ReturnType<typeof pLimit>;
  readonly #fairQueues: boolean;

  constructor(config: SqsWorkQueueConfig) {
    if (config.workQueueUrl === '' || config.finaliseQueueUrl === '')
      throw new Error('SqsWorkQueue needs both queue URLs');
    this.#client = config.client;
    this.#workQueueUrl = config.workQueueUrl;
    this.#finaliseQueueUrl = config.finaliseQueueUrl;
    this.#dispatchQueueUrl = config.dispatchQueueUrl;
    this.#limit = pLimit(config.parallelSends ?? 8);
    this.#fairQueues = config.fairQueues ?? true;
  }

  async sendWork(messages: readonly WorkMessage[]): Promise<void> {
    await this.#sendAll(this.#workQueueUrl, messages, (message) =>
      this.#fairQueues ? messageGroupFor(message) : undefined,
    );
  }

  async sendDispatch(messages: readonly DispatchMessage[]): Promise<void> {
    if (this.#dispatchQueueUrl === undefined || this.#dispatchQueueUrl === '')
      throw new Error('SqsWorkQueue was given no dispatch queue URL');
    await this.#sendAll(this.#dispatchQueueUrl, messages, () => undefined);
  }

  async #sendAll<Message>(
    queueUrl: string,
    messages: readonly Message[],
    groupOf: (message: Message) => string | undefined,
  ): Promise<void> {
    const sends: Promise<void>[] = [];
    for (let start = 0; start < messages.length; start += SQS_BATCH) {
      const slice = messages.slice(start, start + SQS_BATCH);
      sends.push(this.#limit(() => this.#sendBatch(queueUrl, slice, groupOf)));
    }
    await Promise.all(sends);
  }

  /** Sends ten messages, resending the entries SQS reports as failed (a batch can partly fail). */
  async #sendBatch<Message>(
    queueUrl: string,
    messages: readonly Message[],
    groupOf: (message: Message) => string | undefined,
  ): Promise<void> {
    let pending = messages.map((message, index) => {
      const group = groupOf(message);
      return {
        Id: String(index),
        MessageBody: JSON.stringify(message),
        ...(group === undefined ? {} : { MessageGroupId: group }),
      };
    });
    for (let attempt = 1; pending.length > 0; attempt++) {
      const result = await this.#client.send(
        new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending }),
      );
      const failed = new Set((result.Failed ?? []).map((entry) => entry.Id));
      pending = pending.filter((entry) => failed.has(entry.Id));
      if (pending.length > 0 && attempt >= MAX_SEND_ATTEMPTS) {
        throw new Error(
          `SQS refused ${pending.length} messages after ${attempt} attempts: ${result.Failed?.[0]?.Message ?? 'no reason'}`,
        );
      }
      if (pending.length > 0) await sleep(50 * 2 ** attempt);
    }
  }

  async deferWork(message: WorkMessage, delaySeconds: number): Promise<void> {
    const group = this.#fairQueues ? messageGroupFor(message) : undefined;
    await this.#client.send(
      new SendMessageCommand({
        QueueUrl: this.#workQueueUrl,
        MessageBody: JSON.stringify(message),
        DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.round(delaySeconds))),
        ...(group === undefined ? {} : { MessageGroupId: group }),
      }),
    );
  }

  async sendFinalise(message: FinaliseMessage): Promise<void> {
    await this.#client.send(
      new SendMessageCommand({ QueueUrl: this.#finaliseQueueUrl, MessageBody: JSON.stringify(message) }),
    );
  }
}
