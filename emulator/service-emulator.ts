/**
 * A local stand-in for the whole service interface, on one port and one token. The credit-report queries are
 * served here, faithful to the interface: both endpoints, Bearer auth answering `400 Token inválido!`,
 * spec-shaped reports from {@link generateCreditReport}, and accounting like the real service (only a successful
 * query is charged), with fault injection (latency, errors, rate limit, hangs) off by default. The AI status,
 * agent and AI Studio routes are served by {@link AiServiceEmulator}. Listens on loopback only.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AiEmulatorOptions, AiServiceEmulator } from './ai-service-emulator.ts';
import type { Bureau } from './credit-report-wire.ts';
import { readDocument } from './documents.ts';
import { readBody, sendJson } from './http-io.ts';
import {
  DEFAULT_REPORT_GENERATOR_OPTIONS,
  generateCreditReport,
  type ReportGeneratorOptions,
} from './report-generator.ts';
import { PeakRateMeter } from './request-rate.ts';
import {
  assertValidLimits,
  fullBucket,
  type TokenBucketLimits,
  type TokenBucketState,
  takeTokens,
} from './token-bucket.ts';

/** The token the emulator accepts unless told otherwise. Not a secret: it only opens the local emulator. */
export const DEFAULT_EMULATOR_TOKEN = 'credit-screen-dev-token';
/**
 * The endpoint batches screened against the bundled emulator record: one endpoint whatever port the emulator got,
 * so any later local run continues them against it.
 */
export const BUILT_IN_EMULATOR_ENDPOINT = 'the built-in emulator';

const ENDPOINT_BUREAUS: Readonly<Record<string, Bureau>> = { 'ap-bureau-a': 'a', 'ap-bureau-b-premium': 'b' };
const MAX_REQUEST_BYTES = 64 * 1024;

/** Faults to inject; all off by default. They can be changed while the emulator runs. */
export interface EmulatorFaults {
  /** Mean added latency per query, with ±25% jitter. @default 0 */
  readonly latencyMs?: number;
  /** Share of queries that fail: 500, 502, 503, or a 200 whose status is not success. @default 0 */
  readonly errorRate?: number;
  /** Requests per second the emulator accepts before answering 429 with `Retry-After`; null is no limit. @default null */
  readonly rateLimitPerSecond?: number | null;
  /** Bucket size of that limit (largest burst). @default the rate, at least 1 */
  readonly rateLimitBurst?: number;
  /** Share of queries never answered. @default 0 */
  readonly hangRate?: number;
}

export interface ServiceEmulatorOptions extends EmulatorFaults {
  /** 0 picks a free port. @default 0 */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** The one Bearer token accepted. @default DEFAULT_EMULATOR_TOKEN */
  readonly token?: string;
  /** Envelope field named after the service, and the docs URL it carries. */
  readonly report?: ReportGeneratorOptions;
  /** Random source for fault injection (tests pass a seeded one). @default Math.random */
  readonly random?: () => number;
  /** The emulated point in time reports are drawn at (see {@link ReportGeneratorOptions.epoch}). @default 0 */
  readonly epoch?: number;
  /** The AI status, agent and AI Studio routes (job timing, file size limit). */
  readonly ai?: AiEmulatorOptions;
}

/** What the emulator saw, as `GET /__stats` returns it. */
export interface EmulatorStats {
  /** Every request to a query endpoint, whatever its outcome. */
  readonly requests: number;
  /** Successful queries: what a real account would have paid for. */
  readonly charged: number;
  readonly byStatus: Readonly<Record<string, number>>;
  readonly chargesByDocument: Readonly<Record<string, number>>;
  /** Most query requests received within any one second. */
  readonly maxObservedRatePerSec: number;
  /** TCP connections opened by clients (fewer than requests means keep-alive works). */
  readonly connections: number;
  /** Queries left unanswered on purpose (hang-rate). */
  readonly hung: number;
}

