import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Annotations, Stack, Validations } from 'aws-cdk-lib';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import type { Construct } from 'constructs';
import { checkPolicyStructure } from '../../src/adapters/decision/zen-credit-policy.ts';
import { isPolicyName, S3_LAYOUT } from '../../src/contract/index.ts';

/** A credit policy file the deployment ships to `policies/`. */
export interface PolicyFile {
  /** Path of the JDM file on the machine that synthesizes. */
  readonly file: string;
  /**
   * Its name under `policies/`, as uploads, portfolios and `defaultPolicy` name it.
   * @default the file's own name
   */
  readonly name?: string;
}

/** A shipped policy that compiled at synth: its name and exact bytes. */
export interface ShippedPolicy {
  readonly name: string;
  readonly text: string;
}

/**
 * Compiles every shipped policy with the engine the functions evaluate it with, so a policy that is not JSON, not
 * JDM, has a cell that does not compile or gives no decision fails `cdk synth` with one line naming the file and
 * the node, never the first batch it was meant to decide. What a policy reads that the decision input lacks is a
 * synth warning.
 */
export function compileShippedPolicies(scope: Construct, files: readonly PolicyFile[]): ShippedPolicy[] {
  const seen = new Set<string>();
  return files.map(({ file, name = basename(file) }) => {
    if (!isPolicyName(name))
      throw new Error(
        `CreditScreenPipeline: policy name ${JSON.stringify(name)} is not a policy file name (name.json)`,
      );
    if (seen.has(name)) throw new Error(`CreditScreenPipeline: policy ${name} is shipped twice`);
    seen.add(name);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new Error(
        `CreditScreenPipeline: policy file ${file} cannot be read (${(error as Error).message})`,
      );
    }
    // Loaded under its path, so the one line names the file the operator edits (and the node, as always).
    const checked = checkPolicyStructure(file, text);
    if (!checked.ok) throw new Error(`CreditScreenPipeline: policy file ${checked.error}`);
    for (const warning of checked.warnings)
      Annotations.of(scope).addWarningV2('credit-screen:policyField', `${file}: ${warning}`);
    return { name, text };
  });
}

/**
 * Warns at synth about each policy named (the default, a declared portfolio's) that the deployment does not ship:
 * it must be uploaded to `policies/` before an upload relies on it, or that upload is refused unscreened.
 */
export function warnOfPoliciesNotShipped(
  scope: Construct,
  named: readonly { readonly by: string; readonly policy: string | null | undefined }[],
  shipped: readonly ShippedPolicy[],
): void {
  for (const { by, policy } of named) {
    if (policy === null || policy === undefined || shipped.some((file) => file.name === policy)) continue;
    Annotations.of(scope).addWarningV2(
      'credit-screen:policyNotShipped',
      `${by} names the policy ${policy}, which this deployment does not ship (policies prop): upload ${S3_LAYOUT.policies}${policy} before relying on it, or its uploads are refused (policy_not_found)`,
    );
  }
}

/**
 * Copies the shipped policies to `policies/` when the stack deploys, over what is there and keeping every other
 * policy (operators upload theirs beside them); the bucket's versioning keeps each earlier copy, and the policy
 * check judges each new one as it would any upload.
 */
export function shipPolicies(
  scope: Construct,
  bucket: s3.Bucket,
  shipped: readonly ShippedPolicy[],
): s3deploy.BucketDeployment | undefined {
  if (shipped.length === 0) return undefined;
  const deployment = new s3deploy.BucketDeployment(scope, 'Policies', {
    sources: shipped.map((policy) => s3deploy.Source.data(policy.name, policy.text)),
    destinationBucket: bucket,
    destinationKeyPrefix: S3_LAYOUT.policies,
    prune: false,
    retainOnDelete: true,
    contentType: 'application/json',
  });
  acknowledgeDeploymentHandler(Stack.of(scope), bucket);
  return deployment;
}

/** CDK's own function that copies assets into a bucket when the stack deploys (one per stack). */
export function acknowledgeDeploymentHandler(stack: Stack, bucket: s3.Bucket): void {
  const handler = stack.node.tryFindChild('Custom::CDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C');
  if (handler === undefined) return;
  const reasons: Readonly<Record<string, string>> = {
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]':
      'CDK custom resource that copies the shipped policies at deploy; basic execution role for its logs only.',
    'AwsSolutions-L1':
      'CDK custom resource (BucketDeployment) whose Python runtime CDK chooses and upgrades with aws-cdk-lib.',
  };
  for (const [id, reason] of Object.entries(reasons)) Validations.of(handler).acknowledge({ id, reason });
  for (const finding of [
    'Action::s3:GetObject*',
    'Action::s3:GetBucket*',
    'Action::s3:List*',
    'Action::s3:DeleteObject*',
    'Action::s3:Abort*',
    'Action::kms:ReEncrypt*',
    'Action::kms:GenerateDataKey*',
    'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
    `Resource::<${stack.getLogicalId(bucket.node.defaultChild as never)}.Arn>/*`,
  ])
    Validations.of(handler).acknowledge({
      id: `AwsSolutions-IAM5[${finding}]`,
      reason:
        'Generated by CDK for BucketDeployment, which runs only while the stack deploys: it reads the CDK asset bucket ' +
        'and writes the buckets it deploys to (the shipped policies, with prune off; the console pages, in their own ' +
        'bucket).',
    });
}
