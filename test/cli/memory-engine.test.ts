import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { parseSummary, writeCsv } from '../factories/pipeline.ts';
import { runCli } from '../factories/run-cli.ts';

/** A PATH with no Java on it (the launcher is started by absolute path, so Node still runs). */
const WITHOUT_JAVA = { ...process.env, PATH: '/nonexistent' };

describe('a first run with Node alone', () => {
  it('screens on the memory engine when Java is missing, says so in one line, and gives the same results as DynamoDB Local', async () => {
    // Arrange: valid documents, a duplicate and an invalid one
    const cwd = await mkdtemp(join(tmpdir(), 'credit-screen-memory-engine-'));
    const documents = distinctDocuments(40, 'memory engine');
    const file = await writeCsv(
      'clientes.csv',
      customerListCsv([...documents, documents[3] as string, '111.111.111-11']),
    );
    const screen = (out: string, env?: NodeJS.ProcessEnv) =>
      runCli(['screen', file, '--no-state', '--out', out, '--rate-limit', '100'], { cwd, env });

    // Act
    const memory = await screen('memoria', WITHOUT_JAVA);
    const dynamo = await screen('dynamodb');

    // Assert
    expect([memory.code, dynamo.code]).toEqual([0, 0]);
    expect(memory.stderr.split('\n')[0]).toBe(
      'no Java on PATH: running on the memory engine (Node alone), which keeps nothing between runs (no state directory); with Java 17+ on PATH (e.g. apt-get install openjdk-17-jre-headless) runs keep their state in --state',
    );
    expect(dynamo.stderr).not.toContain('memory engine');
    const results = async (out: string) => ({
      manifest: JSON.parse(await readFile(join(cwd, out, 'manifest.json'), 'utf8')),
      summary: parseSummary(await readFile(join(cwd, out, 'summary.csv'), 'utf8')),
    });
    const [onMemory, onDynamo] = [await results('memoria'), await results('dynamodb')];
    expect(onMemory.manifest.counts).toEqual(onDynamo.manifest.counts);
    expect(onMemory.manifest.counts).toMatchObject({ screened: 40, duplicate: 1, invalid_document: 1 });
    expect(onMemory.manifest.charges).toEqual(onDynamo.manifest.charges);
    const statuses = (lines: typeof onMemory.summary) =>
      lines.map((line) => [line.row, line.document, line.status, line.score]);
    expect(statuses(onMemory.summary)).toEqual(statuses(onDynamo.summary));
  }, 180_000);

  it('refuses --engine dynamodb-local without Java in one line, before anything starts', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'credit-screen-no-java-'));
    const file = await writeCsv('clientes.csv', customerListCsv(distinctDocuments(3, 'no java')));

    const refused = await runCli(['screen', file, '--no-state', '--engine', 'dynamodb-local'], {
      cwd,
      env: WITHOUT_JAVA,
    });

    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim().split('\n').at(-1)).toBe(
      'credit-screen: DynamoDB Local needs Java 17 or newer on PATH (e.g. apt-get install openjdk-17-jre-headless)',
    );
  }, 60_000);
});
