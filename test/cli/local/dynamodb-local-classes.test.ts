import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  dynamoDbLocalHome,
  javaAvailable,
  localDynamoDbClient,
  startDynamoDbLocal,
  startSharedDynamoDbLocal,
  stopProcess,
} from '../../../cli/local/dynamodb-local.ts';
import { type ClassArchiveOptions, dynamoDbLocalLaunch } from '../../../cli/local/dynamodb-local-classes.ts';

const JAVA = 'openjdk version "17.0.15" (test)';
const OPTIONS = ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'];

/** A fresh cache root, and the options of a launch that keeps its cache there. */
async function cache(overrides: Partial<ClassArchiveOptions> = {}): Promise<ClassArchiveOptions> {
  const cacheRoot = await mkdtemp(join(tmpdir(), 'credit-screen-classes-'));
  return { cacheRoot, javaVersion: JAVA, javaOptions: OPTIONS, ...overrides };
}

/** The one cache folder under `root` (one release, Java build and options). */
async function cacheFolder(root: string): Promise<string> {
  const folders = (await readdir(root)).filter((name) => !name.includes('.building-'));
  expect(folders).toHaveLength(1);
  return join(root, folders[0] ?? '');
}

/** The value of the JVM option `name=` among `args`. */
function optionValue(args: readonly string[], name: string): string {
  const value = args.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);
  if (value === undefined) throw new Error(`no ${name} in ${args.join(' ')}`);
  return value;
}

/** Runs Java with `args` and DynamoDB Local's `-help`: its exit code and what it printed. */
function runJava(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const java = spawn('java', [...args, '-help'], { cwd: dynamoDbLocalHome() });
    let output = '';
    java.stdout.on('data', (chunk) => (output += chunk));
    java.stderr.on('data', (chunk) => (output += chunk));
    java.on('close', (code) => resolve({ code, output }));
  });
}

