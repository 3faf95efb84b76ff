/**
 * AWS list prices (on-demand, no free tier) of what the pipeline uses, for the two regions it is quoted in. A price
 * change is one edit here, then `npm run costs`. Recorded from AWS's public price pages (DynamoDB on-demand after
 * its November 2024 reduction); check the AWS Pricing Calculator before quoting a customer.
 */
export interface RegionPrices {
  readonly region: string;
  readonly name: string;
  /** US$ per million write request units / read request units (DynamoDB on-demand, Standard table class). */
  readonly dynamodbWritePerMillion: number;
  readonly dynamodbReadPerMillion: number;
  /** US$ per GB-month of table storage, and of continuous backups (point-in-time recovery). */
  readonly dynamodbStoragePerGbMonth: number;
  readonly dynamodbBackupPerGbMonth: number;
  /** US$ per GB-month of S3 Standard, and per thousand requests of each tier. */
  readonly s3StoragePerGbMonth: number;
  readonly s3TierOnePerThousand: number;
  readonly s3TierTwoPerThousand: number;
  /** US$ per GB-second of Lambda by processor, and per million requests. */
  readonly lambdaArmPerGbSecond: number;
  readonly lambdaX86PerGbSecond: number;
  readonly lambdaRequestsPerMillion: number;
  /** US$ per million SQS standard-queue requests (64 KB each). */
  readonly sqsPerMillion: number;
  /** US$ per million custom events put on a bus. */
  readonly eventBridgePerMillion: number;
  /** US$ per customer-managed key a month, and per ten thousand requests. */
  readonly kmsKeyPerMonth: number;
  readonly kmsPerTenThousand: number;
  /** US$ per standard-resolution alarm a month. */
  readonly cloudWatchAlarmPerMonth: number;
  /** US$ per secret a month. */
  readonly secretPerMonth: number;
}

export const AWS_PRICES: readonly RegionPrices[] = [
  {
    region: 'us-east-1',
    name: 'N. Virginia',
    dynamodbWritePerMillion: 0.625,
    dynamodbReadPerMillion: 0.125,
    dynamodbStoragePerGbMonth: 0.25,
    dynamodbBackupPerGbMonth: 0.2,
    s3StoragePerGbMonth: 0.023,
    s3TierOnePerThousand: 0.005,
    s3TierTwoPerThousand: 0.0004,
    lambdaArmPerGbSecond: 0.0000133334,
    lambdaX86PerGbSecond: 0.0000166667,
    lambdaRequestsPerMillion: 0.2,
    sqsPerMillion: 0.4,
    eventBridgePerMillion: 1,
    kmsKeyPerMonth: 1,
    kmsPerTenThousand: 0.03,
    cloudWatchAlarmPerMonth: 0.1,
    secretPerMonth: 0.4,
  },
  {
    region: 'sa-east-1',
    name: 'São Paulo',
    dynamodbWritePerMillion: 0.9375,
    dynamodbReadPerMillion: 0.1875,
    dynamodbStoragePerGbMonth: 0.375,
    dynamodbBackupPerGbMonth: 0.3,
    s3StoragePerGbMonth: 0.0405,
    s3TierOnePerThousand: 0.007,
    s3TierTwoPerThousand: 0.00056,
    lambdaArmPerGbSecond: 0.0000170001,
    lambdaX86PerGbSecond: 0.0000212501,
    lambdaRequestsPerMillion: 0.2,
    sqsPerMillion: 0.5,
    eventBridgePerMillion: 1,
    kmsKeyPerMonth: 1,
    kmsPerTenThousand: 0.03,
    cloudWatchAlarmPerMonth: 0.15,
    secretPerMonth: 0.4,
  },
];
