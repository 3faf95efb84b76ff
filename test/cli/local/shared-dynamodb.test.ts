import { mkdtemp, readdir, readFile, readlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { LocalServices, LocalServicesError } from '../../../cli/local/local-services.ts';
import { DEFAULT_SETTINGS } from '../../../src/contract/index.ts';
import { sharedDynamoDb } from '../../factories/shared-dynamodb.ts';

/** This process's established TCP connections to `port` on loopback (Linux: /proc/net/tcp and /proc/self/fd). */
async function connectionsTo(port: number): Promise<number> {
  const links = await Promise.all(
    (await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')),
  );
  const ownSockets = new Set(links.flatMap((link) => /^socket:\[(\d+)\]$/.exec(link)?.[1] ?? []));
  const portHex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return (await readFile('/proc/net/tcp', 'utf8'))
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter(
      ([, , remote, state, , , , , , inode]) =>
        remote?.endsWith(portHex) && state === '01' && ownSockets.has(inode ?? ''),
    ).length;
}

describe('LocalServices on a shared DynamoDB Local', () => {
  it('keeps each stack in its own table, and drops only that table when it stops', async () => {
    const first = await LocalServices.start(DEFAULT_SETTINGS, { sharedDynamoDb: sharedDynamoDb() });
    const second = await LocalServices.start(DEFAULT_SETTINGS, { sharedDynamoDb: sharedDynamoDb() });
    try {
      const key = { pk: 'BATCH#same', sk: 'META' };
      await first.clients.dynamo.send(
        new PutCommand({ TableName: first.resources.tableName, Item: { ...key, owner: 'first' } }),
      );

      const seenBySecond = await second.clients.dynamo.send(
        new GetCommand({ TableName: second.resources.tableName, Key: key }),
      );
      await first.stop();
      const tables = await second.clients.dynamo.send(new ListTablesCommand({}));

      expect(first.resources.tableName).not.toBe(second.resources.tableName);
      expect(seenBySecond.Item).toBeUndefined();
      expect(tables.TableNames).toContain(second.resources.tableName);
      expect(tables.TableNames).not.toContain(first.resources.tableName);
    } finally {
      await second.stop();
    }
  });

  it.skipIf(process.platform !== 'linux')(
    'leaves no connection open to the shared server once stopped, in strict mode or not',
    async () => {
      const shared = sharedDynamoDb();
      const port = Number(new URL(shared.endpoint).port);
      const counts: number[] = [];

      for (const strict of [undefined, {}]) {
        const stack = await LocalServices.start(DEFAULT_SETTINGS, {
          sharedDynamoDb: sharedDynamoDb(),
          strict,
        });
        await stack.stop();
        counts.push(await connectionsTo(port));
      }

      // A document client's destroy() leaves its base client's keep-alive connections open: each stack used to
      // leave one or two, for as long as the shared server ran.
      expect(counts).toEqual([0, 0]);
    },
  );

  it('refuses a state directory, whose database needs a DynamoDB Local of its own', async () => {
    const stateDirectory = await mkdtemp(join(tmpdir(), 'credit-screen-shared-'));

    const starting = LocalServices.start(DEFAULT_SETTINGS, {
      stateDirectory,
      sharedDynamoDb: sharedDynamoDb(),
    });

    await expect(starting).rejects.toThrow(LocalServicesError);
    await expect(starting).rejects.toThrow('a state directory needs a DynamoDB Local of its own');
  });
});
