/**
 * What a re-screen's alerts cost the finaliser: `ChangeAlerts` gathering the worst changes and one `DocumentChanged`
 * per document with a selected change, then the EventBridge publisher turning them into `PutEvents` entries (schema
 * check, eventId, masking; both forms when a subscription asks for documents), against a client that accepts every
 * call at once. Run with `npm run bench:alerts` (`-- --documents 20000` for a shorter run).
 */
import { parseArgs } from 'node:util';
import type { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SeededRandom } from '../emulator/seeded-random.ts';
import { eventBridgePublisher } from '../src/adapters/aws/eventbridge-publisher.ts';
import { ChangeAlerts } from '../src/application/finalise/change-alerts.ts';
import { DEFAULT_ALERT_CHANGE_KINDS } from '../src/contract/index.ts';
import type { ReportChange } from '../src/domain/monitoring/index.ts';
import { batchRecord, rowRecord } from '../test/factories/batch-records.ts';
import { makeCpf } from '../test/factories/documents.ts';

const { values } = parseArgs({ options: { documents: { type: 'string', default: '100000' } } });
const documents = Number(values.documents);
const random = new SeededRandom('alerts bench');
const KINDS: readonly ReportChange['kind'][] = [
  'new_protest',
  'score_drop',
  'score_rise',
  'decision_worsened',
];

function changesOf(): ReportChange[] {
  const kind = KINDS[random.integer(0, KINDS.length - 1)] as ReportChange['kind'];
  return [{ kind, before: '700', after: '580', delta: '-120' }];
}

async function run(fullDocuments: boolean): Promise<void> {
  const batch = { ...batchRecord({ batchId: 'b'.repeat(24) }), portfolio: 'carteira', revision: 1 };
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const alerts = new ChangeAlerts(
    batch,
    { changeKinds: DEFAULT_ALERT_CHANGE_KINDS, worstChanges: 10 },
    'results/x/changes.csv',
  );
  for (let row = 1; row <= documents; row++)
    alerts.add({ ...rowRecord({ row }), document: makeCpf(random), documentType: 'cpf' }, changesOf());
  const gathered = performance.now();
  const heapHeld = process.memoryUsage().heapUsed - heapBefore;
  let entries = 0;
  let calls = 0;
  const client = {
    send: async (command: PutEventsCommand) => {
      calls++;
      entries += command.input.Entries?.length ?? 0;
      return { FailedEntryCount: 0, Entries: [] };
    },
  } as unknown as EventBridgeClient;
  const publisher = eventBridgePublisher({ client, eventBusName: 'default', fullDocuments });
  await publisher.documentsChanged(alerts.documentEvents);
  const published = performance.now();
  const events = alerts.documentEvents.length;
  process.stdout.write(
    `${documents} documents, ${events} DocumentChanged (${fullDocuments ? 'masked and full' : 'masked'}): ` +
      `gathered in ${(gathered - started).toFixed(0)} ms (${(((gathered - started) * 1000) / documents).toFixed(1)} µs a document, ` +
      `${(heapHeld / events).toFixed(0)} bytes held an event), ` +
      `${entries} entries in ${calls} PutEvents calls built in ${(published - gathered).toFixed(0)} ms ` +
      `(${(((published - gathered) * 1000) / entries).toFixed(1)} µs an entry)\n`,
  );
}

await run(false);
await run(true);
