import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UNDELIVERED_EVENTS_FILE } from '../../cli/local-webhooks.ts';
import type { AlertEnvelope, BatchManifest } from '../../src/contract/index.ts';
import { DEFAULT_ALERT_CHANGE_KINDS, DEFAULT_ALERT_WORST_CHANGES } from '../../src/contract/index.ts';
import type { ChangeKind } from '../../src/domain/monitoring/index.ts';
import { CHANGE_SEVERITY } from '../../src/domain/summary/index.ts';
import { distinctDocuments } from '../factories/customer-lists.ts';
import { parseSummary } from '../factories/pipeline.ts';
import { runCli } from '../factories/run-cli.ts';
import { ScriptedServer } from '../factories/scripted-server.ts';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function receiver(): Promise<ScriptedServer> {
  const server = await ScriptedServer.start({ status: 204, body: '' });
  servers.push(server);
  return server;
}

async function listOf(documents: readonly string[]): Promise<{ directory: string; file: string }> {
  const directory = await mkdtemp(join(tmpdir(), 'credit-screen-webhooks-'));
  const file = join(directory, 'carteira.csv');
  await writeFile(file, `documento\n${documents.join('\n')}\n`);
  return { directory, file };
}

/** `screen` of the list on the memory engine, results in `out`, with the webhook options given. */
const screenInMemory = (directory: string, file: string, out: string, options: readonly string[]) =>
  runCli(['screen', file, '--engine', 'memory', '--out', out, ...options], { cwd: directory });

const eventsOf = (server: ScriptedServer): AlertEnvelope[] =>
  server.requests.map((request) => JSON.parse(request.body) as AlertEnvelope);

describe('credit-screen runs with --webhook (a real loopback receiver)', () => {
  it('screen sends one BatchCompleted whose detail matches the manifest, with the header given', async () => {
    const server = await receiver();
    const { directory, file } = await listOf(distinctDocuments(12, 'webhook-screen'));
    const out = join(directory, 'out');

    const result = await screenInMemory(directory, file, out, [
      '--webhook',
      `${server.url}/hooks`,
      '--webhook-header',
      'X-Api-Key: s3cr3t',
    ]);

    expect(result.code, result.stderr).toBe(0);
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')) as BatchManifest;
    const events = eventsOf(server);
    expect(events.map((event) => event['detail-type'])).toEqual(['BatchCompleted']);
    expect(events[0]?.detail).toMatchObject({
      batchId: manifest.batchId,
      revision: manifest.revision,
      status: manifest.status,
      counts: manifest.counts,
      documentForm: 'none',
    });
    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/hooks' });
    expect(server.requests[0]?.headers['x-api-key']).toBe('s3cr3t');
    expect(result.stderr).toContain('webhooks: 1 event delivered');
  }, 120_000);

  it('a batch left waiting for approval still sends its BatchAwaitingApproval before the run ends', async () => {
    const server = await receiver();
    const { directory, file } = await listOf(distinctDocuments(3, 'webhook-approval'));

    const result = await runCli(
      ['screen', file, '--engine', 'memory', '--approve-above', '0', '--webhook', server.url],
      { cwd: directory },
    );

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/nothing was bought/);
    expect(eventsOf(server).map((event) => [event['detail-type'], event.detail])).toEqual([
      ['BatchAwaitingApproval', expect.objectContaining({ quote: expect.objectContaining({ to_buy: 3 }) })],
    ]);
  }, 120_000);

  it('a receiver that is down leaves the run green, the events in undelivered-events.jsonl and one warning', async () => {
    const down = await ScriptedServer.start();
    const url = down.url;
    await down.close();
    const { directory, file } = await listOf(distinctDocuments(5, 'webhook-down'));
    const out = join(directory, 'out');

    const result = await screenInMemory(directory, file, out, [
      '--webhook',
      `${url}/services/T0/B0/s3cr3t`,
      '--webhook-retry-seconds',
      '1',
    ]);

    expect(result.code, result.stderr).toBe(0);
    const file_ = join(out, UNDELIVERED_EVENTS_FILE);
    const lines = (await readFile(file_, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      expect.objectContaining({
        webhook: 'webhook-1',
        status: null,
        event: expect.objectContaining({ 'detail-type': 'BatchCompleted' }),
      }),
    ]);
    expect((await stat(file_)).mode & 0o777).toBe(0o600);
    expect(result.stderr.split('\n').filter((line) => line.startsWith('warning: webhooks:'))).toHaveLength(1);
    // The warning names the receiver by its origin: a webhook's path is often its secret.
    expect(result.stderr).not.toContain('s3cr3t');
  }, 120_000);

  it('a re-screen sends PortfolioChanged with the counts of changes.csv, and one DocumentChanged per document with a selected change', async () => {
    const server = await receiver();
    const { directory, file } = await listOf(distinctDocuments(80, 'webhook-rescreen'));
    const kinds = [...DEFAULT_ALERT_CHANGE_KINDS, 'score_rise'];
    const hooks = [
      '--webhook',
      server.url,
      '--webhook-events',
      'PortfolioChanged,DocumentChanged',
      '--webhook-change-kinds',
      kinds.join(','),
    ];

    const first = await runCli(['rescreen', file, '--epoch', '0', '--out', join(directory, 'first')], {
      cwd: directory,
    });
    const second = await runCli(
      ['rescreen', file, '--epoch', '1', '--out', join(directory, 'second'), ...hooks],
      { cwd: directory },
    );

    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    const changes = parseSummary(
      await readFile(join(directory, 'second', 'changes.csv'), 'utf8'),
    ) as unknown as Record<string, string>[];
    const countsInFile: Record<string, number> = {};
    for (const line of changes)
      countsInFile[line.change as string] = (countsInFile[line.change as string] ?? 0) + 1;
    const selectedDocuments = new Set(
      changes.filter((line) => kinds.includes(line.change as string)).map((line) => line.document),
    );
    const events = eventsOf(server);
    const portfolio = events.filter((event) => event['detail-type'] === 'PortfolioChanged');
    const documents = events.filter((event) => event['detail-type'] === 'DocumentChanged');
    expect(portfolio).toHaveLength(1);
    const { counts } = (portfolio[0] as AlertEnvelope).detail as unknown as {
      counts: Record<string, number>;
    };
    expect(Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0))).toEqual(countsInFile);
    const { worstChanges } = (portfolio[0] as AlertEnvelope).detail as unknown as {
      worstChanges: { kind: ChangeKind }[];
    };
    const mostSevere = CHANGE_SEVERITY.find((kind) => countsInFile[kind] !== undefined);
    expect(worstChanges).toHaveLength(Math.min(DEFAULT_ALERT_WORST_CHANGES, changes.length));
    expect(worstChanges[0]?.kind).toBe(mostSevere);
    expect(selectedDocuments.size).toBeGreaterThan(0);
    expect(documents).toHaveLength(selectedDocuments.size);
    expect(new Set(documents.map((event) => event.detail.eventId)).size).toBe(documents.length);
    for (const event of documents) expect((event.detail as { document: string }).document).toMatch(/\*\*/);
  }, 240_000);
});
