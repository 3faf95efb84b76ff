import { z } from 'zod';
import {
  ALERT_DETAIL_SCHEMAS,
  ALERT_EVENT_TYPES,
  type AlertEnvelope,
  type AlertEventType,
  alertDetailsOf,
  DEFAULT_ALERT_CHANGE_KINDS,
  DEFAULT_ALERT_WORST_CHANGES,
  EVENTS,
} from '../src/contract/index.ts';
import { ALERT_SAMPLES } from './alert-samples.ts';

/** Where the page lives, and how it is made again. */
export const ALERT_DOCS_PATH = 'docs/alerts.md';
export const ALERT_DOCS_COMMAND = 'npx tsx scripts/alert-events-doc.ts';

/** When each event is sent, in a sentence. */
const WHEN: Readonly<Record<AlertEventType, string>> = {
  BatchCompleted:
    'A batch finished and its results are written (once per revision: a redrive sends it again).',
  BatchAwaitingApproval:
    'A batch would buy more documents than the approval threshold: it waits for a person.',
  BudgetExhausted: 'A spending cap (the batch’s or the month’s) passed 80 % or reached 100 %.',
  PolicyRejected: 'A credit policy uploaded under `policies/` does not load; no batch is decided with it.',
  OverrideRecorded: 'A person decided a row the policy had decided (`credit-screen override`).',
  PortfolioChanged:
    'A re-screen finished: counts per change kind and its most severe changes (zero counts too: silence means no run).',
  DocumentChanged:
    'One document of a re-screen changed in a way the subscription selects (its `changeKinds`); sent after `PortfolioChanged`.',
};

/** A sample as it arrives: the envelope EventBridge wraps every event in, around the masked detail. */
function sampleEnvelope(type: AlertEventType): AlertEnvelope {
  const [detail] = alertDetailsOf(type, ALERT_SAMPLES[type] as never, { fullDocuments: false });
  return {
    version: '0',
    id: '0d9b7c2e-5f1a-4c3b-9e8d-7a6b5c4d3e2f',
    'detail-type': type,
    source: EVENTS.source,
    account: '123456789012',
    time: '2026-11-25T13:04:05Z',
    region: 'sa-east-1',
    resources: [],
    detail: detail as AlertEnvelope['detail'],
  };
}

const json = (value: unknown): string => `\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\``;

function eventSection(type: AlertEventType): string {
  const schema = z.toJSONSchema(ALERT_DETAIL_SCHEMAS[type]);
  return [
    `### ${type}`,
    '',
    WHEN[type],
    '',
    'As it arrives (documents masked):',
    '',
    json(sampleEnvelope(type)),
    '',
    '<details><summary>JSON Schema of <code>detail</code></summary>',
    '',
    json(schema),
    '',
    '</details>',
    '',
  ].join('\n');
}

const INTRODUCTION = `# Alerts: webhooks and events

[← README](../README.md)

<!-- Written by ${ALERT_DOCS_COMMAND} from src/contract/alert-events.ts; a test fails while this page differs. -->

The pipeline tells your systems what happened instead of waiting for someone to look: a batch is done, one waits
for approval, a spending cap is reached, a policy was refused, a person overrode a decision, a portfolio changed, a
customer in it got worse. Every event is an EventBridge event (source \`credit-screen\`) on the pipeline's bus;
webhooks receive the same JSON, in AWS and on a laptop.

## Subscribing a webhook

In AWS, the construct's \`webhooks\` prop makes for each receiver an EventBridge rule with an API destination: a
connection that authenticates with a secret you keep in Secrets Manager (EventBridge copies it into the
connection's own secret, encrypted with the pipeline key), retries for up to 24 hours (185 attempts, exponential
backoff), and a dead-letter queue whose alarm fires on the first event it could not deliver.

\`\`\`ts
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';

const erpKey = secretsmanager.Secret.fromSecretNameV2(this, 'ErpKey', 'credit-screen/erp-webhook');
new CreditScreenPipeline(this, 'Pipeline', {
  bureauBaseUrl: 'https://gateway.example.com',
  webhooks: [
    {
      name: 'erp',
      url: 'https://erp.example.com/hooks/credit',
      events: ['BatchCompleted', 'BatchAwaitingApproval', 'BudgetExhausted'],
      auth: { type: 'apiKey', header: 'X-Api-Key', secret: erpKey, secretField: 'key' },
    },
    {
      name: 'crm',
      url: 'https://crm.example.com/credit',
      events: ['PortfolioChanged', 'DocumentChanged'],
      changeKinds: ['decision_worsened', 'new_protest'],
      includeDocuments: true, // this receiver is allowed to see CPFs and CNPJs in full
      auth: { type: 'oauth', tokenUrl: 'https://login.example.com/oauth2/token', clientId: 'credit-screen', secret: erpKey },
    },
  ],
  alertTopic: alertsTopic, // optional: e-mail or chat subscriptions, documents masked
});
\`\`\`

- \`auth\` is \`apiKey\` (a header), \`basic\` (user name and password) or \`oauth\` (client credentials: EventBridge
  fetches the token and sends it as a Bearer token). The secret is always given by reference; a value written into
  the template is refused at synth.
- \`events\` lists detail-types; \`changeKinds\` (only with \`DocumentChanged\`) selects which changes send one,
  by default ${DEFAULT_ALERT_CHANGE_KINDS.map((kind) => `\`${kind}\``).join(', ')}.
