import { randomUUID } from 'node:crypto';
import {
  type AlertDetail,
  type AlertEnvelope,
  type AlertEventType,
  type AlertSources,
  alertDetailsOf,
  EVENTS,
  matchesEventPattern,
  subscriptionPatterns,
  type WebhookSubscription,
  webhookHeaderProblem,
} from '../../contract/index.ts';
import { CatalogueEventPublisher } from '../catalogue-event-publisher.ts';

/** A subscription and the headers its requests carry (the auth header among them). */
export interface WebhookTarget {
  readonly subscription: WebhookSubscription;
  readonly headers: Readonly<Record<string, string>>;
}

/** An event a receiver did not take, with what it last answered. */
export interface UndeliveredEvent {
  readonly webhook: string;
  readonly url: string;
  /** The last HTTP status; null when no answer came (refused, reset, timed out). */
  readonly status: number | null;
  readonly reason: string;
  readonly attempts: number;
  readonly event: AlertEnvelope;
}

export interface WebhookDeliveryOptions {
  readonly targets: readonly WebhookTarget[];
  /** How long one event is retried before it is given up (EventBridge: up to 24 h; a laptop run: seconds). */
  readonly retryForMs: number;
  /** One request's limit; EventBridge gives an API destination 5 s. @default 5000 */
  readonly requestTimeoutMs?: number;
  /** The envelope's account and region: a laptop has neither, so they say where the event came from. */
  readonly account?: string;
  readonly region?: string;
}

/** Statuses EventBridge retries for an API destination: 401, 407, 409, 429 and 5xx; any other answer is final. */
function retryable(status: number): boolean {
  return status === 401 || status === 407 || status === 409 || status === 429 || status >= 500;
}

const FIRST_BACKOFF_MS = 100;
const LONGEST_BACKOFF_MS = 5_000;

/**
 * Delivers the alert catalogue's events to webhooks as EventBridge's API destinations would: the same envelope and
 * detail, the same rule patterns, a POST per matching subscription, retries with exponential backoff and jitter
 * for the statuses EventBridge retries, within a time limit. Publishing never waits for a receiver: deliveries run
 * beside the pipeline, and {@link settle} waits for them and returns what could not be delivered.
 */
export class WebhookDelivery extends CatalogueEventPublisher {
  readonly #options: WebhookDeliveryOptions;
  readonly #fullDocuments: boolean;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #undelivered: UndeliveredEvent[] = [];
  #delivered = 0;

  /**
   * @throws Error naming the first header that cannot be sent (a line break in its value, a header the client
   *   sets itself), before any event is published: one found while delivering would fail every event after the
   *   batch was paid for. The message names the header, never its value.
   */
  constructor(options: WebhookDeliveryOptions) {
    super();
    for (const { subscription, headers } of options.targets)
      for (const [name, value] of Object.entries(headers)) {
        const problem = webhookHeaderProblem({ name, value });
        if (problem !== null) throw new Error(`webhook ${JSON.stringify(subscription.name)}: ${problem}`);
      }
    this.#options = options;
    this.#fullDocuments = options.targets.some((target) => target.subscription.includeDocuments === true);
  }

  // Publishing never waits for a receiver: each event is handed to its deliveries, which run beside the pipeline.
  protected async publishEvents<Type extends AlertEventType>(
    type: Type,
    events: readonly AlertSources[Type][],
  ): Promise<void> {
    for (const event of events) this.publish(type, event);
  }

  /** Waits for every delivery under way; returns the events given up since the last call. */
  async settle(): Promise<{ delivered: number; undelivered: UndeliveredEvent[] }> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
    const undelivered = this.#undelivered.splice(0);
    const delivered = this.#delivered;
    this.#delivered = 0;
    return { delivered, undelivered };
  }

  /** The subscriptions it delivers to. */
  get subscriptions(): readonly WebhookSubscription[] {
    return this.#options.targets.map((target) => target.subscription);
  }

  /** Publishes one event of the catalogue to the subscriptions whose patterns it matches. */
  publish<Type extends AlertEventType>(type: Type, event: AlertSources[Type]): void {
    if (this.#options.targets.length === 0) return;
    for (const detail of alertDetailsOf(type, event, { fullDocuments: this.#fullDocuments })) {
      const envelope = this.#envelope(type, detail);
      for (const target of this.#options.targets)
        if (
          subscriptionPatterns(target.subscription).some((pattern) => matchesEventPattern(pattern, envelope))
        )
          this.#track(this.#deliver(target, envelope));
    }
  }

  #envelope(type: AlertEventType, detail: AlertDetail): AlertEnvelope {
    return {
      version: '0',
      // As on EventBridge, each publication has an id of its own; `detail.eventId` is the one that stays.
      id: randomUUID(),
      'detail-type': type,
      source: EVENTS.source,
      account: this.#options.account ?? 'local',
      time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: this.#options.region ?? 'local',
      resources: [],
      detail,
    };
  }

  #track(delivery: Promise<void>): void {
    this.#inFlight.add(delivery);
    void delivery.finally(() => this.#inFlight.delete(delivery));
  }

  async #deliver(target: WebhookTarget, event: AlertEnvelope): Promise<void> {
    const { subscription, headers } = target;
    const giveUpAt = Date.now() + this.#options.retryForMs;
    const body = JSON.stringify(event);
    let attempts = 0;
    for (;;) {
      attempts++;
      const answer = await this.#post(subscription.url, headers, body);
      if (answer.status !== null && answer.status >= 200 && answer.status < 300) {
        this.#delivered++;
        return;
      }
      const backoff =
        Math.min(LONGEST_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempts - 1)) * (0.5 + Math.random() / 2);
      const final = answer.status !== null && !retryable(answer.status);
      if (final || Date.now() + backoff > giveUpAt) {
        this.#undelivered.push({
          webhook: subscription.name,
          url: subscription.url,
          status: answer.status,
          reason: final
            ? `answered ${answer.status}, which is not retried`
            : `${answer.reason}; gave up after ${attempts} attempts`,
          attempts,
          event,
        });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, backoff));
    }
  }

  async #post(
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string,
  ): Promise<{ status: number | null; reason: string }> {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#options.requestTimeoutMs ?? 5_000),
      });
      // The body is not read: only the status counts, and a large answer must not hold the run.
      await response.body?.cancel().catch(() => undefined);
      return { status: response.status, reason: `answered ${response.status}` };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      const timedOut = (error as Error).name === 'TimeoutError';
      // Not the error's message: fetch's refusal of a request repeats the header it refused, value and all, and
      // this reason goes to undelivered-events.jsonl and the terminal.
      return {
        status: null,
        reason: timedOut
          ? 'no answer within the request time limit'
          : cause === undefined
            ? `the request could not be sent (${(error as Error).name})`
            : `no answer (${cause})`,
      };
    }
  }
}
