import { join } from 'node:path';
import { type UndeliveredEvent, WebhookDelivery } from '../src/adapters/webhook/webhook-delivery.ts';
import {
  ALERT_EVENT_TYPES,
  publishedChangeKinds,
  validateWebhooks,
  type WebhookSubscription,
  webhookHeaderRecord,
} from '../src/contract/index.ts';
import type { ChangeKind } from '../src/domain/monitoring/index.ts';
import { CliError } from './cli-error.ts';
import { writePrivateFile } from './local/private-files.ts';
import type { OptionsOf } from './option-types.ts';
import { printable } from './terminal-text.ts';
import type { WEBHOOK_OPTIONS } from './webhook-options.ts';

/** The webhook options of a run that sends events (`screen`, `rescreen`). */
type WebhookRunOptions = OptionsOf<typeof WEBHOOK_OPTIONS>;

/** Where undelivered events are written, in the batch's results folder. */
export const UNDELIVERED_EVENTS_FILE = 'undelivered-events.jsonl';

/** The subscriptions the options describe (one per `--webhook`), checked as the construct checks its own. */
export function webhookSubscriptionsOf(
  options: WebhookRunOptions,
  refusedAs = '--webhook',
): readonly WebhookSubscription[] {
  const events = options.webhookEvents ?? ALERT_EVENT_TYPES;
  if (options.webhookChangeKinds !== undefined && !events.includes('DocumentChanged'))
    throw new CliError(
      '--webhook-change-kinds selects DocumentChanged events: add DocumentChanged to --webhook-events',
    );
  const subscriptions = (options.webhook ?? []).map((url, index) => ({
    name: `webhook-${index + 1}`,
    url,
    events,
    ...(options.webhookChangeKinds === undefined ? {} : { changeKinds: options.webhookChangeKinds }),
    includeDocuments: options.webhookDocuments === true,
  }));
  try {
    return validateWebhooks(subscriptions, 'local');
  } catch (error) {
    throw new CliError(`${refusedAs}: ${(error as Error).message.replace(/^webhook "webhook-1": /, '')}`);
  }
}

/**
 * The `--webhook-header` lines as the requests' headers, each already checked when parsed; refused in one line
 * when a name is given twice. Checked with the other options, before anything is bought.
 */
export function webhookHeadersOf(options: WebhookRunOptions): Record<string, string> {
  try {
    return webhookHeaderRecord(options.webhookHeader ?? []);
  } catch (error) {
    throw new CliError(`--webhook-header ${(error as Error).message}`);
  }
}

/** The alert settings the subscriptions call for, as the construct derives them from its `webhooks`. */
export function alertSettingsOf(subscriptions: readonly WebhookSubscription[]): {
  readonly alertChangeKinds: readonly ChangeKind[];
  readonly alertFullDocuments: boolean;
} {
  return {
    alertChangeKinds: publishedChangeKinds(subscriptions),
    alertFullDocuments: subscriptions.some((subscription) => subscription.includeDocuments === true),
  };
}

/** The delivery of a run's events to its webhooks; null when it has none. */
export function startWebhooks(options: WebhookRunOptions): WebhookDelivery | null {
  const subscriptions = webhookSubscriptionsOf(options);
  if (subscriptions.length === 0) return null;
  const headers = webhookHeadersOf(options);
  return new WebhookDelivery({
    targets: subscriptions.map((subscription) => ({ subscription, headers })),
    retryForMs: options.webhookRetrySeconds * 1000,
  });
}

/** One line per undelivered event, as `undelivered-events.jsonl` keeps them. */
function undeliveredLines(undelivered: readonly UndeliveredEvent[]): string {
  return undelivered.map((entry) => `${JSON.stringify(entry)}\n`).join('');
}

/**
 * Waits for the run's deliveries (each bounded by its retry time), then says in one line what was delivered and,
 * when some were not, writes them to `undelivered-events.jsonl` in `directory` (a batch's results folder, or the
 * state directory for events sent outside one) with one warning. A receiver that is down never fails the run: the
 * batch is paid for and its results are there. Says nothing when there was nothing to deliver.
 */
export async function settleWebhooks(
  delivery: WebhookDelivery | null,
  directory: string | null,
): Promise<void> {
  if (delivery === null) return;
  const { delivered, undelivered } = await delivery.settle();
  if (undelivered.length === 0) {
    if (delivered > 0)
      process.stderr.write(`webhooks: ${delivered} event${delivered === 1 ? '' : 's'} delivered\n`);
    return;
  }
  const file = directory === null ? null : join(directory, UNDELIVERED_EVENTS_FILE);
  if (file !== null) await writePrivateFile(file, undeliveredLines(undelivered), { append: true });
  const first = undelivered[0] as UndeliveredEvent;
  // Only the receiver's origin: a webhook's path often is its secret (chat services put the token there).
  process.stderr.write(
    `warning: webhooks: ${undelivered.length} event${undelivered.length === 1 ? '' : 's'} not delivered (${delivered} delivered; first: ${first.event['detail-type']} to ${first.webhook} at ${printable(new URL(first.url).origin)}, ${first.reason})${file === null ? '' : `; written to ${printable(file)}`}\n`,
  );
}
