import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { Template } from '../../cli/local/cloud-assembly.ts';
import { type RecordedCall, resourceArnOf } from './recording-proxy.ts';
import { ACCOUNT, REGION, type TemplateResolver } from './template-resolver.ts';

/** One authorisation AWS makes for a call: the action on the resource, with the request's condition keys. */
export interface IamRequest {
  readonly caller: string;
  readonly action: string;
  readonly resource: string;
  readonly context: Readonly<Record<string, string>>;
  /** The recorded call this authorisation is for, e.g. `s3 PutObject`. */
  readonly because: string;
}

/**
 * An invocation of a function by AWS on the pipeline's behalf: `invoker` is a service principal
 * (`s3.amazonaws.com`) or the logical id of the role a service assumes (Scheduler's).
 */
export interface ServiceInvocation {
  readonly invoker: string;
  readonly functionArn: string;
  /** The condition keys the service sets, e.g. `aws:SourceArn` and `aws:SourceAccount` for S3. */
  readonly context: Readonly<Record<string, string>>;
}

/** A request the template's policies do not allow, with the evaluation's verdict per policy. */
export interface Denial {
  readonly request: IamRequest;
  readonly result: string;
  readonly identity: string;
  readonly resourcePolicy: string;
}

type Policy = { Statement: unknown[] };

const S3_ACTIONS: Record<string, { action: string; kms: readonly string[] }> = {
  GetObject: { action: 's3:GetObject', kms: ['kms:Decrypt'] },
  HeadObject: { action: 's3:GetObject', kms: [] },
  PutObject: { action: 's3:PutObject', kms: ['kms:GenerateDataKey'] },
  CopyObject: { action: 's3:PutObject', kms: ['kms:GenerateDataKey'] },
  // A multipart upload to an SSE-KMS bucket needs both: a data key for the parts, and decrypting it to complete.
  CreateMultipartUpload: { action: 's3:PutObject', kms: ['kms:GenerateDataKey'] },
  UploadPart: { action: 's3:PutObject', kms: ['kms:GenerateDataKey', 'kms:Decrypt'] },
  CompleteMultipartUpload: { action: 's3:PutObject', kms: ['kms:Decrypt'] },
  AbortMultipartUpload: { action: 's3:AbortMultipartUpload', kms: [] },
  ListParts: { action: 's3:ListMultipartUploadParts', kms: [] },
  DeleteObject: { action: 's3:DeleteObject', kms: [] },
  DeleteObjectVersion: { action: 's3:DeleteObjectVersion', kms: [] },
  ListObjectsV2: { action: 's3:ListBucket', kms: [] },
  ListObjectVersions: { action: 's3:ListBucketVersions', kms: [] },
  ListMultipartUploads: { action: 's3:ListBucketMultipartUploads', kms: [] },
};

const SQS_ACTIONS: Record<string, { action: string; kms: readonly string[] }> = {
  // A producer of an SSE-KMS queue needs a data key and to decrypt it; a consumer decrypts.
  SendMessage: { action: 'sqs:SendMessage', kms: ['kms:GenerateDataKey', 'kms:Decrypt'] },
  SendMessageBatch: { action: 'sqs:SendMessage', kms: ['kms:GenerateDataKey', 'kms:Decrypt'] },
  ReceiveMessage: { action: 'sqs:ReceiveMessage', kms: ['kms:Decrypt'] },
  DeleteMessage: { action: 'sqs:DeleteMessage', kms: [] },
  DeleteMessageBatch: { action: 'sqs:DeleteMessage', kms: [] },
  ChangeMessageVisibility: { action: 'sqs:ChangeMessageVisibility', kms: [] },
  ChangeMessageVisibilityBatch: { action: 'sqs:ChangeMessageVisibility', kms: [] },
};

const TRANSACT_ACTIONS: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
  Get: 'dynamodb:GetItem',
};

