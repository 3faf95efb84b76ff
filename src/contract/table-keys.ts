/** The pipeline table's keys and indexes: what the construct builds, the local runner creates and the store reads. */

/** The DynamoDB table: one table for batches, their rows, reports and rate-limit buckets. */
export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds after which DynamoDB deletes an item (LGPD retention). */
  timeToLiveAttribute: 'expiresAt',
  /**
   * Sparse index of the rows a worker holds, per batch, by the time their claim runs out: only a claimed row has
   * both `batchId` and `claimExpiresAt` (a claim sets the lease, a settle or release removes it), so the sweeper
   * finds the claims that ran out with one query per batch, never a scan.
   */
  claimedRowsIndex: {
    name: 'claimed-rows',
    partitionKey: 'batchId',
    sortKey: 'claimExpiresAt',
    /** What the sweeper reads from the index besides the keys. */
    projected: ['row', 'document', 'claimToken'],
  },
} as const;

/**
 * Partition-key prefix of the audit log's items (`AUDIT#<documentKey>`): the construct denies every pipeline role
 * updates and deletes of items under it (IAM `dynamodb:LeadingKeys`), so the log is append-only; TTL expires it.
 */
export const AUDIT_KEY_PREFIX = 'AUDIT#';
