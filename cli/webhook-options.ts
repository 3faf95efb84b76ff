import { ALERT_EVENT_TYPES, DEFAULT_ALERT_CHANGE_KINDS } from '../src/contract/alert-events.ts';
import type { OptionSpec } from './option-spec.ts';

/** How long a local run retries an event by default: long enough for a receiver that restarts, short for a laptop. */
export const DEFAULT_WEBHOOK_RETRY_SECONDS = 30;

const needsWebhook = (option: string) => ({
  option: 'webhook',
  message: `--${option} shapes what --webhook receives: give --webhook <url>`,
});

/** The options a webhook takes, for the runs that send events and for `webhook test`. */
function webhookShape(needs: boolean) {
  const requires = (option: string) => (needs ? { requires: [needsWebhook(option)] } : {});
  return [
    {
      flags: '--webhook-header <header>',
      description: 'a header every webhook request carries, e.g. the receiver\'s key: "X-Api-Key: s3cr3t"',
      value: { type: 'header' },
      repeatable: true,
      ...requires('webhook-header'),
    },
    {
      flags: '--webhook-events <list>',
      description: 'the events webhooks receive',
      value: { type: 'list', of: 'alert-events' },
      default: { value: undefined, text: `all: ${ALERT_EVENT_TYPES.join(',')}` },
      ...requires('webhook-events'),
    },
    {
      flags: '--webhook-change-kinds <list>',
      description: 'the change kinds that send a DocumentChanged',
      value: { type: 'list', of: 'change-kinds' },
      default: { value: undefined, text: DEFAULT_ALERT_CHANGE_KINDS.join(',') },
      ...requires('webhook-change-kinds'),
    },
    {
      flags: '--webhook-documents',
      description: 'send documents in full (by default events mask them: ***.540.222-**)',
      value: { type: 'flag' },
      ...requires('webhook-documents'),
    },
    {
      flags: '--webhook-retry-seconds <s>',
      description:
        'how long an event a receiver refuses (5xx, 429, no answer) is retried before it is written off',
      value: { type: 'duration', unit: 's', min: 0, max: 86_400 },
      default: { value: DEFAULT_WEBHOOK_RETRY_SECONDS },
      ...requires('webhook-retry-seconds'),
    },
  ] as const satisfies readonly OptionSpec[];
}

/** `screen` and `rescreen`: where events go, besides the results folder. */
export const WEBHOOK_OPTIONS = [
  {
    flags: '--webhook <url>',
    description: 'POST each event (BatchCompleted, PortfolioChanged, …) to this URL as EventBridge would',
    value: { type: 'url' },
    repeatable: true,
  },
  ...webhookShape(true),
] as const satisfies readonly OptionSpec[];

/** `webhook test <url>`: what the sample events are sent with. */
export const WEBHOOK_TEST_OPTIONS = [
  ...webhookShape(false),
  { flags: '--json', description: 'print one JSON object with what each event got', value: { type: 'flag' } },
] as const satisfies readonly OptionSpec[];
