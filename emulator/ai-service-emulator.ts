/**
 * The AI side of the service for the local emulator: `GET /ai`, the AI agent operations and AI Studio, with
 * in-memory state. Where the specification leaves shapes open, the emulator picks plausible ones and documents
 * them here; the client reads them defensively and does not depend on these exact choices:
 * - AI success envelope `{ success: true, data }`; AI error envelope `{ success: false, code, message }`
 *   (400 for a bad request or an unknown agent, 401 for a bad token).
 * - AI Studio success: the resource object itself (201 on creation, 202 with `{ job }` on generation); AI
 *   Studio error object `{ error: { code, message } }` with 400, 401, 404 or 409.
 * - Generation jobs go `queued` → `running` → `done` over two steps of `jobStepMs`; a finished job adds a
 *   version. `cancel` stops a queued or running job; a finished one answers 409.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { allow, decodeSegment, HttpProblem, jsonBody, notFound, parsed } from './ai-emulator-http.ts';
import {
  type Agent,
  agentView,
  exportView,
  isoNow,
  type Job,
  type Json,
  jobView,
  type Project,
  projectView,
  type Version,
  versionSummary,
} from './ai-emulator-model.ts';
import {
  ARTIFACT_TYPES,
  createProjectRequest,
  generateRequest,
  projectMessageRequest,
  updateProjectRequest,
} from './ai-studio-requests.ts';
import { readBody, sendJson } from './http-io.ts';

export interface AiEmulatorOptions {
  /** Time a generation job spends queued, then running. @default 200 */
  readonly jobStepMs?: number;
  /** Largest agent file accepted. @default 10 MiB */
  readonly maxAgentFileBytes?: number;
}

const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

/** Serves `/ai…` and `/ai-studio/…`; {@link handles} says whether a path is one of them. */
export class AiServiceEmulator {
  readonly #token: string;
  readonly #jobStepMs: number;
  readonly #maxFileBytes: number;
  readonly #agents = new Map<string, Agent>();
  readonly #projects = new Map<string, Project>();
  readonly #jobs = new Map<string, Job>();