/** The actions IAM authorises for a call (a transaction is authorised item by item). */
function actionsOf(call: RecordedCall): { action: string; resources: string[]; kms: readonly string[] }[] {
  const resources = resourceArnOf(call);
  const operation = call.operation;
  switch (call.service) {
    case 's3': {
      const mapped = S3_ACTIONS[operation];
      return [{ action: mapped?.action ?? `s3:${operation}`, resources, kms: mapped?.kms ?? [] }];
    }
    case 'sqs': {
      const mapped = SQS_ACTIONS[operation];
      return [{ action: mapped?.action ?? `sqs:${operation}`, resources, kms: mapped?.kms ?? [] }];
    }
    case 'dynamodb': {
      // DynamoDB decrypts the table key on the caller's behalf for every data call on a CMK-encrypted table.
      const items = call.input.TransactItems as Record<string, { TableName?: string }>[] | undefined;
      if (operation.startsWith('Transact') && items) {
        return items.flatMap((item) =>
          Object.entries(item).map(([kind, detail]) => ({
            action: TRANSACT_ACTIONS[kind] ?? `dynamodb:${kind}`,
            resources: [`arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${detail.TableName}`],
            kms: ['kms:Decrypt'],
          })),
        );
      }
      return [{ action: `dynamodb:${operation}`, resources, kms: ['kms:Decrypt'] }];
    }
    case 'secretsmanager':
      return [{ action: `secretsmanager:${operation}`, resources, kms: ['kms:Decrypt'] }];
    case 'events':
      return [{ action: `events:${operation}`, resources, kms: [] }];
    case 'scheduler':
      return [{ action: `scheduler:${operation}`, resources, kms: [] }];
  }
}

/** Where a resource's customer-managed key is set in the template, by resource type. */
const KEY_PROPERTY: Record<string, (properties: Record<string, unknown>) => unknown> = {
  'AWS::S3::Bucket': (properties) =>
    (
      properties.BucketEncryption as
        | {
            ServerSideEncryptionConfiguration?: {
              ServerSideEncryptionByDefault?: { KMSMasterKeyID?: unknown };
            }[];
          }
        | undefined
    )?.ServerSideEncryptionConfiguration?.[0]?.ServerSideEncryptionByDefault?.KMSMasterKeyID,
  'AWS::SQS::Queue': (properties) => properties.KmsMasterKeyId,
  'AWS::DynamoDB::Table': (properties) =>
    (properties.SSESpecification as { KMSMasterKeyId?: unknown } | undefined)?.KMSMasterKeyId,
  'AWS::SecretsManager::Secret': (properties) => properties.KmsKeyId,
};

/** The base ARN a resource policy or key is attached to: the bucket of an object, the table of an index. */
function baseArn(resource: string): string {
  if (resource.startsWith('arn:aws:s3:::')) return resource.split('/')[0] ?? resource;
  if (resource.startsWith('arn:aws:dynamodb:')) return resource.replace(/\/index\/.*$/, '');
  return resource;
}

/**
 * The template's IAM, resolved: each function role's identity policies, the bucket, queue and key policies, and
 * which key encrypts which resource. Evaluates requests with iam-simulate.
 */
export class TemplateIam {
  readonly #identity = new Map<string, { name: string; policy: Policy }[]>();
  readonly #resourcePolicies = new Map<string, Policy>();
  readonly #keys = new Map<string, string>();
  /** Function logical id → its role's logical id. */
  readonly #roles = new Map<string, string>();
  readonly #resolver: TemplateResolver;

