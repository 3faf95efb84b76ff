import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedReply {
  readonly status: number;
  readonly body: string;
  readonly headers?: Record<string, string>;
}

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * A loopback HTTP server answering each request with the next scripted reply: for the answers the emulator never
 * gives (401, redirects, garbage bodies), and to see exactly what a client sends.
 */
export class ScriptedServer {
  readonly requests: RecordedRequest[] = [];
  #replies: ScriptedReply[] = [];
  readonly #server: Server;
  readonly #otherwise: ScriptedReply;

  private constructor(otherwise: ScriptedReply) {
    this.#otherwise = otherwise;
    this.#server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      this.requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const reply = this.#replies.shift() ?? this.#otherwise;
      response.writeHead(reply.status, reply.headers ?? {});
      response.end(reply.body);
    });
  }

  /** Starts it on a free loopback port; `otherwise` answers what no scripted reply does (a 500 by default). */
  static async start(
    otherwise: ScriptedReply = { status: 500, body: 'no scripted reply' },
  ): Promise<ScriptedServer> {
    const server = new ScriptedServer(otherwise);
    await new Promise<void>((resolve) => server.#server.listen(0, '127.0.0.1', resolve));
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  reply(...replies: ScriptedReply[]): void {
    this.#replies.push(...replies);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
