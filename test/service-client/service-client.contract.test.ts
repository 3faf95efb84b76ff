import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  envelopeData,
  InvalidTokenError,
  type JsonObject,
  RejectedError,
  RequestValidationError,
  type ServiceClient,
} from 'credit-screen/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceEmulator } from '../../emulator/service-emulator.ts';
import { recordingClient, startAiEmulator } from '../factories/service-client.ts';

let emulator: ServiceEmulator;

beforeAll(async () => {
  emulator = await startAiEmulator();
});
afterAll(async () => {
  await emulator.close();
});

function data(body: JsonObject): JsonObject {
  return envelopeData(body) as JsonObject;
}

async function newAgent(client: ServiceClient, name = 'Atendimento'): Promise<string> {
  const reply = await client.agents.create({ name, instructions: 'Responda em português' });
  return data(reply.body).hash as string;
}

async function newProject(client: ServiceClient, name = 'Carteira Q3'): Promise<string> {
  const reply = await client.studio.createProject({ artifact_type: 'chart', name });
  return reply.body.id as string;
}

describe('ServiceClient: AI status', () => {
  it('GET /ai answers the success envelope', async () => {
    const { client, sent } = recordingClient(emulator);

    const reply = await client.aiStatus();

    expect(reply.httpStatus).toBe(200);
    expect(data(reply.body).status).toBe('online');
    expect(sent).toEqual([{ method: 'GET', path: '/ai', contentType: null }]);
  });
});