function validateFaults(faults: EmulatorFaults): void {
  for (const [name, value] of [
    ['errorRate', faults.errorRate],
    ['hangRate', faults.hangRate],
  ] as const) {
    if (value !== undefined && !(value >= 0 && value <= 1))
      throw new RangeError(`${name} must be between 0 and 1, got ${value}`);
  }
  if (faults.latencyMs !== undefined && !(faults.latencyMs >= 0))
    throw new RangeError(`latencyMs must be ≥ 0, got ${faults.latencyMs}`);
}

const errorBody = (message: string) => ({ status: 'error', message });

/** The service emulator: start it with {@link ServiceEmulator.start}, point a client at {@link ServiceEmulator.url}. */
export class ServiceEmulator {
  readonly #server: Server;
  readonly #token: string;
  readonly #reportOptions: ReportGeneratorOptions;
  readonly #random: () => number;
  readonly #ai: AiServiceEmulator;
  #epoch = 0;
  #faults: Required<Omit<EmulatorFaults, 'rateLimitPerSecond' | 'rateLimitBurst'>>;
  #limits: TokenBucketLimits | null = null;
  #bucket: TokenBucketState | null = null;
  #hanging = new Set<ServerResponse>();
  #rate = new PeakRateMeter();
  #requests = 0;
  #charged = 0;
  #connections = 0;
  #hung = 0;
  #byStatus = new Map<number, number>();
  #chargesByDocument = new Map<string, number>();

