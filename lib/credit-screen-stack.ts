import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { S3_LAYOUT } from '../src/contract/index.ts';
import { CreditScreenPipeline, type CreditScreenPipelineProps } from './credit-screen-pipeline.ts';

export interface CreditScreenStackProps extends StackProps {
  readonly pipeline: Omit<CreditScreenPipelineProps, 'tokenSecret' | 'tokenSecretKey'>;
  /**
   * ARN of an existing secret holding the bureau token.
   * @default the pipeline creates a secret to fill in after deploying
   */
  readonly tokenSecretArn?: string;
  /**
   * ARN of the customer-managed KMS key that encrypts the secret of `tokenSecretArn` (not needed for the
   * AWS-managed key `aws/secretsmanager`).
   * @default none
   */
  readonly tokenSecretKeyArn?: string;
}

/** A deployable stack with one pipeline; its outputs are what `credit-screen submit --stack` reads. */
export class CreditScreenStack extends Stack {
  readonly pipeline: CreditScreenPipeline;

  constructor(scope: Construct, id: string, props: CreditScreenStackProps) {
    super(scope, id, props);
    const tokenSecret = props.tokenSecretArn
      ? secretsmanager.Secret.fromSecretCompleteArn(this, 'BureauTokenSecret', props.tokenSecretArn)
      : undefined;
    const tokenSecretKey = props.tokenSecretKeyArn
      ? kms.Key.fromKeyArn(this, 'BureauTokenSecretKey', props.tokenSecretKeyArn)
      : undefined;
    this.pipeline = new CreditScreenPipeline(this, 'Pipeline', {
      ...props.pipeline,
      tokenSecret,
      tokenSecretKey,
    });
    const output = (name: string, value: string, description: string) =>
      new CfnOutput(this, name, { value, description });
    output(
      'BucketName',
      this.pipeline.bucket.bucketName,
      `Upload lists under ${S3_LAYOUT.incoming}<a|b>/; results under ${S3_LAYOUT.results}<batchId>/`,
    );
    output('TableName', this.pipeline.table.tableName, 'Batches, rows and reports');
    output('WorkQueueUrl', this.pipeline.workQueue.queueUrl, 'One message per document to screen');
    output('FinaliseQueueUrl', this.pipeline.finaliseQueue.queueUrl, 'One message per batch to finalise');
    output('DispatchQueueUrl', this.pipeline.dispatchQueue.queueUrl, 'Parts of batches whose rows to send');
    output('TokenSecretArn', this.pipeline.tokenSecret.secretArn, 'Put the bureau token here');
    output(
      'AuditKeySecretArn',
      this.pipeline.auditKeySecret.secretArn,
      'The HMAC key that names documents in the audit log (credit-screen audit reads it)',
    );
    output(
      'EventBusName',
      this.pipeline.eventBus.eventBusName,
      'Where the pipeline announces batches, budgets, policies and overrides (credit-screen override publishes here)',
    );
    const { console: consoleParts } = this.pipeline;
    if (consoleParts) {
      if (consoleParts.site)
        output(
          'ConsoleUrl',
          consoleParts.site.url,
          'The console: sign in here (people are added to the user pool)',
        );
      output(
        'ConsoleApiUrl',
        consoleParts.api.apiEndpoint,
        'The console API (every route but /api/openapi.json needs a sign-in)',
      );
      output(
        'ConsoleUserPoolId',
        consoleParts.userPool.userPoolId,
        'Add people here, in the group of their role',
      );
      output(
        'ConsoleUserPoolClientId',
        consoleParts.userPoolClient.userPoolClientId,
        'The console pages sign in with it',
      );
    }
  }
}
