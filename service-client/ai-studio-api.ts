import type { ListOptions } from './ai-agents-api.ts';
import {
  type ArtifactType,
  createProjectSchema,
  type GenerationOperation,
  generateSchema,
  projectMessageSchema,
  updateProjectSchema,
} from './ai-studio-rules.ts';
import { type JobSnapshot, type JobWaitOptions, jobIdOf, jobSnapshot, waitForJob } from './generation-job.ts';
import { pathSegment, queryString, validated, versionSegment } from './request-validation.ts';
import type { CallOptions, ServiceCaller } from './service-caller.ts';
import { TransientError } from './service-errors.ts';
import type { JsonObject, ServiceReply } from './service-response.ts';

/** Body of a project's creation; extra properties are accepted and passed through. */
export interface CreateProjectRequest extends JsonObject {
  readonly artifact_type: ArtifactType;
  /** At most 160 characters. */
  readonly name?: string;
  /** At most 3000 characters. */
  readonly description?: string;
  /** Free-form. */
  readonly options?: JsonObject;
}

/** Body of a project's update (PATCH); extra properties are accepted and passed through. */
export interface UpdateProjectRequest extends JsonObject {
  readonly name?: string;
  readonly description?: string;
  readonly options?: JsonObject;
}

export interface GenerateRequest extends JsonObject {
  /** Required and not blank. */
  readonly prompt: string;
  readonly operation?: GenerationOperation;
  readonly options?: JsonObject;
}

/** A change request posted to a project's conversation; none of its fields is required. */
export interface ProjectMessageRequest extends JsonObject {
  readonly content?: string;
  readonly prompt?: string;
  readonly options?: JsonObject;
}

/** A generation started and waited for. */
export interface CompletedGeneration {
  /** The 202 answer that started it. */
  readonly started: ServiceReply;
  /** The job as last read, in the `succeeded` phase. */
  readonly job: JobSnapshot;
}

/**
 * The AI Studio operations (`/ai-studio/…`). Requests are checked against what the specification fixes (artifact
 * type, name and description lengths, a required prompt, integer versions) before anything is sent. Any 2XX is
 * a success and is returned with its status, so a 201 creation and a 202 accepted generation can be told apart.
 */
export class AiStudioApi {
  readonly #caller: ServiceCaller;

  constructor(caller: ServiceCaller) {
    this.#caller = caller;
  }

  async catalog(options: CallOptions = {}): Promise<ServiceReply> {
    return this.#caller.call('GET', '/ai-studio/catalog', 'GET /ai-studio/catalog', undefined, options);
  }

  async listProjects(options: ListOptions = {}): Promise<ServiceReply> {
    const path = `/ai-studio/projects${queryString(options.query)}`;
    return this.#caller.call('GET', path, 'GET /ai-studio/projects', undefined, options);
  }

  async createProject(project: CreateProjectRequest, options: CallOptions = {}): Promise<ServiceReply> {
    const body = validated(createProjectSchema, project, 'project') as JsonObject;
    return this.#caller.call('POST', '/ai-studio/projects', 'POST /ai-studio/projects', body, options);
  }

  async getProject(id: string, options: CallOptions = {}): Promise<ServiceReply> {
    return this.#caller.call('GET', projectPath(id), 'GET /ai-studio/projects/{id}', undefined, options);
  }

  async updateProject(
    id: string,
    changes: UpdateProjectRequest,
    options: CallOptions = {},
  ): Promise<ServiceReply> {
    const body = validated(updateProjectSchema, changes, 'project') as JsonObject;
    return this.#caller.call('PATCH', projectPath(id), 'PATCH /ai-studio/projects/{id}', body, options);
  }

