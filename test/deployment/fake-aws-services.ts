import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An event as EventBridge's PutEvents received it. */
export interface PutEvent {
  readonly Source?: string;
  readonly DetailType?: string;
  readonly Detail?: string;
  readonly EventBusName?: string;
}

/**
 * Stand-ins for the two JSON-protocol services the local services lacks: Secrets Manager (`GetSecretValue` of the
 * secrets put here, ResourceNotFoundException otherwise) and EventBridge (`PutEvents`, recorded). They answer on
 * one loopback port, told apart by `X-Amz-Target`, with the services' response shapes.
 */
export class FakeAwsServices {
  readonly secrets = new Map<string, string>();
  readonly events: PutEvent[] = [];
  readonly #server: Server;

  private constructor() {
    this.#server = createServer((request, response) => {
      let text = '';
      request.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      request.on('end', () => {
        const send = (status: number, body: object, errorType?: string) => {
          response.writeHead(status, {
            'content-type': 'application/x-amz-json-1.1',
            ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
          });
          response.end(JSON.stringify(errorType ? { __type: errorType, ...body } : body));
        };
        const input = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
        switch (request.headers['x-amz-target']) {
          case 'secretsmanager.GetSecretValue': {
            const id = String(input.SecretId);
            const value = this.secrets.get(id);
            if (value === undefined)
              return send(400, { Message: `Secrets Manager can't find ${id}` }, 'ResourceNotFoundException');
            return send(200, {
              ARN: id,
              Name: id.split(':').pop(),
              SecretString: value,
              VersionId: randomUUID(),
            });
          }
          case 'AWSEvents.PutEvents': {
            const entries = (input.Entries as PutEvent[] | undefined) ?? [];
            this.events.push(...entries);
            return send(200, {
              FailedEntryCount: 0,
              Entries: entries.map(() => ({ EventId: randomUUID() })),
            });
          }
          default:
            return send(
              400,
              { Message: `not faked: ${request.headers['x-amz-target']}` },
              'UnknownOperationException',
            );
        }
      });
    });
  }

  static async start(): Promise<FakeAwsServices> {
    const fake = new FakeAwsServices();
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    return fake;
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
