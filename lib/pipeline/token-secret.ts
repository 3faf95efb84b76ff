import { Annotations, Aws, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';

/** The bureau token's secret as the props give it: an existing secret (and its key), or none. */
export interface TokenSecretProps {
  readonly tokenSecret?: secretsmanager.ISecret;
  readonly tokenSecretKey?: kms.IKey;
}

/** The given secret, or a new one encrypted with the pipeline key whose value the operator sets after deploying. */
export function tokenSecretFor(
  scope: Construct,
  props: TokenSecretProps,
  key: kms.IKey,
): secretsmanager.ISecret {
  if (props.tokenSecret) return props.tokenSecret;
  const secret = new secretsmanager.Secret(scope, 'BureauToken', {
    description: 'credit-screen: Bearer token of the bureau account (set it after deploying)',
    encryptionKey: key,
  });
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'The token is issued in the bureau account area and cannot be rotated by a Lambda; it is replaced by hand.',
  });
  return secret;
}

/**
 * A given secret encrypted with its own customer-managed key also needs kms:Decrypt on that key, or the worker's
 * first bureau call fails with AccessDenied. A secret that carries its key got that grant from `grantRead`.
 * Without a key it may well use the AWS-managed `aws/secretsmanager` key, which needs no grant, so a missing key
 * is a warning (acknowledgeable), not an error: refusing would block the most common setup.
 */
export function grantTokenSecretKey(
  scope: Construct,
  worker: lambda.Function,
  props: TokenSecretProps,
): void {
  if (props.tokenSecretKey) {
    // An identity-policy statement: the key is not in this stack, so its key policy cannot be edited here (a
    // grant with kms.ViaServicePrincipal would be dropped silently). The key policy must delegate to IAM, as
    // the default key policy does.
    worker.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['kms:Decrypt'],
        resources: [props.tokenSecretKey.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `secretsmanager.${Aws.REGION}.amazonaws.com` } },
      }),
    );
  } else if (props.tokenSecret && !props.tokenSecret.encryptionKey) {
    Annotations.of(scope).addWarningV2(
      'credit-screen:tokenSecretKey',
      'tokenSecret is given without its KMS key: if a customer-managed key encrypts it, pass that key as ' +
        'tokenSecretKey (context tokenSecretKeyArn), or the worker cannot decrypt the token (AccessDenied at the ' +
        'first bureau call). Nothing is needed for the AWS-managed key aws/secretsmanager.',
    );
  }
}