  async deleteProject(id: string, options: CallOptions = {}): Promise<ServiceReply> {
    return this.#caller.call(
      'DELETE',
      projectPath(id),
      'DELETE /ai-studio/projects/{id}',
      undefined,
      options,
    );
  }

  /** Starts a generation; the service answers 202 with the job to follow (see {@link generateAndWait}). */
  async generate(id: string, request: GenerateRequest, options: CallOptions = {}): Promise<ServiceReply> {
    const body = validated(generateSchema, request, 'generation') as JsonObject;
    const path = `${projectPath(id)}/generate`;
    return this.#caller.call('POST', path, 'POST /ai-studio/projects/{id}/generate', body, options);
  }

  async listMessages(id: string, options: ListOptions = {}): Promise<ServiceReply> {
    const path = `${projectPath(id)}/messages${queryString(options.query)}`;
    return this.#caller.call('GET', path, 'GET /ai-studio/projects/{id}/messages', undefined, options);
  }

  async postMessage(
    id: string,
    message: ProjectMessageRequest,
    options: CallOptions = {},
  ): Promise<ServiceReply> {
    const body = validated(projectMessageSchema, message, 'message') as JsonObject;
    const path = `${projectPath(id)}/messages`;
    return this.#caller.call('POST', path, 'POST /ai-studio/projects/{id}/messages', body, options);
  }

  async listVersions(id: string, options: ListOptions = {}): Promise<ServiceReply> {
    const path = `${projectPath(id)}/versions${queryString(options.query)}`;
    return this.#caller.call('GET', path, 'GET /ai-studio/projects/{id}/versions', undefined, options);
  }

  async getVersion(id: string, version: number, options: CallOptions = {}): Promise<ServiceReply> {
    const path = versionPath(id, version);
    return this.#caller.call(
      'GET',
      path,
      'GET /ai-studio/projects/{id}/versions/{version}',
      undefined,
      options,
    );
  }

  async exportVersion(id: string, version: number, options: CallOptions = {}): Promise<ServiceReply> {
    const path = `${versionPath(id, version)}/export`;
    const operation = 'GET /ai-studio/projects/{id}/versions/{version}/export';
    return this.#caller.call('GET', path, operation, undefined, options);
  }

  /** Restores a version: its content becomes the project's newest version. */
  async restoreVersion(id: string, version: number, options: CallOptions = {}): Promise<ServiceReply> {
    const path = `${versionPath(id, version)}/restore`;
    const operation = 'POST /ai-studio/projects/{id}/versions/{version}/restore';
    return this.#caller.call('POST', path, operation, undefined, options);
  }

  async getJob(jobId: string, options: CallOptions = {}): Promise<ServiceReply> {
    const path = `/ai-studio/jobs/${pathSegment('id', jobId)}`;
    return this.#caller.call('GET', path, 'GET /ai-studio/jobs/{id}', undefined, options);
  }

  async cancelJob(jobId: string, options: CallOptions = {}): Promise<ServiceReply> {
    const path = `/ai-studio/jobs/${pathSegment('id', jobId)}/cancel`;
    return this.#caller.call('POST', path, 'POST /ai-studio/jobs/{id}/cancel', undefined, options);
  }

  /** Waits for a job already started; see {@link waitForJob} for polling, timeout and cancellation. */
  async waitForJob(jobId: string, options: JobWaitOptions = {}): Promise<JobSnapshot> {
    pathSegment('id', jobId);
    return waitForJob(this, jobId, options);
  }

  /**
   * Starts a generation and waits for its job. If the answer is not a job (a synchronous 200/201), it is
   * returned as already succeeded. Aborting the signal cancels the job on the service.
   */
  async generateAndWait(
    id: string,
    request: GenerateRequest,
    options: JobWaitOptions = {},
  ): Promise<CompletedGeneration> {
    const started = await this.generate(id, request, { signal: options.signal });
    const jobId = jobIdOf(started.body);
    if (jobId === null) {
      if (started.httpStatus === 202)
        throw new TransientError(
          'the generation was accepted (202) but no job id was found in the answer',
          202,
          null,
        );
      return { started, job: { id: '', state: null, phase: 'succeeded', body: started.body } };
    }
    const first = jobSnapshot(jobId, started);
    options.onPoll?.(first);
    return { started, job: await waitForJob(this, jobId, options) };
  }
}

function projectPath(id: string): string {
  return `/ai-studio/projects/${pathSegment('id', id)}`;
}

function versionPath(id: string, version: number): string {
  return `${projectPath(id)}/versions/${versionSegment(version)}`;
}