- A URL that is not https, an unknown event or change kind, or a name used twice fails \`cdk synth\` in one line.
- \`settings.alertWorstChanges\` sets how many changes \`PortfolioChanged\` lists (default ${DEFAULT_ALERT_WORST_CHANGES}).

On a laptop, \`screen\` and \`rescreen\` take \`--webhook <url>\` (repeatable; https, or http to this machine) with
\`--webhook-header 'X-Api-Key: s3cr3t'\`, \`--webhook-events\`, \`--webhook-change-kinds\` and
\`--webhook-documents\`. The run POSTs exactly what EventBridge would (the envelope's \`account\` and \`region\` say
\`local\`), never waits for a receiver while it screens, retries 5xx, 429, 401, 407, 409 and refused connections with
backoff for \`--webhook-retry-seconds\` (default 30), gives each request 5 seconds as EventBridge does, and writes what
it could not deliver to \`undelivered-events.jsonl\` in the results folder with one warning line: the run still
succeeds. Any other 4xx is not retried. \`credit-screen webhook test <url>\` sends one sample of each event and says
what the receiver answered (exit 1 when it did not take them all).

## Receiving events

- **Check who is calling.** Compare the header your subscription's \`auth\` names (\`X-Api-Key\`, or
  \`Authorization: Basic …\` / \`Bearer …\`) with the value you expect, in constant time, and answer 401 otherwise.
  EventBridge adds the header itself; nothing in the body authenticates a request.
- **Drop duplicates by \`detail.eventId\`.** Delivery is at least once: a retry, a redelivery or a batch finalised
  twice sends the same event again. \`detail.eventId\` is derived from what the event is about (the batch and its
  revision, the row, the policy version…), so every copy carries the same one; the envelope's \`id\` is new on each
  publication and is not for this. Keep the ids you have handled for a day (EventBridge retries for 24 hours).
- **Answer quickly**, 2xx within 5 seconds; do the work afterwards. Anything else is retried as above, and a refusal
  that is not retried lands in the webhook's dead-letter queue.
- **Documents** (\`detail.documentForm\`): \`none\` for events that name none; \`masked\` (\`***.982.247-**\`) unless
  the subscription has \`includeDocuments\`, then \`full\`. A receiver only ever gets one form.

## E-mail and chat through the alert topic

Give the construct \`alertTopic\` (an SNS topic) and subscribe addresses to it:

\`\`\`sh
aws sns subscribe --topic-arn arn:aws:sns:sa-east-1:123456789012:credit-alerts \\
  --protocol email --notification-endpoint credito@example.com
\`\`\`

The topic receives every event but \`DocumentChanged\` (one per changed customer would flood an inbox;
\`PortfolioChanged\` lists the worst changes), documents masked; \`alertTopicEvents\` chooses others. A topic that is
not the stack's own needs a policy that lets \`events.amazonaws.com\` publish to it (and, if it is encrypted, use its
key); its owner sets that.

## The events
`;

/** The whole page: how to subscribe and receive, then each event with a sample and its schema. */
export function renderAlertDocs(): string {
  return `${INTRODUCTION}\n${ALERT_EVENT_TYPES.map(eventSection).join('\n')}`;
}
