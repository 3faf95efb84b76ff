import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedServer } from '../factories/scripted-server.ts';

const CHILD = join(import.meta.dirname, '../fixtures/answer-memory-child.ts');
// What a Lambda worker has (FUNCTION_MEMORY.worker): the child's heap may not grow past it.
const MEMORY_MB = 256;

/** A bureau A success answer padded with protests to about `megabytes` MB. */
function answerOf(megabytes: number): string {
  const fixture = join(import.meta.dirname, '../fixtures/bureau-responses/bureau-a-person.json');
  const answer = JSON.parse(readFileSync(fixture, 'utf8'));
  const [protest] = answer.dados.consultaCredito.protestos;
  const count = Math.ceil((megabytes * 1024 * 1024) / JSON.stringify(protest).length);
  answer.dados.consultaCredito.protestos = Array.from({ length: count }, () => protest);
  return JSON.stringify(answer);
}

let server: ScriptedServer;
let oversized: string;
beforeAll(async () => {
  server = await ScriptedServer.start();
  oversized = answerOf(18);
});
afterAll(async () => {
  await server?.close();
});

/** Five calls at once (a worker's callsPerInvocation), each answered with `body`, in a 256 MB process. */
async function fetchInLimitedProcess(body: string, cap?: number) {
  server.reply(...Array.from({ length: 5 }, () => ({ status: 200, body })));
  const args = [`--max-old-space-size=${MEMORY_MB}`, '--import', 'tsx', CHILD, server.url];
  const child = await promisify(execFile)(process.execPath, [...args, ...(cap ? [String(cap)] : [])], {
    timeout: 120_000,
    maxBuffer: 1024 * 1024,
  }).then(
    ({ stdout }) => ({ status: 0, stdout }),
    (error: { code?: number; stdout?: string }) => ({ status: error.code ?? 1, stdout: error.stdout ?? '' }),
  );
  const line = child.stdout.trim().split('\n').pop() ?? '';
  return {
    status: child.status,
    result: line.startsWith('{') ? (JSON.parse(line) as { outcomes: string[]; maxRssMb: number }) : null,
  };
}

describe('an oversized bureau answer', () => {
  it('is refused unread by a worker with 256 MB, which stays within its memory', async () => {
    const { status, result } = await fetchInLimitedProcess(oversized);

    expect(status).toBe(0);
    expect(result?.outcomes).toEqual(['oversized', 'oversized', 'oversized', 'oversized', 'oversized']);
    expect(result?.maxRssMb).toBeLessThan(MEMORY_MB);
  }, 150_000);

  it('would exhaust the same process if it were read (the cap is what keeps the worker alive)', async () => {
    const { status, result } = await fetchInLimitedProcess(oversized, 20 * 1024 * 1024);

    expect(status === 0 && (result?.maxRssMb ?? 0) < MEMORY_MB).toBe(false);
  }, 150_000);

  it('is read and normalised when under the cap', async () => {
    const { status, result } = await fetchInLimitedProcess(answerOf(0.5));

    expect(status).toBe(0);
    expect(result?.outcomes.every((outcome) => outcome.startsWith('normalised'))).toBe(true);
  }, 150_000);
});
