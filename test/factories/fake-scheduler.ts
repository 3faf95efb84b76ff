import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SchedulerClient } from '@aws-sdk/client-scheduler';

/** A schedule as the fake keeps it: the request body of the last create or update. */
export type StoredSchedule = Record<string, unknown> & { readonly GroupName?: string };

/**
 * A stand-in for EventBridge Scheduler's REST API (there is no local emulator of it): create is `POST
 * /schedules/{name}`, update `PUT`, delete `DELETE`, with the service's error types for a missing or an existing
 * schedule. Enough to test the real SDK calls of the adapter over HTTP on loopback.
 */
export class FakeScheduler {
  readonly schedules = new Map<string, StoredSchedule>();
  readonly calls: string[] = [];
  readonly #server: Server;

  private constructor() {
    this.#server = createServer((request, response) => {
      let text = '';
      request.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      request.on('end', () => {
        const url = new URL(request.url ?? '/', 'http://fake');
        const name = decodeURIComponent(url.pathname.replace(/^\/schedules\//, ''));
        const group = url.searchParams.get('groupName') ?? 'default';
        this.calls.push(`${request.method} ${name}`);
        const send = (status: number, body: object, errorType?: string) => {
          response.writeHead(status, {
            'Content-Type': 'application/json',
            ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
          });
          response.end(JSON.stringify(body));
        };
        const body = text === '' ? {} : (JSON.parse(text) as StoredSchedule);
        const id = `${(body.GroupName as string | undefined) ?? group}/${name}`;
        const arn = { ScheduleArn: `arn:aws:scheduler:us-east-1:000000000000:schedule/${id}` };
        if (request.method === 'POST') {
          if (this.schedules.has(id)) return send(409, { Message: 'exists' }, 'ConflictException');
          this.schedules.set(id, body);
          return send(200, arn);
        }
        if (!this.schedules.has(id)) return send(404, { Message: 'not found' }, 'ResourceNotFoundException');
        if (request.method === 'PUT') {
          this.schedules.set(id, body);
          return send(200, arn);
        }
        this.schedules.delete(id);
        return send(200, {});
      });
    });
  }

  static async start(): Promise<FakeScheduler> {
    const fake = new FakeScheduler();
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** Where the fake listens (an `AWS_ENDPOINT_URL_SCHEDULER` for a process). */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  client(): SchedulerClient {
    return new SchedulerClient({
      endpoint: this.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}
