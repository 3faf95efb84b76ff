import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AwsCall, type AwsService, parseAwsRequest, readBody } from '../../cli/local/aws-request.ts';
import { arns } from './template-resolver.ts';

export type { AwsService } from '../../cli/local/aws-request.ts';

/** One AWS API call as a function made it: which API, on which resource, with what matters for IAM. */
export interface RecordedCall extends AwsCall {
  readonly caller: string;
  readonly status: number;
}

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
