import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalStateDirectory, STATE_MARKER } from '../../cli/local/local-state.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { screenFile, startTestPipeline, type TestPipeline, writeCsv } from '../factories/pipeline.ts';

const running: TestPipeline[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((test) => test.stop()));
});

async function start(stateDirectory: string, fresh = false) {
  const test = await startTestPipeline({ stateDirectory, fresh, settings: { freshnessHours: 24 } });
  running.push(test);
  return test;
}

async function stop(test: TestPipeline) {
  running.splice(running.indexOf(test), 1);
  await test.stop();
}

describe('local state between runs', () => {
  it('keeps reports and results across runs, so the freshness cache spends nothing the second time', async () => {
    const state = await mkdtemp(join(tmpdir(), 'credit-screen-state-'));
    const file = await writeCsv('lista.csv', customerListCsv(distinctDocuments(25, 'state')));

    const first = await start(state);
    const firstRun = await screenFile(first, file);
    await stop(first);
    const second = await start(state);
    const secondRun = await screenFile(second, file);

    expect(firstRun.manifest.counts).toMatchObject({ screened: 25, cached: 0 });
    expect(secondRun.manifest.counts).toMatchObject({ screened: 0, cached: 25 });
    expect(second.emulator.stats().charged).toBe(0);
    // The first run's results are still in the (restored) bucket.
    expect(await second.pipeline.readText(`results/${firstRun.batchId}/summary.csv`)).toContain('screened');
  }, 120_000);

  it('starts empty with fresh, and refuses a directory another run holds', async () => {
    const state = await mkdtemp(join(tmpdir(), 'credit-screen-state-'));
    const file = await writeCsv('lista.csv', customerListCsv(distinctDocuments(5, 'fresh')));
    const first = await start(state);
    await screenFile(first, file);

    await expect(LocalStateDirectory.open(state)).rejects.toThrow(
      `is in use by another credit-screen run (pid ${process.pid})`,
    );
    await expect(LocalStateDirectory.open(state, { fresh: true })).rejects.toThrow(
      'is in use by another credit-screen run',
    );
    await stop(first);
    const again = await start(state, true);
    const rerun = await screenFile(again, file);

    expect(rerun.manifest.counts).toMatchObject({ screened: 5, cached: 0 });
  }, 120_000);

  it('drops saved objects older than the retention period when it opens', async () => {
    const state = await mkdtemp(join(tmpdir(), 'credit-screen-state-'));
    const first = await start(state);
    await screenFile(first, await writeCsv('lista.csv', customerListCsv(distinctDocuments(3, 'old'))));
    await stop(first);
    const saved = join(state, 's3', 'results');
    const [batch] = await readdir(saved);
    const longAgo = new Date(Date.now() - 400 * 86_400_000);
    for (const name of await readdir(join(saved, batch as string)))
      await utimes(join(saved, batch as string, name), longAgo, longAgo);

    const second = await start(state);

    await expect(second.pipeline.readText(`results/${batch}/summary.csv`)).rejects.toThrow();
  }, 120_000);
});

/** Every entry under `directory` (itself included) with its permission bits, as `path mode` in octal. */
async function modesUnder(directory: string): Promise<Map<string, string>> {
  const modes = new Map<string, string>();
  const visit = async (path: string, name: string) => {
    const info = await stat(path);
    modes.set(name, (info.mode & 0o777).toString(8));
    if (info.isDirectory())
      for (const entry of await readdir(path)) await visit(join(path, entry), `${name}/${entry}`);
  };
  await visit(directory, '.');
  return modes;
}

