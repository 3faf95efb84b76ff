import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AwsCall, type AwsService, parseAwsRequest, readBody } from '../../cli/local/aws-request.ts';
import { arns } from './template-resolver.ts';

export type { AwsService } from '../../cli/local/aws-request.ts';

/** One AWS API call as a function made it: which API, on which resource, with what matters for IAM. */
export interface RecordedCall extends AwsCall {
  readonly caller: string;
  readonly status: number;
  /** DynamoDB: the capacity units the call consumed, as DynamoDB (Local) reports them; 0 for a refused call. */
  readonly capacityUnits?: number;
  /** SQS `ReceiveMessage`: how many messages it received (an empty poll receives none). */
  readonly received?: number;
}

/** DynamoDB's data operations, which report the capacity they consume when asked. */
const CAPACITY_OPERATIONS = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactGetItems',
  'TransactWriteItems',
]);

/**
 * The request body to forward: a queue URL on the upstream's origin (fauxqs finds a queue by its exact URL), and a
 * DynamoDB data call asked for its consumed capacity, which the function may not have asked for (the recorded
 * answer still reaches the function whole; an extra field in it is ignored by the SDK).
 */
function forwardedBody(call: AwsCall, body: Buffer, options: RecordingProxyOptions): Buffer {
  const queueUrl = call.input.QueueUrl;
  if (call.service === 'sqs' && typeof queueUrl === 'string')
    return Buffer.from(JSON.stringify({ ...call.input, QueueUrl: options.upstreamQueueUrl(queueUrl) }));
  if (call.service === 'dynamodb' && CAPACITY_OPERATIONS.has(call.operation))
    return Buffer.from(JSON.stringify({ ReturnConsumedCapacity: 'TOTAL', ...call.input }));
  return body;
}

/** What the recorded answer says about cost: DynamoDB's consumed capacity, SQS's received messages. */
function measuredIn(
  call: AwsCall,
  status: number,
  reply: Buffer,
): Pick<RecordedCall, 'capacityUnits' | 'received'> {
  if (status >= 300 || reply.length === 0) return call.service === 'dynamodb' ? { capacityUnits: 0 } : {};
  const answer = JSON.parse(reply.toString('utf8')) as {
    ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[];
    Messages?: unknown[];
  };
  if (call.service === 'dynamodb') {
    const consumed = answer.ConsumedCapacity;
    const all = consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed];
    return { capacityUnits: all.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0) };
  }
  return { received: answer.Messages?.length ?? 0 };
}

/** Whether a call's answer is read for what it cost (the others are streamed through untouched). */
const measured = (call: AwsCall) =>
  (call.service === 'dynamodb' && CAPACITY_OPERATIONS.has(call.operation)) ||
  (call.service === 'sqs' && call.operation === 'ReceiveMessage');

export interface RecordingProxyOptions {
  /** The URL the SQS service knows a queue by, from the URL the function uses (this endpoint's). */
  readonly upstreamQueueUrl: (queueUrl: string) => string;
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
          const call = parseAwsRequest(request, body);
          const outgoing = forwardedBody(call, body, options);
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
              const status = reply.statusCode ?? 0;
              if (!measured(call)) {
                this.calls.push({ caller, status, ...call });
                response.writeHead(status || 502, reply.headers);
                reply.pipe(response);
                return;
              }
              readBody(reply)
                .then((answer) => {
                  this.calls.push({ caller, status, ...call, ...measuredIn(call, status, answer) });
                  response.writeHead(status || 502, reply.headers).end(answer);
                })
                .catch((error: unknown) => response.writeHead(502).end(String(error)));
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