  constructor(token: string, options: AiEmulatorOptions = {}) {
    this.#token = token;
    this.#jobStepMs = options.jobStepMs ?? 200;
    this.#maxFileBytes = options.maxAgentFileBytes ?? 10 * 1024 * 1024;
    if (!(this.#jobStepMs >= 0)) throw new RangeError(`jobStepMs must be ≥ 0, got ${this.#jobStepMs}`);
  }

  static handles(pathname: string): boolean {
    return pathname === '/ai' || pathname.startsWith('/ai/') || pathname.startsWith('/ai-studio/');
  }

  /** Forgets every agent, project and job. */
  clear(): void {
    this.#agents.clear();
    this.#projects.clear();
    this.#jobs.clear();
  }

  async handle(request: IncomingMessage, response: ServerResponse, pathname: string): Promise<void> {
    const studio = pathname.startsWith('/ai-studio/');
    try {
      if (request.headers.authorization !== `Bearer ${this.#token}`)
        throw new HttpProblem(401, 'unauthorized', 'Token inválido ou ausente');
      const segments = pathname.split('/').slice(1).map(decodeSegment);
      const method = request.method ?? 'GET';
      const [status, body] = studio
        ? await this.#studio(method, segments.slice(1), request)
        : await this.#ai(method, segments.slice(1), request);
      sendJson(response, status, studio ? body : { success: true, data: body });
    } catch (error) {
      if (!(error instanceof HttpProblem)) throw error;
      const headers: Record<string, string> = error.status === 413 ? { Connection: 'close' } : {};
      sendJson(
        response,
        error.status,
        studio
          ? { error: { code: error.code, message: error.message } }
          : { success: false, code: error.code, message: error.message },
        headers,
      );
    }
  }

  // ---- AI status and agents ------------------------------------------------------------------------------

  async #ai(method: string, path: string[], request: IncomingMessage): Promise<[number, unknown]> {
    if (path.length === 0) {
      allow(method, 'GET');
      return [200, { status: 'online', agents: this.#agents.size }];
    }
    if (path[0] !== 'agents') throw notFound();
    const [, hash, section, file, tail] = path;
    if (hash === undefined) {
      if (method === 'GET') return [200, { agents: [...this.#agents.values()].map(agentView) }];
      allow(method, 'POST');
      const fields = await jsonBody(request, true);
      const agent: Agent = {
        hash: newId('agt'),
        fields,
        files: new Map(),
        handoff: { enabled: false },
        integration: null,
        createdAt: isoNow(),
        updatedAt: isoNow(),
      };
      this.#agents.set(agent.hash, agent);
      return [200, agentView(agent)];
    }
    const agent = this.#agents.get(hash);
    // The agent operations declare only 200, 400 and 401, so an unknown agent is a 400.
    if (agent === undefined) throw new HttpProblem(400, 'agent_not_found', 'Agente não encontrado');
    if (section === undefined) {
      if (method === 'GET') return [200, agentView(agent)];
      if (method === 'POST' || method === 'PUT') {
        agent.fields = await jsonBody(request, true);
        agent.updatedAt = isoNow();
        return [200, agentView(agent)];
      }
      allow(method, 'DELETE');
      return [200, this.#deleteAgent(agent)];
    }
    if (section === 'delete' && file === undefined) {
      allow(method, 'POST');
      return [200, this.#deleteAgent(agent)];
    }
    if (section === 'files') return this.#agentFiles(method, agent, file, tail, request);
    if (section === 'handoff' && file === undefined) {
      if (method === 'GET') return [200, agent.handoff];
      allow(method, 'POST');
      agent.handoff = { ...agent.handoff, ...(await jsonBody(request, true)) };
      return [200, agent.handoff];
    }
    if (section === 'integration' && file === undefined) {
      allow(method, 'POST');
      agent.integration = { ...(await jsonBody(request, false)), integrated_at: isoNow() };
      return [200, { hash: agent.hash, integration: agent.integration }];
    }
    throw notFound();
  }

  #deleteAgent(agent: Agent): Json {
    this.#agents.delete(agent.hash);
    return { hash: agent.hash, deleted: true };
  }

  async #agentFiles(
    method: string,
    agent: Agent,
    file: string | undefined,
    tail: string | undefined,
    request: IncomingMessage,
  ): Promise<[number, unknown]> {
    if (file === undefined) {
      if (method === 'GET') return [200, { files: [...agent.files.values()] }];
      allow(method, 'POST');
      const stored = await this.#receiveFile(request);
      agent.files.set(stored.file as string, stored);
      return [200, stored];
    }
    const stored = agent.files.get(file);
    if (stored === undefined) throw new HttpProblem(400, 'file_not_found', 'Arquivo não encontrado');
    if (tail === undefined) allow(method, 'DELETE');
    else if (tail === 'delete') allow(method, 'POST');
    else throw notFound();
    agent.files.delete(file);
    return [200, { file, deleted: true }];
  }

  async #receiveFile(request: IncomingMessage): Promise<Json> {
    const type = request.headers['content-type'] ?? '';
    if (!type.startsWith('multipart/form-data'))
      throw new HttpProblem(400, 'multipart_required', 'Envie o arquivo como multipart/form-data');
    // Headroom over the file limit for the multipart framing.
    const bytes = await readBody(request, this.#maxFileBytes + 64 * 1024);
    if (bytes === null) throw new HttpProblem(400, 'file_too_large', 'Arquivo maior que o permitido');
    let form: FormData;
    try {
      form = await new Request('http://emulator/', {
        method: 'POST',
        headers: { 'content-type': type },
        body: bytes,
      }).formData();
    } catch {
      throw new HttpProblem(400, 'invalid_multipart', 'Corpo multipart inválido');
    }
    const part = form.get('file');
    if (!(part instanceof Blob)) throw new HttpProblem(400, 'file_required', 'O campo file é obrigatório');
    if (part.size > this.#maxFileBytes)
      throw new HttpProblem(400, 'file_too_large', 'Arquivo maior que o permitido');
    const content = Buffer.from(await part.arrayBuffer());
    return {
      file: newId('file'),
      name: part instanceof File ? part.name : 'file',
      size: part.size,
      content_type: part.type || 'application/octet-stream',
      sha256: createHash('sha256').update(content).digest('hex'),
      uploaded_at: isoNow(),
    };
  }

  // ---- AI Studio -----------------------------------------------------------------------------------------

  async #studio(method: string, path: string[], request: IncomingMessage): Promise<[number, unknown]> {
    this.#advanceJobs(Date.now());
    const [resource, id, section, version, tail, extra] = path;
    if (resource === 'catalog' && id === undefined) {
      allow(method, 'GET');
      return [200, { artifact_types: ARTIFACT_TYPES, operations: ['create', 'update'] }];
    }
    if (resource === 'jobs' && id !== undefined && version === undefined)
      return this.#job(method, id, section);
    if (resource !== 'projects' || extra !== undefined) throw notFound();
    if (id === undefined) return this.#projectCollection(method, request);
    const project = this.#projects.get(id);
    if (project === undefined) throw new HttpProblem(404, 'project_not_found', 'Projeto não encontrado');
    if (section === undefined) return this.#projectItself(method, project, request);
    if (section === 'generate' && version === undefined) return this.#generate(method, project, request);
    if (section === 'messages' && version === undefined) return this.#messages(method, project, request);
    if (section !== 'versions') throw notFound();
    return this.#versions(method, project, version, tail);
  }

  /** `GET /ai-studio/jobs/{id}` and `POST /ai-studio/jobs/{id}/cancel`. */
  #job(method: string, id: string, section: string | undefined): [number, unknown] {
    const job = this.#jobs.get(id);
    if (job === undefined) throw new HttpProblem(404, 'job_not_found', 'Job não encontrado');
    if (section === undefined) {
      allow(method, 'GET');
      return [200, jobView(job)];
    }
    if (section !== 'cancel') throw notFound();
    allow(method, 'POST');
    if (job.state === 'done' || job.state === 'cancelled')
      throw new HttpProblem(409, 'job_finished', `O job já terminou (${job.state})`);
    job.state = 'cancelled';
    job.finishedAt = isoNow();
    return [200, jobView(job)];
  }

  /** `GET` and `POST /ai-studio/projects`. */
  async #projectCollection(method: string, request: IncomingMessage): Promise<[number, unknown]> {
    if (method === 'GET') return [200, { projects: [...this.#projects.values()].map(projectView) }];
    allow(method, 'POST');
    const fields = parsed(createProjectRequest, await jsonBody(request, true));
    const project: Project = {
      id: newId('prj'),
      fields,
      versions: [],
      messages: [],
      createdAt: isoNow(),
      updatedAt: isoNow(),
    };
    this.#projects.set(project.id, project);
    return [201, projectView(project)];
  }

  /** `GET`, `PATCH` and `DELETE /ai-studio/projects/{id}`; deleting a project cancels its unfinished jobs. */
  async #projectItself(
    method: string,
    project: Project,
    request: IncomingMessage,
  ): Promise<[number, unknown]> {
    if (method === 'GET') return [200, projectView(project)];
    if (method === 'PATCH') {
      const changes = parsed(updateProjectRequest, await jsonBody(request, true));
      project.fields = { ...project.fields, ...changes };
      project.updatedAt = isoNow();
      return [200, projectView(project)];
    }
    allow(method, 'DELETE');
    this.#projects.delete(project.id);
    for (const job of this.#jobs.values()) {
      if (job.projectId === project.id && (job.state === 'queued' || job.state === 'running'))
        job.state = 'cancelled';
    }
    return [200, { id: project.id, deleted: true }];
  }

  /** `POST /ai-studio/projects/{id}/generate`: queues a job (202); `update` needs a version to update. */
  async #generate(method: string, project: Project, request: IncomingMessage): Promise<[number, unknown]> {
    allow(method, 'POST');
    const body = parsed(generateRequest, await jsonBody(request, true));
    const operation = body.operation ?? (project.versions.length === 0 ? 'create' : 'update');
    if (operation === 'update' && project.versions.length === 0)
      throw new HttpProblem(409, 'nothing_to_update', 'O projeto ainda não tem versão para atualizar');
    const job: Job = {
      id: newId('job'),
      projectId: project.id,
      operation,
      prompt: body.prompt,
      options: body.options ?? {},
      startedAtMs: Date.now(),
      state: 'queued',
      version: null,
      finishedAt: null,
    };
    this.#jobs.set(job.id, job);
    return [202, { job: jobView(job) }];
  }

  /** `GET` and `POST /ai-studio/projects/{id}/messages`. */
  async #messages(method: string, project: Project, request: IncomingMessage): Promise<[number, unknown]> {
    if (method === 'GET') return [200, { messages: project.messages }];
    allow(method, 'POST');
    const body = parsed(projectMessageRequest, await jsonBody(request, false));
    const message = { id: newId('msg'), role: 'user', ...body, created_at: isoNow() };
    project.messages.push(message);
    return [201, message];
  }

  /** `/ai-studio/projects/{id}/versions[/{version}[/export|/restore]]`. */
  #versions(
    method: string,
    project: Project,
    version: string | undefined,
    tail: string | undefined,
  ): [number, unknown] {
    if (version === undefined) {
      allow(method, 'GET');
      return [200, { versions: project.versions.map(versionSummary) }];
    }
    if (!/^\d+$/.test(version))
      throw new HttpProblem(400, 'invalid_version', 'A versão deve ser um número inteiro');
    const found = project.versions.find((candidate) => candidate.version === Number(version));
    if (found === undefined) throw new HttpProblem(404, 'version_not_found', 'Versão não encontrada');
    if (tail === undefined) {
      allow(method, 'GET');
      return [200, { ...versionSummary(found), project_id: project.id, content: found.content }];
    }
    if (tail === 'export') {
      allow(method, 'GET');
      return [200, exportView(project, found)];
    }
    if (tail !== 'restore') throw notFound();
    allow(method, 'POST');
    const restored = this.#addVersion(project, {
      content: found.content,
      source: 'restore',
      restoredFrom: found.version,
    });
    return [201, { ...versionSummary(restored), project_id: project.id, content: restored.content }];
  }

  #addVersion(project: Project, version: Omit<Version, 'version' | 'createdAt'>): Version {
    const created: Version = {
      ...version,
      version: (project.versions.at(-1)?.version ?? 0) + 1,
      createdAt: isoNow(),
    };
    project.versions.push(created);
    project.updatedAt = created.createdAt;
    return created;
  }

  /** Moves jobs along their timeline; a job reaching `done` adds its project's next version. */
  #advanceJobs(now: number): void {
    for (const job of this.#jobs.values()) {
      if (job.state === 'done' || job.state === 'cancelled') continue;
      const elapsed = now - job.startedAtMs;
      if (elapsed < this.#jobStepMs) continue;
      if (elapsed < 2 * this.#jobStepMs) {
        job.state = 'running';
        continue;
      }
      const project = this.#projects.get(job.projectId);
      if (project === undefined) {
        job.state = 'cancelled';
        continue;
      }
      const previous = project.versions.at(-1)?.content ?? {};
      const content: Json =
        job.operation === 'create'
          ? {
              artifact_type: project.fields.artifact_type,
              title: project.fields.name ?? null,
              prompt: job.prompt,
            }
          : {
              ...previous,
              revisions: [...(Array.isArray(previous.revisions) ? previous.revisions : []), job.prompt],
            };
      job.version = this.#addVersion(project, { content, source: 'generate', jobId: job.id }).version;
      job.state = 'done';
      job.finishedAt = isoNow();
    }
  }
}