describe('DynamoDB Local with a class archive', () => {
  it('writes the archive on the first run, keeps it once Java exits cleanly, and maps it afterwards', async () => {
    // Arrange
    const options = await cache();
    const home = dynamoDbLocalHome();

    // Act: the first start, whose Java writes the archive as it exits (143: after SIGTERM)
    const first = dynamoDbLocalLaunch(home, options);
    await writeFile(optionValue(first.args, '-XX:ArchiveClassesAtExit'), 'archived classes');
    first.afterExit(143);
    const second = dynamoDbLocalLaunch(home, options);

    // Assert
    expect(first.writesArchive).toBe(true);
    expect(first.fromCache).toBe(true);
    expect(first.args).not.toContain('-jar');
    expect(first.args.at(-1)).toBe('software.amazon.dynamodb.services.local.main.ServerRunner');
    const classPath = first.args[first.args.indexOf('-cp') + 1]?.split(':') ?? [];
    expect(classPath[0]).toMatch(/\/dynamodb-local-[0-9a-f]{16}\/DynamoDBLocal\.jar$/);
    expect(classPath.length).toBeGreaterThan(40);
    expect(classPath.slice(1).every((entry) => entry.startsWith(join(home, 'DynamoDBLocal_lib')))).toBe(true);
    expect(second.writesArchive).toBe(false);
    expect(await readFile(optionValue(second.args, '-XX:SharedArchiveFile'), 'utf8')).toBe(
      'archived classes',
    );
    expect(second.args.slice(2)).toEqual(first.args.slice(2));
  });

  it.each([
    ['killed (no exit code)', null],
    ['failed (exit 1)', 1],
  ])('drops the archive of a run that %s, and lets the next start write one', async (_case, code) => {
    const options = await cache();
    const first = dynamoDbLocalLaunch(dynamoDbLocalHome(), options);
    const written = optionValue(first.args, '-XX:ArchiveClassesAtExit');
    await writeFile(written, 'half an archive');

    first.afterExit(code);
    const next = dynamoDbLocalLaunch(dynamoDbLocalHome(), options);

    expect(existsSync(written)).toBe(false);
    expect(next.writesArchive).toBe(true);
    expect(await readdir(await cacheFolder(options.cacheRoot))).not.toContain('classes.jsa');
  });

  it('lets one run at a time write the archive: the others start from the copied jar without one', async () => {
    const options = await cache();
    const writer = dynamoDbLocalLaunch(dynamoDbLocalHome(), options);

    const meanwhile = dynamoDbLocalLaunch(dynamoDbLocalHome(), options);
    writer.afterExit(143);
    const after = dynamoDbLocalLaunch(dynamoDbLocalHome(), options);

    expect(writer.writesArchive).toBe(true);
    expect(meanwhile).toMatchObject({ writesArchive: false, fromCache: true });
    expect(meanwhile.args.some((arg) => arg.includes('ArchiveClassesAtExit'))).toBe(false);
    expect(meanwhile.args.some((arg) => arg.includes('SharedArchiveFile'))).toBe(false);
    // The writer's run left no archive (none was written), so the next run may write one.
    expect(after.writesArchive).toBe(true);
  });

  it('removes what a killed run left: a partial archive and a writer lock older than ten minutes', async () => {
    const options = await cache();
    const killed = dynamoDbLocalLaunch(dynamoDbLocalHome(), options);
    const partial = optionValue(killed.args, '-XX:ArchiveClassesAtExit');
    await writeFile(partial, 'half an archive');
    const folder = await cacheFolder(options.cacheRoot);
    const longAgo = new Date(Date.now() - 11 * 60_000);
    await utimes(partial, longAgo, longAgo);
    await utimes(join(folder, 'classes.jsa.lock'), longAgo, longAgo);

    const next = dynamoDbLocalLaunch(dynamoDbLocalHome(), options);

    expect(existsSync(partial)).toBe(false);
    expect(next.writesArchive).toBe(true);
  });

  it('keeps one cache per Java build and per set of Java options', async () => {
    const options = await cache();
    const home = dynamoDbLocalHome();

    dynamoDbLocalLaunch(home, options);
    dynamoDbLocalLaunch(home, { ...options, javaVersion: 'openjdk version "21.0.4"' });
    dynamoDbLocalLaunch(home, { ...options, javaOptions: ['-XX:+UseParallelGC'] });

    expect(await readdir(options.cacheRoot)).toHaveLength(3);
  });

  it.each([
    ['its record names a class path that is not an array', { mainClass: 'x', classPath: 'not a list' }],
    ['its copied jar is gone', null],
  ])('prepares the cache again when %s', async (_case, record) => {
    const options = await cache();
    const home = dynamoDbLocalHome();
    dynamoDbLocalLaunch(home, options);
    const folder = await cacheFolder(options.cacheRoot);
    if (record === null) await rm(join(folder, 'DynamoDBLocal.jar'));
    else await writeFile(join(folder, 'launch.json'), JSON.stringify(record));

    const launch = dynamoDbLocalLaunch(home, options);

    expect(launch.fromCache).toBe(true);
    expect(existsSync(join(folder, 'DynamoDBLocal.jar'))).toBe(true);
    expect(JSON.parse(await readFile(join(folder, 'launch.json'), 'utf8')).classPath).toContain(
      join(folder, 'DynamoDBLocal.jar'),
    );
  });

  it('starts with -jar, as the jar is meant to, when the jar tool is missing or Java refused the cache', async () => {
    const home = dynamoDbLocalHome();
    const refusedOptions = await cache();
    dynamoDbLocalLaunch(home, refusedOptions).refused();

    const withoutJar = dynamoDbLocalLaunch(home, await cache({ jarTool: '/nonexistent/jar' }));
    const afterRefusal = dynamoDbLocalLaunch(home, refusedOptions);

    for (const launch of [withoutJar, afterRefusal]) {
      expect(launch.args).toEqual(['-jar', join(home, 'DynamoDBLocal.jar')]);
      expect(launch).toMatchObject({ writesArchive: false, fromCache: false });
    }
  });

  it.skipIf(!javaAvailable())('runs the copied jar, and a real archive from it, in Java', async () => {
    // Arrange: a real first run writes a real archive
    const options = await cache();
    const home = dynamoDbLocalHome();
    const first = dynamoDbLocalLaunch(home, options);
    const library = `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`;
    const writing = await runJava([library, ...first.args]);
    first.afterExit(writing.code);

    // Act
    const second = dynamoDbLocalLaunch(home, options);
    const mapped = await runJava([library, '-Xshare:on', ...second.args]);

    // Assert: -Xshare:on makes Java fail rather than start without the archive
    expect(writing.output).toContain('-dbPath');
    expect(second.writesArchive).toBe(false);
    expect(mapped.code).toBe(0);
    expect(mapped.output).toContain('-dbPath');
  });

  it.skipIf(!javaAvailable())(
    'has the archive written before a shared server starts, so it is not kept from the starts beside it',
    async () => {
      // Arrange: no archive yet, as on a fresh clone
      const cacheRoot = await mkdtemp(join(tmpdir(), 'credit-screen-classes-'));

      // Act
      const shared = await startSharedDynamoDbLocal(cacheRoot);
      const client = localDynamoDbClient(shared.endpoint);
      try {
        const tables = await client.send(new ListTablesCommand({}));
        const archived = existsSync(join(await cacheFolder(cacheRoot), 'classes.jsa'));

        // Assert: written while the shared server runs, not only once it stops
        expect(tables.TableNames).toEqual([]);
        expect(archived).toBe(true);
      } finally {
        client.destroy();
        await shared.stop();
      }
    },
  );

  it.skipIf(!javaAvailable())(
    'starts DynamoDB Local with -jar when Java will not start from the cache, and sets the cache aside',
    async () => {
      // Arrange: a cache whose record names a main class the copied jar does not have
      const cacheRoot = await mkdtemp(join(tmpdir(), 'credit-screen-classes-'));
      const prepared = await startDynamoDbLocal(null, 'unused', cacheRoot);
      await stopProcess(prepared.process);
      prepared.watchdog?.release();
      const folder = await cacheFolder(cacheRoot);
      const record = JSON.parse(await readFile(join(folder, 'launch.json'), 'utf8'));
      await writeFile(join(folder, 'launch.json'), JSON.stringify({ ...record, mainClass: 'no.such.Main' }));
      await rm(join(folder, 'classes.jsa'), { force: true });

      // Act
      const started = await startDynamoDbLocal(null, 'unused', cacheRoot);
      const client = localDynamoDbClient(started.endpoint);
      try {
        const tables = await client.send(new ListTablesCommand({}));

        // Assert
        expect(tables.TableNames).toEqual([]);
        expect(started.process.spawnargs).toContain('-jar');
        expect(existsSync(join(folder, 'refused'))).toBe(true);
      } finally {
        client.destroy();
        await stopProcess(started.process);
        started.watchdog?.release();
      }
    },
  );
});
