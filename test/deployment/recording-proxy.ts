import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { arns } from './template-resolver.ts';

/** The AWS services the functions talk to, by SigV4 signing name. */
export type AwsService = 'dynamodb' | 's3' | 'sqs' | 'secretsmanager' | 'events' | 'scheduler';

/** One AWS API call as a function made it: which API, on which resource, with what matters for IAM. */
export interface RecordedCall {
  readonly caller: string;
  readonly service: AwsService;
  /** The API operation, e.g. `UpdateItem`, `PutObject`, `CreateMultipartUpload`. */
  readonly operation: string;
  /** Body of a JSON-protocol call (DynamoDB, SQS, Secrets Manager, EventBridge, Scheduler). */
  readonly input: Record<string, unknown>;
  /** S3: bucket and key (or list prefix); Scheduler: schedule name and group. */
  readonly bucket?: string;
  readonly key?: string;
  readonly prefix?: string;
  readonly schedule?: { readonly group: string; readonly name: string };
  readonly status: number;
}

export interface RecordingProxyOptions {
  /** The URL the SQS service knows a queue by, from the URL the function uses (this endpoint's). */
  readonly upstreamQueueUrl: (queueUrl: string) => string;
}

export class RecordingProxyError extends Error {
  override readonly name = 'RecordingProxyError';
}

const readBody = (message: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => resolve(Buffer.concat(chunks)));
    message.on('error', reject);
  });

/** The signing name in a SigV4 `Authorization` header's credential scope: every SDK request carries it. */
function signingService(authorization: string | undefined): AwsService {
  const service = /Credential=[^/]+\/\d{8}\/[^/]+\/([^/]+)\/aws4_request/.exec(authorization ?? '')?.[1];
  const known: readonly string[] = ['dynamodb', 's3', 'sqs', 'secretsmanager', 'events', 'scheduler'];
  if (service === undefined || !known.includes(service))
    throw new RecordingProxyError(`an AWS call the recorder does not know: ${service ?? 'unsigned'}`);
  return service as AwsService;
}

/** S3's REST operations, from method, path and query (path-style addressing: `/bucket/key`). */
function s3Operation(method: string, url: URL, headers: IncomingMessage['headers']) {
  const [, bucket = '', ...rest] = url.pathname.split('/');
  const key = decodeURIComponent(rest.join('/'));
  const query = url.searchParams;
  if (key === '') {
    if (method === 'GET' && query.has('uploads')) return { operation: 'ListMultipartUploads', bucket };
    if (method === 'GET') return { operation: 'ListObjectsV2', bucket, prefix: query.get('prefix') ?? '' };
    return { operation: `${method}Bucket`, bucket };
  }
  const byMethod: Record<string, string> = {
    GET: query.has('uploadId') ? 'ListParts' : 'GetObject',
    HEAD: 'HeadObject',
    PUT: query.has('partNumber') ? 'UploadPart' : headers['x-amz-copy-source'] ? 'CopyObject' : 'PutObject',
    POST: query.has('uploads') ? 'CreateMultipartUpload' : 'CompleteMultipartUpload',
    DELETE: query.has('uploadId') ? 'AbortMultipartUpload' : 'DeleteObject',
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
function parseCall(request: IncomingMessage, body: Buffer): Omit<RecordedCall, 'caller' | 'status'> {
  const method = request.method ?? 'GET';
  const url = new URL(request.url ?? '/', 'http://proxy');
  const service = signingService(request.headers.authorization);
  const input =
    service !== 's3' && body.length > 0 ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : {};
  if (service === 's3') return { service, input, ...s3Operation(method, url, request.headers) };
  if (service === 'scheduler') return { service, input, ...schedulerOperation(method, url, input) };
  // The JSON protocols name the operation in X-Amz-Target, e.g. `DynamoDB_20120810.UpdateItem`.
  const operation =
    String(request.headers['x-amz-target'] ?? '')
      .split('.')
      .pop() ?? '';
  return { service, input, operation };
}

/**
 * An AWS endpoint for one function: it records each call the function makes (the service from the request's
 * signature, the operation and its resource) and forwards it unchanged to the local service that plays that AWS
 * service. Pointing a function's `AWS_ENDPOINT_URL_*` and queue URLs here attributes every call to it.
 */
export class RecordingProxy {
  readonly calls: RecordedCall[] = [];
  readonly #server: Server;

  private constructor(
    readonly caller: string,
    upstreams: Readonly<Record<AwsService, string>>,
    options: RecordingProxyOptions,
  ) {
    this.#server = createServer((request, response) => {
      readBody(request)
        .then((body) => {
          const call = parseCall(request, body);
          // fauxqs finds a queue by its exact URL, whose origin is its own, not this endpoint's.
          const queueUrl = call.input.QueueUrl;
          const outgoing =
            call.service === 'sqs' && typeof queueUrl === 'string'
              ? Buffer.from(JSON.stringify({ ...call.input, QueueUrl: options.upstreamQueueUrl(queueUrl) }))
              : body;
          const upstream = new URL(request.url ?? '/', upstreams[call.service]);
          // The body is forwarded whole, so its length replaces any chunked transfer.
          const { 'transfer-encoding': _chunked, ...headers } = request.headers;
          const forwarded = httpRequest(
            upstream,
            {
              method: request.method,
              headers: { ...headers, host: upstream.host, 'content-length': String(outgoing.length) },
            },
            (reply) => {
              this.calls.push({ caller, status: reply.statusCode ?? 0, ...call });
              response.writeHead(reply.statusCode ?? 502, reply.headers);
              reply.pipe(response);
            },
          );
          forwarded.on('error', (error) => response.writeHead(502).end(String(error)));
          forwarded.end(outgoing);
        })
        .catch((error: unknown) => {
          response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
        });
    });
  }

  static async start(
    caller: string,
    upstreams: Readonly<Record<AwsService, string>>,
    options: RecordingProxyOptions,
  ): Promise<RecordingProxy> {
    const proxy = new RecordingProxy(caller, upstreams, options);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}

/** The ARN a recorded call acts on, as IAM sees it. */
export function resourceArnOf(call: RecordedCall): string[] {
  const { input } = call;
  switch (call.service) {
    case 's3':
      return [
        call.key === undefined
          ? arns.bucket(call.bucket ?? '')
          : `${arns.bucket(call.bucket ?? '')}/${call.key}`,
      ];
    case 'sqs':
      return [
        arns.queue(
          String(input.QueueUrl ?? '')
            .split('/')
            .pop() ?? '',
        ),
      ];
    case 'secretsmanager':
      return [String(input.SecretId ?? '')];
    case 'events':
      return [
        ...new Set(
          ((input.Entries as { EventBusName?: string }[] | undefined) ?? []).map((entry) =>
            entry.EventBusName?.startsWith('arn:')
              ? entry.EventBusName
              : arns.eventBus(entry.EventBusName ?? 'default'),
          ),
        ),
      ];
    case 'scheduler':
      return [arns.schedule(call.schedule?.group ?? 'default', call.schedule?.name ?? '')];
    case 'dynamodb':
      return dynamoTables(input).map(({ table, index }) =>
        index ? `${arns.table(table)}/index/${index}` : arns.table(table),
      );
  }
}

function dynamoTables(input: Record<string, unknown>): { table: string; index?: string }[] {
  if (typeof input.TableName === 'string')
    return [
      { table: input.TableName, index: typeof input.IndexName === 'string' ? input.IndexName : undefined },
    ];
  if (input.RequestItems && typeof input.RequestItems === 'object')
    return Object.keys(input.RequestItems).map((table) => ({ table }));
  return [];
}
