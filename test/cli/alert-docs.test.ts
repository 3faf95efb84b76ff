import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_DOCS_COMMAND, ALERT_DOCS_PATH, renderAlertDocs } from '../../cli/alert-docs.ts';
import { ALERT_SAMPLES } from '../../cli/alert-samples.ts';
import { WebhookDelivery } from '../../src/adapters/webhook/webhook-delivery.ts';
import { ALERT_EVENT_TYPES, type AlertEnvelope } from '../../src/contract/index.ts';
import { ScriptedServer } from '../factories/scripted-server.ts';

let server: ScriptedServer | undefined;
afterEach(async () => server?.close());

/** The JSON blocks of the page that show an event as it arrives. */
function documentedSamples(page: string): AlertEnvelope[] {
  return [...page.matchAll(/As it arrives \(documents masked\):\n\n```json\n([\s\S]*?)\n```/g)].map(
    (match) => JSON.parse(match[1] as string) as AlertEnvelope,
  );
}

describe(ALERT_DOCS_PATH, () => {
  it(`is what the catalogue makes (${ALERT_DOCS_COMMAND} writes it again)`, async () => {
    const committed = await readFile(new URL(`../../${ALERT_DOCS_PATH}`, import.meta.url), 'utf8');

    expect(committed).toBe(renderAlertDocs());
  });

  it('shows each event as a receiver really gets it: the same body but for the envelope’s id, time, account and region', async () => {
    server = await ScriptedServer.start({ status: 200, body: '' });
    const delivery = new WebhookDelivery({
      targets: [{ subscription: { name: 'docs', url: server.url, events: ALERT_EVENT_TYPES }, headers: {} }],
      retryForMs: 1000,
    });
    for (const type of ALERT_EVENT_TYPES) delivery.publish(type, ALERT_SAMPLES[type] as never);
    await delivery.settle();
    const anonymous = ({
      id: _id,
      time: _time,
      account: _account,
      region: _region,
      ...rest
    }: AlertEnvelope) => rest;

    const received = server.requests.map((request) => anonymous(JSON.parse(request.body) as AlertEnvelope));
    const documented = documentedSamples(renderAlertDocs()).map(anonymous);

    expect(documented).toHaveLength(ALERT_EVENT_TYPES.length);
    expect(received.sort((a, b) => a['detail-type'].localeCompare(b['detail-type']))).toEqual(
      documented.sort((a, b) => a['detail-type'].localeCompare(b['detail-type'])),
    );
  });
});
