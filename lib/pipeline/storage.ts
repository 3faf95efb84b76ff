import { Aws, Duration, Fn, Names, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import {
  EXPIRING_PREFIXES,
  FINALISE_PARTS_EXPIRY_DAYS,
  type PipelineSettings,
  S3_LAYOUT,
  TABLE,
} from '../../src/contract/index.ts';

/** Where the pipeline keeps its data: one key encrypts all of it. */
export interface PipelineStorage {
  readonly key: kms.Key;
  /** The name prefix of the functions' log groups, which the key policy lets CloudWatch Logs use the key for. */
  readonly logGroupPrefix: string;
  readonly accessLogsBucket: s3.Bucket;
  readonly bucket: s3.Bucket;
  readonly table: dynamodb.Table;
}

/** The key, the buckets and the table, in `scope` (the pipeline), under the ids the template has always had. */
export function createStorage(
  scope: Construct,
  settings: PipelineSettings,
  removalPolicy: RemovalPolicy,
): PipelineStorage {
  const key = new kms.Key(scope, 'Key', {
    description: 'credit-screen: customer lists, reports and queues (personal data under LGPD)',
    enableKeyRotation: true,
    removalPolicy,
  });
  const logGroupPrefix = allowLogsToUseKey(scope, key);
  const accessLogsBucket = createAccessLogsBucket(scope, settings, removalPolicy);
  const expire = (prefix: string) => ({ prefix, expiration: Duration.days(settings.retentionDays) });
  const bucket = new s3.Bucket(scope, 'Bucket', {
    encryption: s3.BucketEncryption.KMS,
    encryptionKey: key,
    bucketKeyEnabled: true,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    versioned: false,
    serverAccessLogsBucket: accessLogsBucket,
    serverAccessLogsPrefix: 'pipeline-bucket/',
    lifecycleRules: [
      ...EXPIRING_PREFIXES.map(expire),
      // A finalisation's parts live minutes; any a stopped join left go soon, whatever the retention.
      { prefix: S3_LAYOUT.finaliseParts, expiration: Duration.days(FINALISE_PARTS_EXPIRY_DAYS) },
      { abortIncompleteMultipartUploadAfter: Duration.days(1) },
    ],
    removalPolicy,
  });
  const table = createTable(scope, key, removalPolicy);
  return { key, logGroupPrefix, accessLogsBucket, bucket, table };
}

function createAccessLogsBucket(
  scope: Construct,
  settings: PipelineSettings,
  removalPolicy: RemovalPolicy,
): s3.Bucket {
  const accessLogsBucket = new s3.Bucket(scope, 'AccessLogs', {
    // S3 server access logs cannot be delivered to a KMS-encrypted bucket.
    encryption: s3.BucketEncryption.S3_MANAGED,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
    lifecycleRules: [{ expiration: Duration.days(settings.retentionDays) }],
    removalPolicy,
  });
  Validations.of(accessLogsBucket).acknowledge({
    id: 'AwsSolutions-S1',
    reason: 'This is the access-log bucket itself; logging it into itself would loop.',
  });
  return accessLogsBucket;
}

function createTable(scope: Construct, key: kms.Key, removalPolicy: RemovalPolicy): dynamodb.Table {
  // The classic Table: TableV2's customer-managed key needs a region, and the stack stays region-agnostic.
  const table = new dynamodb.Table(scope, 'Table', {
    partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: TABLE.sortKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
    encryptionKey: key,
    timeToLiveAttribute: TABLE.timeToLiveAttribute,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    removalPolicy,
  });
  const claimedRows = TABLE.claimedRowsIndex;
  table.addGlobalSecondaryIndex({
    indexName: claimedRows.name,
    partitionKey: { name: claimedRows.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: claimedRows.sortKey, type: dynamodb.AttributeType.NUMBER },
    projectionType: dynamodb.ProjectionType.INCLUDE,
    nonKeyAttributes: [...claimedRows.projected],
  });
  return table;
}

/**
 * CloudWatch Logs encrypts a log group with a customer-managed key only if the key policy lets the regional logs
 * principal use it for that log group; CDK adds no such statement, and without it the first log group fails
 * to create and the stack rolls back. The log groups get names under a prefix of their own (the stack's name,
 * its creation id, so a retained group of an earlier deployment never clashes, and this construct's id), so the
 * statement can name them before they exist: their ARNs cannot appear in the key policy, which they depend on.
 * Returns that prefix.
 */
function allowLogsToUseKey(scope: Construct, key: kms.Key): string {
  const stackId = Fn.select(2, Fn.split('/', Aws.STACK_ID));
  const prefix = `/credit-screen/${Aws.STACK_NAME}/${stackId}/${Names.uniqueId(scope)}/`;
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowCloudWatchLogsForThePipelineLogGroups',
      principals: [new iam.ServicePrincipal(`logs.${Aws.REGION}.amazonaws.com`)],
      actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
      resources: ['*'],
      conditions: {
        ArnLike: {
          'kms:EncryptionContext:aws:logs:arn': `arn:${Aws.PARTITION}:logs:${Aws.REGION}:${Aws.ACCOUNT_ID}:log-group:${prefix}*`,
        },
      },
    }),
  );
  return prefix;
}