  private constructor(options: ServiceEmulatorOptions) {
    this.#token = options.token ?? DEFAULT_EMULATOR_TOKEN;
    this.#reportOptions = options.report ?? DEFAULT_REPORT_GENERATOR_OPTIONS;
    this.#random = options.random ?? Math.random;
    this.#ai = new AiServiceEmulator(this.#token, options.ai);
    this.setEpoch(options.epoch ?? 0);
    this.#faults = { latencyMs: 0, errorRate: 0, hangRate: 0 };
    this.configure(options);
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) sendJson(response, 500, errorBody(`emulator failure: ${String(error)}`));
      });
    });
    this.#server.on('connection', () => {
      this.#connections++;
    });
  }

  /** Starts an emulator and resolves once it listens. */
  static async start(options: ServiceEmulatorOptions = {}): Promise<ServiceEmulator> {
    const emulator = new ServiceEmulator(options);
    await new Promise<void>((resolve, reject) => {
      emulator.#server.once('error', reject);
      emulator.#server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
    });
    return emulator;
  }

  /** Base URL to give the client, e.g. `http://127.0.0.1:40123`. */
  get url(): string {
    const address = this.#server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }

  get token(): string {
    return this.#token;
  }

  /** Changes the injected faults; fields left out keep their value. */
  configure(faults: EmulatorFaults): void {
    validateFaults(faults);
    this.#faults = {
      latencyMs: faults.latencyMs ?? this.#faults.latencyMs,
      errorRate: faults.errorRate ?? this.#faults.errorRate,
      hangRate: faults.hangRate ?? this.#faults.hangRate,
    };
    if (faults.rateLimitPerSecond !== undefined) {
      const rate = faults.rateLimitPerSecond;
      this.#limits =
        rate === null ? null : { ratePerSecond: rate, capacity: faults.rateLimitBurst ?? Math.max(1, rate) };
      if (this.#limits) assertValidLimits(this.#limits);
      this.#bucket = this.#limits ? fullBucket(this.#limits, Date.now()) : null;
    }
  }

  get epoch(): number {
    return this.#epoch;
  }

  /** Moves the emulated clock: later queries answer each document's report at this epoch. */
  setEpoch(epoch: number): void {
    if (!Number.isSafeInteger(epoch) || epoch < 0)
      throw new RangeError(`epoch must be a whole number ≥ 0, got ${epoch}`);
    this.#epoch = epoch;
  }

  stats(): EmulatorStats {
    return {
      requests: this.#requests,
      charged: this.#charged,
      byStatus: Object.fromEntries([...this.#byStatus].map(([status, count]) => [String(status), count])),
      chargesByDocument: Object.fromEntries(this.#chargesByDocument),
      maxObservedRatePerSec: this.#rate.peakPerSecond,
      connections: this.#connections,
      hung: this.#hung,
    };
  }

  /** Clears the counters (not the faults). */
  reset(): void {
    this.#requests = 0;
    this.#charged = 0;
    this.#connections = 0;
    this.#hung = 0;
    this.#byStatus.clear();
    this.#chargesByDocument.clear();
    this.#rate.reset();
    if (this.#limits) this.#bucket = fullBucket(this.#limits, Date.now());
  }

  /** Stops listening and drops every connection, hung ones included. */
  async close(): Promise<void> {
    for (const response of this.#hanging) response.destroy();
    this.#hanging.clear();
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  #reply(response: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
    this.#byStatus.set(status, (this.#byStatus.get(status) ?? 0) + 1);
    sendJson(response, status, body, headers);
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://emulator');
    if (url.pathname === '/__stats' && request.method === 'GET') return sendJson(response, 200, this.stats());
    if (url.pathname === '/__reset' && request.method === 'POST') {
      this.reset();
      return sendJson(response, 200, { reset: true });
    }
    if (AiServiceEmulator.handles(url.pathname)) return this.#ai.handle(request, response, url.pathname);
    const match = /^\/api\/([^/]+)$/.exec(url.pathname);
    if (!match) return sendJson(response, 404, errorBody('Rota não encontrada'));
    await this.#query(request, response, decodeURIComponent(match[1] as string));
  }

  async #query(request: IncomingMessage, response: ServerResponse, endpoint: string): Promise<void> {
    this.#requests++;
    const now = Date.now();
    this.#rate.record(now);
    if (request.method !== 'POST')
      return this.#reply(response, 405, errorBody('Método não permitido'), { Allow: 'POST' });

    if (this.#limits && this.#bucket) {
      const taken = takeTokens(this.#bucket, this.#limits, now);
      this.#bucket = taken.state;
      if (!taken.granted) {
        const retryAfter = String(Math.max(1, Math.ceil(taken.waitMs / 1000)));
        return this.#reply(response, 429, errorBody('Limite de requisições excedido'), {
          'Retry-After': retryAfter,
        });
      }
    }
    if (request.headers.authorization !== `Bearer ${this.#token}`) {
      return this.#reply(response, 400, errorBody('Token inválido!'));
    }
    const bytes = await readBody(request, MAX_REQUEST_BYTES);
    const text = bytes?.toString('utf8') ?? null;
    let body: unknown;
    try {
      body = text === null ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (typeof body !== 'object' || body === null)
      return this.#reply(response, 400, errorBody('Corpo JSON inválido'));
    const bureau = ENDPOINT_BUREAUS[endpoint];
    if (bureau === undefined)
      return this.#reply(response, 404, errorBody(`Serviço ${endpoint} não encontrado`));
    const rawDocument = (body as { document?: unknown }).document;
    if (typeof rawDocument !== 'string')
      return this.#reply(response, 400, errorBody('O campo document é obrigatório'));
    const check = readDocument(rawDocument);
    if (check === null) return this.#reply(response, 400, errorBody('Documento inválido'));

    if (this.#random() < this.#faults.hangRate) {
      this.#hung++;
      this.#hanging.add(response);
      response.on('close', () => this.#hanging.delete(response));
      return;
    }
    if (this.#faults.latencyMs > 0) await sleep(this.#faults.latencyMs * (0.75 + this.#random() * 0.5));
    if (this.#random() < this.#faults.errorRate) return this.#replyWithFault(response);

    this.#charged++;
    this.#chargesByDocument.set(check.document, (this.#chargesByDocument.get(check.document) ?? 0) + 1);
    this.#reply(
      response,
      200,
      generateCreditReport(check.document, bureau, { ...this.#reportOptions, epoch: this.#epoch }),
    );
  }

  #replyWithFault(response: ServerResponse): void {
    const roll = this.#random();
    const [status, message] =
      roll < 0.25
        ? [500, 'Erro interno']
        : roll < 0.5
          ? [502, 'Bad gateway']
          : roll < 0.75
            ? [503, 'Serviço indisponível']
            : // The legacy case: HTTP 200 whose body says the query did not succeed.
              [200, 'Não foi possível concluir a consulta. Tente novamente.'];
    this.#reply(response, status, errorBody(message));
  }
}
