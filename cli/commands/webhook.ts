import type { Command } from 'commander';
import { WebhookDelivery } from '../../src/adapters/webhook/webhook-delivery.ts';
import { ALERT_EVENT_TYPES, type AlertEventType } from '../../src/contract/index.ts';
import { ALERT_SAMPLES } from '../alert-samples.ts';
import { CliError } from '../cli-error.ts';
import { webhookHeadersOf, webhookSubscriptionsOf } from '../local-webhooks.ts';
import { addTableAction } from '../option-parsers.ts';
import type { CommandOptions } from '../option-types.ts';
import { printable } from '../terminal-text.ts';

/**
 * Sends one sample of each event the options select to `url`, as a run would (same envelope, patterns, headers,
 * retries), and says what the receiver did with them; exit 1 when it did not take them all.
 */
async function testWebhook(url: string, options: CommandOptions<'webhook test'>): Promise<void> {
  const [subscription] = webhookSubscriptionsOf({ ...options, webhook: [url] }, 'webhook test');
  if (subscription === undefined) throw new CliError('webhook test needs a URL');
  const headers = webhookHeadersOf(options);
  const delivery = new WebhookDelivery({
    targets: [{ subscription, headers }],
    retryForMs: options.webhookRetrySeconds * 1000,
  });
  const types: readonly AlertEventType[] = options.webhookEvents ?? ALERT_EVENT_TYPES;
  for (const type of types) delivery.publish(type, ALERT_SAMPLES[type] as never);
  const { delivered, undelivered } = await delivery.settle();
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ url, delivered, undelivered }, null, 2)}\n`);
  } else {
    process.stdout.write(
      `${printable(url)}: ${delivered} sample event${delivered === 1 ? '' : 's'} delivered\n`,
    );
    for (const entry of undelivered)
      process.stdout.write(`  not delivered: ${entry.event['detail-type']}: ${entry.reason}\n`);
  }
  if (undelivered.length > 0)
    throw new CliError(
      `${undelivered.length} of ${delivered + undelivered.length} sample events were not delivered`,
      1,
    );
}

export function registerWebhookCommand(program: Command): void {
  const webhook = program.command('webhook').description("Webhooks that receive the pipeline's events");
  addTableAction(
    webhook
      .command('test')
      .argument('<url>', 'the receiver: https, or http to this machine')
      .description('Send a sample of each event to a webhook, as a run would, and say what it answered'),
    'webhook test',
    async (options, url: string) => testWebhook(url, options),
  );
}