describe('ServiceClient: AI agents', () => {
  it('creates, lists, reads and updates an agent in both forms', async () => {
    const { client, sent } = recordingClient(emulator);

    const hash = await newAgent(client, 'Cobrança');
    const listed = await client.agents.list();
    const read = await client.agents.get(hash);
    const viaPut = await client.agents.update(hash, { name: 'Cobrança PUT' });
    const viaPost = await client.agents.update(hash, { name: 'Cobrança POST' }, { via: 'POST' });

    expect((data(listed.body).agents as JsonObject[]).map((agent) => agent.hash)).toContain(hash);
    expect(data(read.body)).toMatchObject({ hash, name: 'Cobrança', instructions: 'Responda em português' });
    expect(data(viaPut.body).name).toBe('Cobrança PUT');
    expect(data(viaPost.body).name).toBe('Cobrança POST');
    expect(sent.slice(-2).map((request) => request.method)).toEqual(['PUT', 'POST']);
    expect(sent.at(-1)?.path).toBe(`/ai/agents/${hash}`);
  });

  it.each([
    ['DELETE', undefined, 'DELETE', ''],
    ['POST /delete', 'POST', 'POST', '/delete'],
  ] as const)('deletes an agent with %s', async (_form, via, method, suffix) => {
    const { client, sent } = recordingClient(emulator);
    const hash = await newAgent(client);

    const reply = await client.agents.delete(hash, { via });

    expect(data(reply.body)).toEqual({ hash, deleted: true });
    expect(sent.at(-1)).toMatchObject({ method, path: `/ai/agents/${hash}${suffix}` });
    await expect(client.agents.get(hash)).rejects.toMatchObject({
      name: 'RejectedError',
      serviceCode: 'agent_not_found',
    });
  });

  it('uploads files as multipart from a path, a buffer and a stream, and lists them', async () => {
    const { client, sent } = recordingClient(emulator);
    const hash = await newAgent(client);
    const path = join(tmpdir(), `credit-screen-agent-${process.pid}.txt`);
    const policy = 'Política de crédito: prazo de 30 dias.\n';
    await writeFile(path, policy);

    const fromPath = await client.agents.uploadFile(hash, { path, contentType: 'text/plain' });
    const fromBuffer = await client.agents.uploadFile(hash, {
      data: Buffer.from('%PDF-1.7 fake'),
      filename: 'manual.pdf',
      contentType: 'application/pdf',
    });
    const fromStream = await client.agents.uploadFile(hash, {
      stream: Readable.from([Buffer.from('linha 1\n'), Buffer.from('linha 2\n')]),
      filename: 'faq.md',
    });
    const listed = await client.agents.listFiles(hash);

    // The emulator hashes what it parsed out of the multipart body: the bytes arrived intact.
    expect(data(fromPath.body)).toMatchObject({
      name: path.split('/').at(-1),
      size: Buffer.byteLength(policy),
      sha256: createHash('sha256').update(policy).digest('hex'),
      content_type: 'text/plain',
    });
    expect(data(fromBuffer.body)).toMatchObject({
      name: 'manual.pdf',
      size: 13,
      content_type: 'application/pdf',
    });
    expect(data(fromStream.body)).toMatchObject({
      name: 'faq.md',
      size: 16,
      content_type: 'application/octet-stream',
    });
    expect((data(listed.body).files as JsonObject[]).map((file) => file.name)).toHaveLength(3);
    expect(sent.filter((request) => request.contentType === 'multipart/form-data')).toHaveLength(3);
  });

  it('removes a file with DELETE and with POST /delete', async () => {
    const { client, sent } = recordingClient(emulator);
    const hash = await newAgent(client);
    const upload = (filename: string) =>
      client.agents.uploadFile(hash, { data: Buffer.from(filename), filename });
    const first = data((await upload('a.txt')).body).file as string;
    const second = data((await upload('b.txt')).body).file as string;

    await client.agents.deleteFile(hash, first);
    await client.agents.deleteFile(hash, second, { via: 'POST' });

    expect(data((await client.agents.listFiles(hash)).body).files).toEqual([]);
    expect(sent.slice(-3, -1).map((request) => `${request.method} ${request.path}`)).toEqual([
      `DELETE /ai/agents/${hash}/files/${first}`,
      `POST /ai/agents/${hash}/files/${second}/delete`,
    ]);
  });

  it('refuses a stream larger than the upload limit before sending it', async () => {
    const { client, sent } = recordingClient(emulator, { maxAgentFileBytes: 10 });

    const upload = client.agents.uploadFile('agt_any', {
      stream: Readable.from([Buffer.alloc(8), Buffer.alloc(8)]),
      filename: 'big.bin',
    });

    await expect(upload).rejects.toBeInstanceOf(RequestValidationError);
    expect(sent).toEqual([]);
  });

  it('reads and updates handoff settings, and integrates the agent with a channel', async () => {
    const { client } = recordingClient(emulator);
    const hash = await newAgent(client);

    const before = await client.agents.getHandoff(hash);
    const updated = await client.agents.updateHandoff(hash, { enabled: true, department: 'crédito' });
    const after = await client.agents.getHandoff(hash);
    const integrated = await client.agents.integrate(hash, { channel: 'whatsapp', instance: 'loja-1' });

    expect(data(before.body)).toEqual({ enabled: false });
    expect(data(updated.body)).toEqual({ enabled: true, department: 'crédito' });
    expect(data(after.body)).toEqual({ enabled: true, department: 'crédito' });
    expect(data(integrated.body)).toMatchObject({
      hash,
      integration: { channel: 'whatsapp', instance: 'loja-1' },
    });
  });

  it('answers a bad request with RejectedError carrying the envelope code and message', async () => {
    const { client } = recordingClient(emulator);

    const error = await client.agents.get('agt_missing').catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(RejectedError);
    expect(error).toMatchObject({
      status: 400,
      serviceCode: 'agent_not_found',
      serviceMessage: 'Agente não encontrado',
    });
  });
});

