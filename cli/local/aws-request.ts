import type { IncomingMessage } from 'node:http';

/** The AWS services the pipeline's functions talk to, by SigV4 signing name. */
export type AwsService = 'dynamodb' | 's3' | 'sqs' | 'secretsmanager' | 'events' | 'scheduler';

const AWS_SERVICES: readonly string[] = ['dynamodb', 's3', 'sqs', 'secretsmanager', 'events', 'scheduler'];

/** One AWS API call as an SDK client sent it: which API, on which resource, with its input. */
export interface AwsCall {
  readonly service: AwsService;
  /** The API operation, e.g. `UpdateItem`, `PutObject`, `CreateMultipartUpload`, `SendMessage`. */
  readonly operation: string;
  /** Body of a JSON-protocol call (DynamoDB, SQS, Secrets Manager, EventBridge, Scheduler); `{}` for S3. */
  readonly input: Record<string, unknown>;
  /** S3: bucket and key (or list prefix); Scheduler: schedule name and group. */
  readonly bucket?: string;
  readonly key?: string;
  readonly prefix?: string;
  readonly schedule?: { readonly group: string; readonly name: string };
}

class AwsRequestError extends Error {
  override readonly name = 'AwsRequestError';
}

/** The whole body of a request or response. */
export const readBody = (message: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => resolve(Buffer.concat(chunks)));
    message.on('error', reject);
  });

/** The signing name in a SigV4 `Authorization` header's credential scope: every SDK request carries it. */
function signingService(authorization: string | undefined): AwsService {
  const service = /Credential=[^/]+\/\d{8}\/[^/]+\/([^/]+)\/aws4_request/.exec(authorization ?? '')?.[1];
  if (service === undefined || !AWS_SERVICES.includes(service))
    throw new AwsRequestError(`an AWS call of an unknown service: ${service ?? 'unsigned'}`);
  return service as AwsService;
}

/** S3's REST operations, from method, path and query (path-style addressing: `/bucket/key`). */
function s3Operation(method: string, url: URL, headers: IncomingMessage['headers']) {
  const [, bucket = '', ...rest] = url.pathname.split('/');
  const key = decodeURIComponent(rest.join('/'));
  const query = url.searchParams;
  if (key === '') {
    if (method === 'GET' && query.has('uploads')) return { operation: 'ListMultipartUploads', bucket };
    if (method === 'GET' && query.has('versions'))
      return { operation: 'ListObjectVersions', bucket, prefix: query.get('prefix') ?? '' };
    if (method === 'GET') return { operation: 'ListObjectsV2', bucket, prefix: query.get('prefix') ?? '' };
    return { operation: `${method}Bucket`, bucket };
  }
  const byMethod: Record<string, string> = {
    GET: query.has('uploadId') ? 'ListParts' : 'GetObject',
    HEAD: 'HeadObject',
    PUT: query.has('partNumber') ? 'UploadPart' : headers['x-amz-copy-source'] ? 'CopyObject' : 'PutObject',
    POST: query.has('uploads') ? 'CreateMultipartUpload' : 'CompleteMultipartUpload',
    // Deleting one version by its id is an action of its own for IAM (s3:DeleteObjectVersion).
    DELETE: query.has('uploadId')
      ? 'AbortMultipartUpload'
      : query.has('versionId')
        ? 'DeleteObjectVersion'
        : 'DeleteObject',
  };
  return { operation: byMethod[method] ?? `${method}Object`, bucket, key };
}

/** EventBridge Scheduler's REST operations: `/schedules/{name}?groupName=…`. */
function schedulerOperation(method: string, url: URL, input: Record<string, unknown>) {
  const name = decodeURIComponent(url.pathname.replace(/^\/schedules\//, ''));
  const group = String(input.GroupName ?? url.searchParams.get('groupName') ?? 'default');
  const byMethod: Record<string, string> = {
    POST: 'CreateSchedule',
    PUT: 'UpdateSchedule',
    DELETE: 'DeleteSchedule',
    GET: 'GetSchedule',
  };
  return { operation: byMethod[method] ?? method, schedule: { group, name } };
}

/** What a request is: its service (from the signature), operation, input and, for REST APIs, its resource. */
export function parseAwsRequest(request: IncomingMessage, body: Buffer): AwsCall {
  const method = request.method ?? 'GET';
  const url = new URL(request.url ?? '/', 'http://proxy');
  const service = signingService(request.headers.authorization);
  const input =
    service !== 's3' && body.length > 0 ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : {};
  if (service === 's3') return { service, input, ...s3Operation(method, url, request.headers) };
  if (service === 'scheduler') return { service, input, ...schedulerOperation(method, url, input) };
  // The JSON protocols (DynamoDB; SQS since the SDK moved it to JSON) name the operation in X-Amz-Target, e.g.
  // `DynamoDB_20120810.UpdateItem`, `AmazonSQS.SendMessage`.
  const operation =
    String(request.headers['x-amz-target'] ?? '')
      .split('.')
      .pop() ?? '';
  return { service, input, operation };
}