  constructor(template: Template, resolver: TemplateResolver) {
    this.#resolver = resolver;
    const arnOf = (logicalId: string) => resolver.resolveString({ 'Fn::GetAtt': [logicalId, 'Arn'] });
    for (const [logicalId, resource] of Object.entries(template.Resources)) {
      const properties = resource.Properties ?? {};
      switch (resource.Type) {
        case 'AWS::Lambda::Function': {
          const role = (properties.Role as { 'Fn::GetAtt'?: string[] } | undefined)?.['Fn::GetAtt']?.[0];
          if (role) this.#roles.set(logicalId, role);
          break;
        }
        case 'AWS::IAM::Policy':
          for (const role of (properties.Roles as { Ref: string }[] | undefined) ?? []) {
            const policies = this.#identity.get(role.Ref) ?? [];
            policies.push({ name: logicalId, policy: resolver.resolve(properties.PolicyDocument) as Policy });
            this.#identity.set(role.Ref, policies);
          }
          break;
        case 'AWS::S3::BucketPolicy':
          this.#resourcePolicies.set(
            `arn:aws:s3:::${resolver.resolveString(properties.Bucket)}`,
            resolver.resolve(properties.PolicyDocument) as Policy,
          );
          break;
        case 'AWS::SQS::QueuePolicy':
          for (const queue of (properties.Queues as { Ref: string }[] | undefined) ?? [])
            this.#resourcePolicies.set(
              arnOf(queue.Ref),
              resolver.resolve(properties.PolicyDocument) as Policy,
            );
          break;
        case 'AWS::KMS::Key':
          this.#resourcePolicies.set(arnOf(logicalId), resolver.resolve(properties.KeyPolicy) as Policy);
          break;
        case 'AWS::Lambda::Permission':
          this.#addFunctionPermission(resolver.resolve(properties) as Record<string, string>);
          break;
      }
      const key = KEY_PROPERTY[resource.Type]?.(properties);
      if (key !== undefined) {
        const resourceArn =
          resource.Type === 'AWS::SecretsManager::Secret'
            ? resolver.resolveString({ Ref: logicalId })
            : arnOf(logicalId);
        this.#keys.set(resourceArn, resolver.resolveString(key));
      }
    }
    this.#inlineRolePolicies(template, resolver);
  }

  /** A Lambda permission is a statement of the function's resource policy, as Lambda writes it. */
  #addFunctionPermission(permission: Record<string, string>): void {
    const functionArn = permission.FunctionName ?? '';
    const principal = permission.Principal ?? '';
    const condition: Record<string, Record<string, string>> = {};
    if (permission.SourceAccount) condition.StringEquals = { 'AWS:SourceAccount': permission.SourceAccount };
    if (permission.SourceArn) condition.ArnLike = { 'AWS:SourceArn': permission.SourceArn };
    const policy = this.#resourcePolicies.get(functionArn) ?? { Statement: [] };
    policy.Statement.push({
      Effect: 'Allow',
      Principal: principal.endsWith('.amazonaws.com') ? { Service: principal } : { AWS: principal },
      Action: permission.Action,
      Resource: functionArn,
      ...(Object.keys(condition).length > 0 ? { Condition: condition } : {}),
    });
    this.#resourcePolicies.set(functionArn, policy);
  }

  /** Who makes a request: a function (as its role), a role of the template, or an AWS service principal. */
  #principalOf(caller: string): { arn: string; roleLogicalId: string | undefined } {
    if (caller.endsWith('.amazonaws.com')) return { arn: caller, roleLogicalId: undefined };
    const roleLogicalId = this.#roles.get(caller) ?? caller;
    return { arn: this.#resolver.resolveString({ 'Fn::GetAtt': [roleLogicalId, 'Arn'] }), roleLogicalId };
  }

  #inlineRolePolicies(template: Template, resolver: TemplateResolver): void {
    for (const [logicalId, resource] of Object.entries(template.Resources)) {
      if (resource.Type !== 'AWS::IAM::Role') continue;
      const inline =
        (resource.Properties?.Policies as { PolicyName: string; PolicyDocument: unknown }[]) ?? [];
      const policies = this.#identity.get(logicalId) ?? [];
      for (const { PolicyName, PolicyDocument } of inline)
        policies.push({ name: PolicyName, policy: resolver.resolve(PolicyDocument) as Policy });
      this.#identity.set(logicalId, policies);
    }
  }

  /** The authorisations AWS makes for a recorded call, the KMS ones it makes on the caller's behalf included. */
  requestsOf(call: RecordedCall): IamRequest[] {
    const because = `${call.service} ${call.operation}${call.key !== undefined ? ` ${call.key}` : ''}`;
    const base = { 'aws:SecureTransport': 'true' };
    const requests: IamRequest[] = [];
    for (const { action, resources, kms } of actionsOf(call)) {
      for (const resource of resources) {
        const context: Record<string, string> =
          action === 's3:ListBucket' ? { ...base, 's3:prefix': call.prefix ?? '' } : base;
        requests.push({ caller: call.caller, action, resource, context, because });
        const key = this.#keys.get(baseArn(resource));
        for (const kmsAction of key ? kms : []) {
          requests.push({
            caller: call.caller,
            action: kmsAction,
            resource: key ?? '',
            context: {
              ...base,
              'kms:ViaService': `${call.service}.${REGION}.amazonaws.com`,
              'kms:CallerAccount': ACCOUNT,
            },
            because: `${because} (${call.service} uses the key for the caller)`,
          });
        }
      }
    }
    // S3 answers a read of a missing key with 404 only to a caller allowed to list the bucket; to others, 403.
    if (call.service === 's3' && call.status === 404 && call.key !== undefined) {
      requests.push({
        caller: call.caller,
        action: 's3:ListBucket',
        resource: `arn:aws:s3:::${call.bucket}`,
        context: { ...base, 's3:prefix': call.key },
        because: `${because} (answered 404, not 403)`,
      });
    }
    // Creating or changing a schedule passes its role to Scheduler: the caller needs iam:PassRole on it.
    const target = call.input.Target as { RoleArn?: string } | undefined;
    if (call.service === 'scheduler' && target?.RoleArn) {
      requests.push({
        caller: call.caller,
        action: 'iam:PassRole',
        resource: target.RoleArn,
        context: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
        because: `${because} (passes the schedule's role)`,
      });
    }
    return requests;
  }

  /** The authorisation of an invocation AWS makes: S3 for a bucket notification, Scheduler with its role. */
  invocationRequest(invocation: ServiceInvocation): IamRequest {
    return {
      caller: invocation.invoker,
      action: 'lambda:InvokeFunction',
      resource: invocation.functionArn,
      context: invocation.context,
      because: `${invocation.invoker} invokes ${invocation.functionArn}`,
    };
  }

  /** Evaluates each request as the caller's role against the identity, resource and key policies. */
  async evaluate(requests: readonly IamRequest[]): Promise<Denial[]> {
    const denials: Denial[] = [];
    for (const request of requests) {
      const principal = this.#principalOf(request.caller);
      const response = await runSimulation(
        {
          request: {
            principal: principal.arn,
            action: request.action,
            resource: { resource: request.resource, accountId: ACCOUNT },
            contextVariables: { ...request.context },
          },
          identityPolicies: principal.roleLogicalId
            ? (this.#identity.get(principal.roleLogicalId) ?? [])
            : [],
          serviceControlPolicies: [],
          resourceControlPolicies: [],
          resourcePolicy: this.#resourcePolicies.get(baseArn(request.resource)),
        },
        {},
      );
      if (response.resultType === 'error') {
        denials.push({
          request,
          result: `invalid simulation: ${response.errors.message}`,
          identity: '',
          resourcePolicy: '',
        });
        continue;
      }
      if (response.overallResult === 'Allowed') continue;
      const analysis =
        response.resultType === 'single' ? response.result.analysis : response.results[0]?.analysis;
      denials.push({
        request,
        result: response.overallResult,
        identity: String(analysis?.identityAnalysis?.result ?? 'not evaluated'),
        resourcePolicy: String(analysis?.resourceAnalysis?.result ?? 'none'),
      });
    }
    return denials;
  }
}

/** One line per denial: who called what, what IAM action on which resource it needed, and which policy refused. */
export function describeDenials(denials: readonly Denial[]): string {
  return denials
    .map(
      ({ request, result, identity, resourcePolicy }) =>
        `${request.caller}: ${request.because} needs ${request.action} on ${request.resource} ` +
        `${JSON.stringify(request.context)}: ${result} (role's policies: ${identity}; resource policy: ${resourcePolicy})`,
    )
    .join('\n');
}

/** The distinct requests of many calls (a function makes the same call many times). */
export function distinctRequests(requests: readonly IamRequest[]): IamRequest[] {
  const seen = new Map<string, IamRequest>();
  for (const request of requests) {
    const id = JSON.stringify([request.caller, request.action, request.resource, request.context]);
    if (!seen.has(id)) seen.set(id, request);
  }
  return [...seen.values()];
}
