import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TokenProbes } from '../../domain/ports/index.ts';
import { batchKey, type PipelineTable } from './dynamodb-pipeline-table.ts';

/** The token probe of each batch, on its `META` item: one request at a time until the token has worked once. */
export class DynamoDbTokenProbes implements TokenProbes {
  readonly #db: PipelineTable;

  constructor(table: PipelineTable) {
    this.#db = table;
  }

  async acquireTokenProbe(batchId: string, leaseSeconds: number): Promise<boolean> {
    const now = this.#db.now();
    return this.#db.conditionally(() =>
      this.#db.client.send(
        new UpdateCommand({
          TableName: this.#db.tableName,
          Key: batchKey(batchId),
          UpdateExpression: 'SET probeLeaseUntil = :until',
          ConditionExpression:
            'tokenState = :unverified AND (attribute_not_exists(probeLeaseUntil) OR probeLeaseUntil < :now)',
          ExpressionAttributeValues: {
            ':until': now + leaseSeconds * 1000,
            ':unverified': 'unverified',
            ':now': now,
          },
        }),
      ),
    );
  }

  async markToken(batchId: string, state: 'verified' | 'rejected'): Promise<void> {
    await this.#db.conditionally(() =>
      this.#db.client.send(
        new UpdateCommand({
          TableName: this.#db.tableName,
          Key: batchKey(batchId),
          UpdateExpression: 'SET tokenState = :state REMOVE probeLeaseUntil',
          // A rejection is final: a late success of another request must not undo it.
          ConditionExpression: state === 'verified' ? 'tokenState <> :rejected' : 'attribute_exists(pk)',
          ExpressionAttributeValues: {
            ':state': state,
            ...(state === 'verified' ? { ':rejected': 'rejected' } : {}),
          },
        }),
      ),
    );
  }

  async releaseTokenProbe(batchId: string): Promise<void> {
    await this.#db.client.send(
      new UpdateCommand({
        TableName: this.#db.tableName,
        Key: batchKey(batchId),
        UpdateExpression: 'REMOVE probeLeaseUntil',
      }),
    );
  }
}
