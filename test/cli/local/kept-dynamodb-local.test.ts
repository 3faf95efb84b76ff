import { mkdtemp, readFile, symlink, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  keepDynamoDbLocalBetweenRuns,
  stopKeptDynamoDbLocals,
} from '../../../cli/local/kept-dynamodb-local.ts';
import { LocalServices } from '../../../cli/local/local-services.ts';
import { LocalStateDirectory } from '../../../cli/local/local-state.ts';
import { DEFAULT_SETTINGS } from '../../../src/contract/index.ts';
import { runCli } from '../../factories/run-cli.ts';

const KEY = { pk: 'BATCH#kept', sk: 'META' };

async function put(stack: LocalServices, owner: string): Promise<void> {
  await stack.clients.dynamo.send(
    new PutCommand({ TableName: stack.resources.tableName, Item: { ...KEY, owner } }),
  );
}

async function owner(stack: LocalServices): Promise<unknown> {
  const read = await stack.clients.dynamo.send(
    new GetCommand({ TableName: stack.resources.tableName, Key: KEY }),
  );
  return read.Item?.owner;
}

/** A run on `state` that writes `owner` (when given) and returns the server it used and what it read first. */
async function runOn(state: string, options: { write?: string; fresh?: boolean } = {}) {
  const stack = await LocalServices.start(DEFAULT_SETTINGS, { stateDirectory: state, fresh: options.fresh });
  try {
    const seen = await owner(stack);
    if (options.write !== undefined) await put(stack, options.write);
    return { endpoint: stack.endpoints.dynamodb, seen };
  } finally {
    await stack.stop();
  }
}

const DATABASE_FILE = (state: string) => join(state, 'dynamodb', 'shared-local-instance.db');
const lockOf = async (state: string) => JSON.parse(await readFile(join(state, 'lock'), 'utf8'));

describe('DynamoDB Local kept between the runs of one process', () => {
  let state: string;
  beforeEach(async () => {
    state = join(await mkdtemp(join(tmpdir(), 'credit-screen-kept-')), 'state');
    keepDynamoDbLocalBetweenRuns(true);
  });
  afterEach(async () => {
    keepDynamoDbLocalBetweenRuns(false);
    await stopKeptDynamoDbLocals();
  });

  it('serves the next run on the same folder, with what the last one wrote, and leaves the folder free', async () => {
    const first = await runOn(state, { write: 'first run' });
    const lock = await lockOf(state);
    await LocalStateDirectory.check(state);

    const second = await runOn(state);

    expect(second.endpoint).toBe(first.endpoint);
    expect(second.seen).toBe('first run');
    expect(lock).toMatchObject({ pid: process.pid, parked: true, children: [expect.any(Number)] });
  });

  it('is stopped by a run of another process, which sees what was written; the next run starts a new one', async () => {
    const first = await runOn(state, { write: 'first run' });
    const parkedServer = (await lockOf(state)).children[0] as number;

    const other = await runCli(['audit', '--state', state, '--document', '415.676.380-31'], {
      ownProcess: true,
    });
    const third = await runOn(state);

    expect(other.code).toBe(0);
    // The other process's own server, not one left by a killed run: nothing said about it.
    expect(other.stderr).not.toContain('left running');
    expect(() => process.kill(parkedServer, 0)).toThrow();
    expect(third.endpoint).not.toBe(first.endpoint);
    expect(third.seen).toBe('first run');
  });

  it('is stopped, not reused, by --fresh, and by a database file changed while it waited', async () => {
    const first = await runOn(state, { write: 'first run' });
    const fresh = await runOn(state, { fresh: true, write: 'fresh run' });
    const unchanged = await runOn(state);
    // As a file put back from a copy would be: the same name, another modification time.
    await utimes(DATABASE_FILE(state), new Date(), new Date(Date.now() - 60_000));
    const touched = await runOn(state);

    expect(fresh.endpoint).not.toBe(first.endpoint);
    expect(fresh.seen).toBeUndefined();
    expect(unchanged.endpoint).toBe(fresh.endpoint);
    expect(touched.endpoint).not.toBe(unchanged.endpoint);
    expect(touched.seen).toBe('fresh run');
  });

  it('is the same server whichever name the folder is given (through a symlink)', async () => {
    const alias = join(await mkdtemp(join(tmpdir(), 'credit-screen-kept-alias-')), 'state');
    const first = await runOn(state, { write: 'first run' });
    await symlink(state, alias);

    const throughAlias = await runOn(alias);

    expect(throughAlias.endpoint).toBe(first.endpoint);
    expect(throughAlias.seen).toBe('first run');
  });

  it('keeps two servers at most: parking a third stops the one parked first', async () => {
    const [first, second, third] = [state, `${state}-2`, `${state}-3`] as const;
    await runOn(first);
    const firstServer = (await lockOf(first)).children[0] as number;
    const thirdRun = await runOn(third, { write: 'third run' });
    await runOn(second);

    const thirdAgain = await runOn(third);

    expect(() => process.kill(firstServer, 0)).toThrow();
    expect(thirdAgain.endpoint).toBe(thirdRun.endpoint);
    expect(thirdAgain.seen).toBe('third run');
  });

  it('is not kept when keeping is off: the run stops its server and removes the lock', async () => {
    keepDynamoDbLocalBetweenRuns(false);

    const first = await runOn(state, { write: 'first run' });
    const second = await runOn(state);

    expect(second.endpoint).not.toBe(first.endpoint);
    expect(second.seen).toBe('first run');
    await expect(readFile(join(state, 'lock'))).rejects.toThrow();
  });
});
