import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dynamoDbLocalHome, javaAvailable } from '../../../cli/local/dynamodb-local.ts';
import { dynamoDbLocalLaunch } from '../../../cli/local/dynamodb-local-classes.ts';

const JAVA = 'openjdk version "17.0.15" (test)';

async function cacheRoot(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'credit-screen-classes-'));
}

/** The value of the JVM option `name=` among `args`. */
function optionValue(args: readonly string[], name: string): string | undefined {
  return args.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);
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
  it('writes the archive on the first run, keeps it once Java exits by itself, and maps it afterwards', async () => {
    // Arrange
    const root = await cacheRoot();
    const home = dynamoDbLocalHome();

    // Act: the first start, whose Java writes the archive as it exits
    const first = dynamoDbLocalLaunch(home, { cacheRoot: root, javaVersion: JAVA });
    const written = optionValue(first.args, '-XX:ArchiveClassesAtExit');
    await writeFile(written ?? 'missing', 'archived classes');
    first.afterExit(true);
    const second = dynamoDbLocalLaunch(home, { cacheRoot: root, javaVersion: JAVA });

    // Assert
    expect(first.writesArchive).toBe(true);
    expect(first.args).not.toContain('-jar');
    expect(first.args.at(-1)).toBe('software.amazon.dynamodb.services.local.main.ServerRunner');
    const classPath = first.args[first.args.indexOf('-cp') + 1]?.split(':') ?? [];
    expect(classPath[0]).toMatch(/\/dynamodb-local-[0-9a-f]{16}\/DynamoDBLocal\.jar$/);
    expect(classPath.length).toBeGreaterThan(40);
    expect(classPath.slice(1).every((entry) => entry.startsWith(join(home, 'DynamoDBLocal_lib')))).toBe(true);
    expect(second.writesArchive).toBe(false);
    const archive = optionValue(second.args, '-XX:SharedArchiveFile') ?? 'missing';
    expect(await readFile(archive, 'utf8')).toBe('archived classes');
    expect(second.args.slice(2)).toEqual(first.args.slice(2));
  });

  it('drops a partial archive of a killed run, and writes one again at the next start', async () => {
    const root = await cacheRoot();
    const first = dynamoDbLocalLaunch(dynamoDbLocalHome(), { cacheRoot: root, javaVersion: JAVA });
    const written = optionValue(first.args, '-XX:ArchiveClassesAtExit') ?? 'missing';
    await writeFile(written, 'half an archive');

    first.afterExit(false);
    const next = dynamoDbLocalLaunch(dynamoDbLocalHome(), { cacheRoot: root, javaVersion: JAVA });

    expect(existsSync(written)).toBe(false);
    expect(next.writesArchive).toBe(true);
    const [folder] = await readdir(root);
    expect(await readdir(join(root, folder ?? ''))).not.toContain('classes.jsa');
  });

  it('keeps one archive per Java build', async () => {
    const root = await cacheRoot();
    const home = dynamoDbLocalHome();
    const seventeen = dynamoDbLocalLaunch(home, { cacheRoot: root, javaVersion: JAVA });
    await writeFile(optionValue(seventeen.args, '-XX:ArchiveClassesAtExit') ?? 'missing', 'classes');
    seventeen.afterExit(true);

    const other = dynamoDbLocalLaunch(home, { cacheRoot: root, javaVersion: 'openjdk version "21.0.4"' });

    expect(other.writesArchive).toBe(true);
    expect(await readdir(root)).toHaveLength(2);
  });

  it('starts with -jar, as the jar is meant to, when the jar tool is missing', async () => {
    const home = dynamoDbLocalHome();

    const launch = dynamoDbLocalLaunch(home, {
      cacheRoot: await cacheRoot(),
      javaVersion: JAVA,
      jarTool: '/nonexistent/jar',
    });

    expect(launch.args).toEqual(['-jar', join(home, 'DynamoDBLocal.jar')]);
    expect(launch.writesArchive).toBe(false);
  });

  it.skipIf(!javaAvailable())('runs the copied jar, and a real archive from it, in Java', async () => {
    // Arrange: a real first run writes a real archive
    const root = await cacheRoot();
    const home = dynamoDbLocalHome();
    const first = dynamoDbLocalLaunch(home, { cacheRoot: root, javaVersion: JAVA });
    const library = `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`;
    const writing = await runJava([library, ...first.args]);
    first.afterExit(writing.code === 0);

    // Act
    const second = dynamoDbLocalLaunch(home, { cacheRoot: root, javaVersion: JAVA });
    const mapped = await runJava([library, '-Xshare:on', ...second.args]);

    // Assert: -Xshare:on makes Java fail rather than start without the archive
    expect(writing.output).toContain('-dbPath');
    expect(second.writesArchive).toBe(false);
    expect(mapped.code).toBe(0);
    expect(mapped.output).toContain('-dbPath');
  });
});
