import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { MessageVisibility } from '../../domain/ports/index.ts';

/** SQS visibility caps at 12 hours. */
const MAX_VISIBILITY_SECONDS = 43_200;

export class SqsMessageVisibility implements MessageVisibility {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async delay(receiptHandle: string, seconds: number): Promise<void> {
    await this.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: Math.min(MAX_VISIBILITY_SECONDS, Math.max(0, Math.round(seconds))),
      }),
    );
  }
}
