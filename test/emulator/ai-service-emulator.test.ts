import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceEmulator } from '../../emulator/service-emulator.ts';
import { startAiEmulator } from '../factories/service-client.ts';

let emulator: ServiceEmulator;

beforeAll(async () => {
  emulator = await startAiEmulator(100);
});
afterAll(async () => {
  await emulator.close();
});

/** A raw request, bypassing the client, to prove the emulator enforces the rules itself. */
async function raw(method: string, path: string, body?: unknown, token = emulator.token) {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function projectId(): Promise<string> {
  return (await raw('POST', '/ai-studio/projects', { artifact_type: 'document' })).body.id as string;
}

describe('AI emulator: error shapes', () => {
  it('answers a wrong token with 401 and the envelope of each family', async () => {
    expect(await raw('GET', '/ai', undefined, 'wrong')).toEqual({
      status: 401,
      body: { success: false, code: 'unauthorized', message: 'Token inválido ou ausente' },
    });
    expect(await raw('GET', '/ai-studio/catalog', undefined, 'wrong')).toEqual({
      status: 401,
      body: { error: { code: 'unauthorized', message: 'Token inválido ou ausente' } },
    });
  });

  it('keeps the credit queries on their own 400 Token inválido!', async () => {
    const answer = await raw('POST', '/api/ap-bureau-a', { document: '51954022212' }, 'wrong');

    expect(answer).toEqual({ status: 400, body: { status: 'error', message: 'Token inválido!' } });
  });

  it('answers 400 for an unknown agent, since the agent operations declare only 200, 400 and 401', async () => {
    expect((await raw('GET', '/ai/agents/agt_nope')).status).toBe(400);
    expect((await raw('POST', '/ai/agents', '[1]')).body).toMatchObject({
      success: false,
      code: 'invalid_json',
    });
  });
});

describe('AI emulator: AI Studio limits enforced server-side', () => {
  it.each([
    [{ artifact_type: 'video' }, 'artifact_type'],
    [{}, 'artifact_type'],
    [{ artifact_type: 'chart', name: 'n'.repeat(161) }, 'name'],
    [{ artifact_type: 'chart', description: 'd'.repeat(3001) }, 'description'],
    [{ artifact_type: 'chart', options: 'not-an-object' }, 'options'],
  ])('refuses project %#, naming %s', async (project, field) => {
    const answer = await raw('POST', '/ai-studio/projects', project);

    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: 'validation_error' } });
    expect((answer.body.error as { message: string }).message).toContain(field);
  });

  it('accepts a name of exactly 160 characters and extra properties', async () => {
    const answer = await raw('POST', '/ai-studio/projects', {
      artifact_type: 'image',
      name: 'é'.repeat(160),
      x: 1,
    });

    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ x: 1 });
  });

  it('refuses a generation without a prompt or with an unknown operation, and a non-integer version', async () => {
    const id = await projectId();

    expect((await raw('POST', `/ai-studio/projects/${id}/generate`, { operation: 'create' })).status).toBe(
      400,
    );
    expect(
      (await raw('POST', `/ai-studio/projects/${id}/generate`, { prompt: 'x', operation: 'x' })).status,
    ).toBe(400);
    expect((await raw('GET', `/ai-studio/projects/${id}/versions/1.5`)).body).toMatchObject({
      error: { code: 'invalid_version' },
    });
    expect((await raw('GET', `/ai-studio/projects/${id}/versions/abc`)).status).toBe(400);
  });

  it('refuses an update generation on a project that has no version yet', async () => {
    const id = await projectId();

    const answer = await raw('POST', `/ai-studio/projects/${id}/generate`, {
      prompt: 'x',
      operation: 'update',
    });

    expect(answer).toMatchObject({ status: 409, body: { error: { code: 'nothing_to_update' } } });
  });
});

describe('AI emulator: generation jobs', () => {
  it('moves a job from queued to running to done over two steps and adds a version', async () => {
    // Steps of 1.5 s of its own: a poll on a loaded machine can take well over the 100 ms steps of the others.
    const slow = await startAiEmulator(1500);
    try {
      const call = (method: string, path: string, body?: unknown) =>
        fetch(`${slow.url}${path}`, {
          method,
          headers: { Authorization: `Bearer ${slow.token}`, 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        }).then(async (response) => ({
          status: response.status,
          body: (await response.json()) as Record<string, unknown>,
        }));
      const id = (await call('POST', '/ai-studio/projects', { artifact_type: 'document' })).body.id as string;
      const started = await call('POST', `/ai-studio/projects/${id}/generate`, { prompt: 'contrato' });
      const job = started.body.job as { id: string; status: string };
      const seen: unknown[] = [job.status];
      // Poll far faster than the steps, recording each state the first time it appears.
      for (let polls = 0; polls < 2000 && seen.at(-1) !== 'done'; polls++) {
        const state = (await call('GET', `/ai-studio/jobs/${job.id}`)).body.status;
        if (seen.at(-1) !== state) seen.push(state);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }

      expect(started.status).toBe(202);
      expect(seen).toEqual(['queued', 'running', 'done']);
      expect((await call('GET', `/ai-studio/projects/${id}/versions`)).body.versions).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });

  it('cancels the running jobs of a deleted project', async () => {
    const id = await projectId();
    const started = await raw('POST', `/ai-studio/projects/${id}/generate`, { prompt: 'x' });
    const jobId = (started.body.job as { id: string }).id;

    await raw('DELETE', `/ai-studio/projects/${id}`);

    expect((await raw('GET', `/ai-studio/jobs/${jobId}`)).body.status).toBe('cancelled');
  });
});

describe('AI emulator: agent files', () => {
  it('refuses an upload that is not multipart, one without the file part, and one over the size limit', async () => {
    const hash = ((await raw('POST', '/ai/agents', { name: 'a' })).body.data as { hash: string }).hash;
    const upload = (form: FormData) =>
      fetch(`${emulator.url}/ai/agents/${hash}/files`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${emulator.token}` },
        body: form,
      }).then(async (response) => ({ status: response.status, body: await response.json() }));
    const withoutFile = new FormData();
    withoutFile.append('other', 'x');
    const tooBig = new FormData();
    tooBig.append('file', new Blob([new Uint8Array(1024 * 1024 + 1)]), 'big.bin');

    expect((await raw('POST', `/ai/agents/${hash}/files`, { file: 'x' })).body).toMatchObject({
      code: 'multipart_required',
    });
    expect(await upload(withoutFile)).toMatchObject({ status: 400, body: { code: 'file_required' } });
    expect(await upload(tooBig)).toMatchObject({ status: 400, body: { code: 'file_too_large' } });
  });
});
