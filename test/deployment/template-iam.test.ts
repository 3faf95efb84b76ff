import { describe, expect, it } from 'vitest';
import type { Template } from '../../cli/local/cloud-assembly.ts';
import { TemplateIam } from './iam-evaluation.ts';
import type { RecordedCall } from './recording-proxy.ts';
import { TemplateResolutionError, TemplateResolver } from './template-resolver.ts';

/** A small template: a KMS-encrypted bucket and queue, one function whose role may write one prefix. */
function template(): Template {
  const keyArn = { 'Fn::GetAtt': ['Key', 'Arn'] };
  return {
    Resources: {
      Key: {
        Type: 'AWS::KMS::Key',
        // What CDK writes: the account's IAM policies decide (without it, KMS ignores them).
        Properties: {
          KeyPolicy: {
            Statement: [
              {
                Effect: 'Allow',
                // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub syntax
                Principal: { AWS: { 'Fn::Sub': 'arn:aws:iam::${AWS::AccountId}:root' } },
                Action: 'kms:*',
                Resource: '*',
              },
            ],
          },
        },
      },
      Bucket: {
        Type: 'AWS::S3::Bucket',
        Properties: {
          BucketEncryption: {
            ServerSideEncryptionConfiguration: [
              { ServerSideEncryptionByDefault: { KMSMasterKeyID: keyArn } },
            ],
          },
        },
      },
      Queue: { Type: 'AWS::SQS::Queue', Properties: { KmsMasterKeyId: keyArn } },
      Role: { Type: 'AWS::IAM::Role', Properties: {} },
      Policy: {
        Type: 'AWS::IAM::Policy',
        Properties: {
          Roles: [{ Ref: 'Role' }],
          PolicyDocument: {
            Statement: [
              {
                Effect: 'Allow',
                Action: 's3:PutObject',
                Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Bucket', 'Arn'] }, '/results/*']] },
              },
              { Effect: 'Allow', Action: 'kms:GenerateDataKey*', Resource: keyArn },
            ],
          },
        },
      },
      Function: { Type: 'AWS::Lambda::Function', Properties: { Role: { 'Fn::GetAtt': ['Role', 'Arn'] } } },
    },
  };
}

const resolver = (of = template()) =>
  new TemplateResolver(of, {
    byLogicalId: new Map([
      ['Bucket', 'pipeline-bucket'],
      ['Queue', 'work'],
    ]),
    queueUrl: (name) => `http://127.0.0.1:1/000000000000/${name}`,
  });

const call = (overrides: Partial<RecordedCall>): RecordedCall => ({
  caller: 'Function',
  service: 's3',
  operation: 'PutObject',
  input: {},
  bucket: 'pipeline-bucket',
  key: 'results/b1/summary.csv',
  status: 200,
  ...overrides,
});

describe('TemplateResolver', () => {
  it('resolves references to the local names and ARNs in the fixed account and region', () => {
    expect(resolver().resolve({ Ref: 'Queue' })).toBe('http://127.0.0.1:1/000000000000/work');
    expect(resolver().resolve({ 'Fn::GetAtt': ['Queue', 'Arn'] })).toBe(
      'arn:aws:sqs:us-east-1:123456789012:work',
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub syntax
    expect(resolver().resolve({ 'Fn::Sub': 'arn:${AWS::Partition}:s3:::${Bucket}/x' })).toBe(
      'arn:aws:s3:::pipeline-bucket/x',
    );
  });

  it('refuses an intrinsic it cannot resolve rather than guessing', () => {
    expect(() => resolver().resolve({ 'Fn::ImportValue': 'x' })).toThrow(TemplateResolutionError);
    expect(() => resolver().resolve({ 'Fn::GetAtt': ['Bucket', 'WebsiteURL'] })).toThrow(
      TemplateResolutionError,
    );
  });
});

describe('TemplateIam', () => {
  it('adds the KMS actions S3 needs for the caller on an encrypted bucket', () => {
    const iam = new TemplateIam(template(), resolver());

    const requests = iam.requestsOf(call({ operation: 'UploadPart' }));

    expect(requests.map((request) => request.action)).toEqual([
      's3:PutObject',
      'kms:GenerateDataKey',
      'kms:Decrypt',
    ]);
    expect(requests[1]?.context['kms:ViaService']).toBe('s3.us-east-1.amazonaws.com');
  });

  it('allows what the policies grant and names what they do not', async () => {
    const iam = new TemplateIam(template(), resolver());

    const allowed = await iam.evaluate(iam.requestsOf(call({ operation: 'PutObject' })));
    const denied = await iam.evaluate(iam.requestsOf(call({ operation: 'PutObject', key: 'raw/b1/x.json' })));

    expect(allowed).toEqual([]);
    expect(denied.map((denial) => [denial.request.action, denial.request.resource])).toEqual([
      ['s3:PutObject', 'arn:aws:s3:::pipeline-bucket/raw/b1/x.json'],
    ]);
  });

  it('requires s3:ListBucket for a read that S3 answered 404', () => {
    const iam = new TemplateIam(template(), resolver());

    const requests = iam.requestsOf(call({ operation: 'GetObject', status: 404 }));

    expect(requests.map((request) => request.action)).toContain('s3:ListBucket');
  });
});