describe('ServiceClient: AI Studio projects', () => {
  it('reads the catalogue of the ten artifact types', async () => {
    const { client } = recordingClient(emulator);

    const reply = await client.studio.catalog();

    expect(reply.body.artifact_types).toHaveLength(10);
  });

  it('creates with 201, reads, lists, updates with PATCH and deletes a project, keeping extra properties', async () => {
    const { client, sent } = recordingClient(emulator);

    const created = await client.studio.createProject({
      artifact_type: 'slides',
      name: 'Comitê de crédito',
      description: 'Apresentação mensal',
      options: { theme: 'dark' },
      audience: 'diretoria',
    });
    const id = created.body.id as string;
    const updated = await client.studio.updateProject(id, { description: 'Apresentação de novembro' });
    const read = await client.studio.getProject(id);
    const listed = await client.studio.listProjects();
    const deleted = await client.studio.deleteProject(id);

    expect(created.httpStatus).toBe(201);
    expect(created.body).toMatchObject({
      artifact_type: 'slides',
      audience: 'diretoria',
      options: { theme: 'dark' },
    });
    expect(updated.httpStatus).toBe(200);
    expect(read.body).toMatchObject({ name: 'Comitê de crédito', description: 'Apresentação de novembro' });
    expect((listed.body.projects as JsonObject[]).map((project) => project.id)).toContain(id);
    expect(deleted.body).toEqual({ id, deleted: true });
    expect(sent.find((request) => request.method === 'PATCH')?.path).toBe(`/ai-studio/projects/${id}`);
    await expect(client.studio.getProject(id)).rejects.toMatchObject({
      status: 404,
      serviceCode: 'project_not_found',
    });
  });

  it.each([
    ['an artifact type outside the ten', { artifact_type: 'video' }, 'artifact_type'],
    ['a name of 161 characters', { artifact_type: 'chart', name: 'n'.repeat(161) }, 'name'],
    [
      'a description of 3001 characters',
      { artifact_type: 'chart', description: 'd'.repeat(3001) },
      'description',
    ],
  ])('refuses %s before sending anything', async (_case, project, field) => {
    const { client, sent } = recordingClient(emulator);

    const error = await client.studio
      .createProject(project as Parameters<ServiceClient['studio']['createProject']>[0])
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error).toMatchObject({ field });
    expect(sent).toEqual([]);
  });

  it('accepts the limits exactly, counting characters rather than UTF-16 units', async () => {
    const { client } = recordingClient(emulator);
    // 160 emoji are 320 UTF-16 units but 160 characters.
    const name = '📈'.repeat(160);

    const created = await client.studio.createProject({
      artifact_type: 'auto',
      name,
      description: 'ç'.repeat(3000),
    });

    expect(created.httpStatus).toBe(201);
    expect(created.body.name).toBe(name);
  });

  it('refuses an over-long name in an update before sending it', async () => {
    const { client, sent } = recordingClient(emulator);

    await expect(client.studio.updateProject('prj_any', { name: 'x'.repeat(161) })).rejects.toBeInstanceOf(
      RequestValidationError,
    );
    expect(sent).toEqual([]);
  });
});

describe('ServiceClient: AI Studio generation, messages and versions', () => {
  it('starts a generation with 202 and waits for the job to finish with a new version', async () => {
    const { client } = recordingClient(emulator);
    const id = await newProject(client);
    const states: string[] = [];

    const { started, job } = await client.studio.generateAndWait(
      id,
      { prompt: 'Barras por faixa de score', operation: 'create' },
      { initialPollMs: 40, maxPollMs: 80, onPoll: (snapshot) => states.push(snapshot.state ?? '?') },
    );

    expect(started.httpStatus).toBe(202);
    expect(job.phase).toBe('succeeded');
    expect(job.body.version).toBe(1);
    expect(states[0]).toBe('queued');
    expect(states).toContain('running');
    expect(states.at(-1)).toBe('done');
    expect((await client.studio.getProject(id)).body.current_version).toBe(1);
  });

  it('refuses a generation without a prompt or with an unknown operation', async () => {
    const { client, sent } = recordingClient(emulator);

    await expect(client.studio.generate('prj_any', { prompt: '  ' })).rejects.toBeInstanceOf(
      RequestValidationError,
    );
    await expect(
      client.studio.generate('prj_any', { prompt: 'x', operation: 'delete' as 'create' }),
    ).rejects.toMatchObject({ field: 'operation' });
    expect(sent).toEqual([]);
  });

  it('cancels a job while it runs, and the project gets no version from it', async () => {
    const { client } = recordingClient(emulator);
    const id = await newProject(client);
    const started = await client.studio.generate(id, { prompt: 'Pizza de setores' });
    const jobId = (started.body.job as JsonObject).id as string;
    await expect
      .poll(async () => (await client.studio.getJob(jobId)).body.status, { interval: 20 })
      .toBe('running');

    const cancelled = await client.studio.cancelJob(jobId);
    await new Promise((resolve) => setTimeout(resolve, 400));

    expect(cancelled.body.status).toBe('cancelled');
    expect((await client.studio.getJob(jobId)).body.status).toBe('cancelled');
    expect((await client.studio.listVersions(id)).body.versions).toEqual([]);
    await expect(client.studio.cancelJob(jobId)).rejects.toMatchObject({
      status: 409,
      serviceCode: 'job_finished',
    });
  });

  it("cancels the job on the service when the caller's signal fires while waiting", async () => {
    const { client, sent } = recordingClient(emulator);
    const id = await newProject(client);
    const controller = new AbortController();
    const reason = new Error('user pressed Ctrl-C');

    const waiting = client.studio.generateAndWait(
      id,
      { prompt: 'Linha do tempo' },
      {
        signal: controller.signal,
        initialPollMs: 20,
        onPoll: (job) => {
          if (job.state === 'running') controller.abort(reason);
        },
      },
    );

    await expect(waiting).rejects.toBe(reason);
    const cancel = sent.find((request) => request.path.endsWith('/cancel'));
    expect(cancel?.method).toBe('POST');
    const jobId = cancel?.path.split('/')[3] as string;
    expect((await client.studio.getJob(jobId)).body.status).toBe('cancelled');
  });

  it('posts and lists messages (201 on creation)', async () => {
    const { client } = recordingClient(emulator);
    const id = await newProject(client);

    const posted = await client.studio.postMessage(id, { content: 'Use as cores da marca' });
    const empty = await client.studio.postMessage(id, {});
    const listed = await client.studio.listMessages(id);

    expect(posted.httpStatus).toBe(201);
    expect(empty.httpStatus).toBe(201);
    expect((listed.body.messages as JsonObject[]).map((message) => message.content)).toEqual([
      'Use as cores da marca',
      undefined,
    ]);
  });

  it('lists, reads and exports versions, and restore makes the restored content the newest version', async () => {
    const { client } = recordingClient(emulator);
    const id = await newProject(client);
    const wait = { initialPollMs: 40 } as const;
    await client.studio.generateAndWait(id, { prompt: 'primeira' }, wait);
    await client.studio.generateAndWait(id, { prompt: 'segunda', operation: 'update' }, wait);
    const first = await client.studio.getVersion(id, 1);

    const restored = await client.studio.restoreVersion(id, 1);
    const versions = await client.studio.listVersions(id);
    const newest = await client.studio.getVersion(id, 3);
    const exported = await client.studio.exportVersion(id, 3);

    expect(restored.httpStatus).toBe(201);
    expect((versions.body.versions as JsonObject[]).map((version) => version.version)).toEqual([1, 2, 3]);
    expect(newest.body).toMatchObject({ version: 3, source: 'restore', restored_from: 1 });
    expect(newest.body.content).toEqual(first.body.content);
    expect(exported.body).toMatchObject({ version: 3, content: first.body.content });
    expect((await client.studio.getProject(id)).body.current_version).toBe(3);
  });

  it.each([1.5, -1, Number.NaN])('refuses version %s before sending anything', async (version) => {
    const { client, sent } = recordingClient(emulator);

    await expect(client.studio.getVersion('prj_any', version)).rejects.toMatchObject({ field: 'version' });
    expect(sent).toEqual([]);
  });
});