describe('the state directory on the user’s machine', () => {
  it('is private: directories 0700, files 0600, the database file DynamoDB Local writes included', async () => {
    const state = join(await mkdtemp(join(tmpdir(), 'credit-screen-state-')), 'state');
    const test = await start(state);
    await screenFile(test, await writeCsv('lista.csv', customerListCsv(distinctDocuments(3, 'private'))));
    await stop(test);

    const modes = await modesUnder(state);

    expect(modes.get('./dynamodb/shared-local-instance.db')).toBe('600');
    expect([...modes.keys()].some((path) => path.startsWith('./s3/raw/'))).toBe(true);
    for (const [path, mode] of modes) {
      const isDirectory = (await stat(join(state, path))).isDirectory();
      expect(`${path} ${mode}`).toBe(`${path} ${isDirectory ? '700' : '600'}`);
    }
  }, 120_000);

  it('makes a state directory created before files were private, private when it opens it', async () => {
    const state = await mkdtemp(join(tmpdir(), 'credit-screen-state-'));
    await mkdir(join(state, 'dynamodb'), { mode: 0o755 });
    await writeFile(join(state, 'dynamodb', 'shared-local-instance.db'), '', { mode: 0o644 });

    const opened = await LocalStateDirectory.open(state);
    await opened.release();

    expect((await stat(join(state, 'dynamodb'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(state, 'dynamodb', 'shared-local-instance.db'))).mode & 0o777).toBe(0o600);
  });

  it('refuses, with or without fresh, a directory holding anything but a state, and deletes nothing', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'credit-screen-folder-'));
    await writeFile(join(folder, 'lista.csv'), 'cpf\n51954022212\n');
    await mkdir(join(folder, 'fotos'));

    await expect(LocalStateDirectory.open(folder, { fresh: true })).rejects.toThrow(
      `${folder} is not a credit-screen state directory (it holds other files, such as`,
    );
    await expect(LocalStateDirectory.open(folder)).rejects.toThrow('is not a credit-screen state directory');
    expect((await readdir(folder)).sort()).toEqual(['fotos', 'lista.csv']);
  });

  it('with fresh, empties a state directory of what a state holds, and only that', async () => {
    const state = await mkdtemp(join(tmpdir(), 'credit-screen-state-'));
    const first = await LocalStateDirectory.open(state);
    await writeFile(join(first.dynamoDbPath, 'shared-local-instance.db'), 'old data');
    await mkdir(join(first.objectsPath, 'results'), { recursive: true });
    await first.release();
    await writeFile(join(state, 'LEIA-ME.txt'), 'a note the user keeps here');

    const again = await LocalStateDirectory.open(state, { fresh: true });
    await again.release();

    expect((await readdir(state)).sort()).toEqual(['LEIA-ME.txt', STATE_MARKER, 'dynamodb'].sort());
    expect(await readdir(join(state, 'dynamodb'))).toEqual([]);
  });

  it('uses an empty directory, and one from before the marker existed, and marks them', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'credit-screen-state-'));
    const legacy = await mkdtemp(join(tmpdir(), 'credit-screen-state-'));
    await mkdir(join(legacy, 'dynamodb'));
    await mkdir(join(legacy, 's3'));

    for (const directory of [empty, legacy]) {
      const opened = await LocalStateDirectory.open(directory, { fresh: true });
      await opened.release();
      expect(await readdir(directory)).toContain(STATE_MARKER);
    }
  });
});

/** A process standing in for a DynamoDB Local left running on `database` by a run killed with -9. */
function fakeDatabaseServer(database: string): ChildProcess {
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '--', '-dbPath', database], {
    stdio: 'ignore',
  });
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid as number;
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

describe('a state whose run was killed with -9', () => {
  it('stops the database server the dead run left on it before anyone uses it again', async () => {
    const state = await mkdtemp(join(tmpdir(), 'credit-screen-state-'));
    const first = await LocalStateDirectory.open(state);
    const orphan = fakeDatabaseServer(first.dynamoDbPath);
    await first.recordChild(orphan.pid as number);
    // The run dies without releasing anything: its lock names a dead pid, and the server it started.
    const lock = JSON.parse(await readFile(join(state, 'lock'), 'utf8'));
    await writeFile(join(state, 'lock'), JSON.stringify({ ...lock, pid: await deadPid() }));

    const next = await LocalStateDirectory.open(state);
    await next.release();

    expect(next.reclaimed).toEqual([orphan.pid]);
    await expect.poll(() => exited(orphan), { timeout: 5000 }).toBe(true);
  });

  it('leaves alone a live process that only reuses a recorded pid (it does not run on this database)', async () => {
    const state = await mkdtemp(join(tmpdir(), 'credit-screen-state-'));
    const stranger = fakeDatabaseServer('/somewhere/else');
    try {
      await mkdir(state, { recursive: true });
      await writeFile(
        join(state, 'lock'),
        JSON.stringify({ pid: await deadPid(), children: [stranger.pid] }),
      );

      const opened = await LocalStateDirectory.open(state);
      await opened.release();

      expect(opened.reclaimed).toEqual([]);
      expect(exited(stranger)).toBe(false);
    } finally {
      stranger.kill();
    }
  });
});
