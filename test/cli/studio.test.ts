import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceEmulator } from '../../emulator/service-emulator.ts';
import { runCli } from '../factories/run-cli.ts';

const LAUNCHER = fileURLToPath(new URL('../../bin/credit-screen.mjs', import.meta.url));
let emulator: ServiceEmulator;

beforeAll(async () => {
  // Steps long enough that a test can interrupt a job while it runs.
  emulator = await ServiceEmulator.start({ ai: { jobStepMs: 400 } });
});
afterAll(async () => {
  await emulator.close();
});

function cli(args: readonly string[]) {
  return runCli([...args, '--base-url', emulator.url]);
}

async function createProject(name: string): Promise<string> {
  const created = await cli([
    'studio',
    'projects',
    'create',
    '--type',
    'spreadsheet',
    '--name',
    name,
    '--json',
  ]);
  expect(created.code).toBe(0);
  return (JSON.parse(created.stdout) as { id: string }).id;
}

describe('credit-screen ai status', () => {
  it('prints the status for people, and the whole envelope with --json', async () => {
    const human = await cli(['ai', 'status']);
    const json = await cli(['ai', 'status', '--json']);

    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^status\s+online$/m);
    expect(JSON.parse(json.stdout)).toMatchObject({ success: true, data: { status: 'online' } });
  });

  it('exits 1 with one line naming the token problem when the token is refused', async () => {
    const result = await cli(['ai', 'status', '--token', 'wrong-token']);

    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'credit-screen: the token was refused (GET /ai answered 401: unauthorized: Token inválido ou ausente)',
    );
  });

  it('refuses to guess a token for a non-local service', async () => {
    const result = await runCli(['ai', 'status', '--base-url', 'https://gateway.example.com'], {
      env: { BUREAU_TOKEN: '' },
    });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no token for https://gateway.example.com');
  });
});

describe('credit-screen studio', () => {
  it('creates a project, generates with a spinner, lists versions, restores and exports', async () => {
    const id = await createProject('Limites por cliente');
    const directory = await mkdtemp(join(tmpdir(), 'credit-screen-studio-'));
    const exportFile = join(directory, 'export.json');

    const generated = await cli(['studio', 'generate', id, '--prompt', 'Planilha de limites']);
    const restored = await cli(['studio', 'restore', id, '1', '--json']);
    const versions = await cli(['studio', 'versions', 'list', id]);
    const exported = await cli(['studio', 'export', id, '2', '--out', exportFile]);

    expect(generated.code).toBe(0);
    expect(generated.stderr).toMatch(/✔ job job_\w+: done in \d+\.\d s/);
    expect(generated.stdout).toMatch(/^status\s+done$/m);
    expect(JSON.parse(restored.stdout)).toMatchObject({ version: 2, source: 'restore', restored_from: 1 });
    expect(
      versions.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/).slice(0, 2).join(' ')),
    ).toEqual(['1 generate', '2 restore']);
    expect(exported.code).toBe(0);
    expect(JSON.parse(await readFile(exportFile, 'utf8'))).toMatchObject({
      version: 2,
      content: { prompt: 'Planilha de limites' },
    });
  });

  it('returns at once with --no-wait, printing the accepted job', async () => {
    const id = await createProject('Sem espera');

    const result = await cli(['studio', 'generate', id, '--prompt', 'x', '--no-wait', '--json']);

    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ job: { status: 'queued' } });
  });

  it('refuses a name over 160 characters with exit 2 before calling the service', async () => {
    const projectIds = async () =>
      (
        JSON.parse((await cli(['studio', 'projects', 'list', '--json'])).stdout) as {
          projects: { id: string }[];
        }
      ).projects.map((project) => project.id);
    const before = await projectIds();

    const result = await cli(['studio', 'projects', 'create', '--type', 'chart', '--name', 'n'.repeat(161)]);

    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^credit-screen: .*--name must be at most 160 characters$/),
    ]);
    expect(await projectIds()).toEqual(before);
  });

  it('refuses a version that is not a whole number', async () => {
    const result = await cli(['studio', 'versions', 'show', 'prj_x', '1.5']);

    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("'1.5' is invalid for argument 'version'");
  });

  it('cancels the job on the service and exits 130 when interrupted while a job runs', async () => {
    const id = await createProject('Interrompido');
    const child = spawn(
      process.execPath,
      [LAUNCHER, 'studio', 'generate', id, '--prompt', 'x', '--base-url', emulator.url],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    await expect.poll(() => stderr, { timeout: 15_000, interval: 20 }).toContain('queued');

    child.kill('SIGINT');
    const [code] = await once(child, 'close');

    expect(code).toBe(130);
    expect(stderr).toContain('interrupted; the generation job was cancelled');
    const jobId = /job (job_\w+)/.exec(stderr)?.[1] as string;
    const job = await cli(['studio', 'jobs', 'show', jobId, '--json']);
    expect(JSON.parse(job.stdout)).toMatchObject({ id: jobId, status: 'cancelled' });
  });
});