describe('ServiceClient: authentication', () => {
  const wrongToken = { token: 'not-the-token' };

  it.each([
    ['AI status', (client: ServiceClient) => client.aiStatus()],
    ['AI agents', (client: ServiceClient) => client.agents.list()],
    ['AI Studio', (client: ServiceClient) => client.studio.listProjects()],
  ])('%s answers 401 to a wrong token, as InvalidTokenError', async (_family, call) => {
    const { client } = recordingClient(emulator, wrongToken);

    const error = await call(client).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(InvalidTokenError);
    expect(error).toMatchObject({ status: 401 });
    expect(JSON.stringify(error)).not.toContain('not-the-token');
  });

  it("treats the credit queries' 400 Token inválido! as InvalidTokenError through the same client", async () => {
    const { client } = recordingClient(emulator, wrongToken);

    await expect(client.credit.fetchReport('a', '51954022212')).rejects.toMatchObject({
      name: 'InvalidTokenError',
      status: 400,
    });
  });
});

describe('ServiceClient: path values', () => {
  it.each([
    ['a slash', '../ai-studio/projects', '/ai/agents/..%2Fai-studio%2Fprojects'],
    ['a query', 'x?admin=1', '/ai/agents/x%3Fadmin%3D1'],
    ['a fragment and spaces', 'a b#c', '/ai/agents/a%20b%23c'],
  ])('URL-encodes %s so the path cannot change', async (_case, hash, path) => {
    const { client, sent } = recordingClient(emulator);

    await expect(client.agents.get(hash)).rejects.toMatchObject({ serviceCode: 'agent_not_found' });

    expect(sent).toEqual([{ method: 'GET', path, contentType: null }]);
  });

  it.each(['..', '.', ''])(
    'refuses the path value %j, which URL parsers would resolve away',
    async (hash) => {
      const { client, sent } = recordingClient(emulator);

      await expect(client.agents.delete(hash)).rejects.toBeInstanceOf(RequestValidationError);
      await expect(client.studio.getJob(hash)).rejects.toBeInstanceOf(RequestValidationError);
      expect(sent).toEqual([]);
    },
  );
});
