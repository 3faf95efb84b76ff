/** What the AI emulator keeps (agents, projects, versions, jobs) and how each is shown in its answers. */

/** A JSON object as the AI service sends and takes it. */
export type Json = Record<string, unknown>;

/** Now, as the service writes times. */
export const isoNow = (): string => new Date().toISOString();

export interface Agent {
  readonly hash: string;
  fields: Json;
  readonly files: Map<string, Json>;
  handoff: Json;
  integration: Json | null;
  readonly createdAt: string;
  updatedAt: string;
}

export interface Version {
  readonly version: number;
  readonly content: Json;
  readonly source: 'generate' | 'restore';
  readonly restoredFrom?: number;
  readonly jobId?: string;
  readonly createdAt: string;
}

export interface Project {
  readonly id: string;
  fields: Json;
  readonly versions: Version[];
  readonly messages: Json[];
  readonly createdAt: string;
  updatedAt: string;
}

type JobState = 'queued' | 'running' | 'done' | 'cancelled';

export interface Job {
  readonly id: string;
  readonly projectId: string;
  readonly operation: 'create' | 'update';
  readonly prompt: string;
  readonly options: Json;
  readonly startedAtMs: number;
  state: JobState;
  version: number | null;
  finishedAt: string | null;
}

export function agentView(agent: Agent): Json {
  return {
    ...agent.fields,
    hash: agent.hash,
    files: agent.files.size,
    created_at: agent.createdAt,
    updated_at: agent.updatedAt,
  };
}

export function projectView(project: Project): Json {
  return {
    ...project.fields,
    id: project.id,
    current_version: project.versions.at(-1)?.version ?? null,
    created_at: project.createdAt,
    updated_at: project.updatedAt,
  };
}

export function versionSummary(version: Version): Json {
  return {
    version: version.version,
    source: version.source,
    ...(version.restoredFrom === undefined ? {} : { restored_from: version.restoredFrom }),
    ...(version.jobId === undefined ? {} : { job_id: version.jobId }),
    created_at: version.createdAt,
  };
}

export function exportView(project: Project, version: Version): Json {
  return {
    project_id: project.id,
    version: version.version,
    artifact_type: project.fields.artifact_type,
    format: 'json',
    filename: `${project.id}-v${version.version}.json`,
    exported_at: isoNow(),
    content: version.content,
  };
}

export function jobView(job: Job): Json {
  return {
    id: job.id,
    project_id: job.projectId,
    operation: job.operation,
    status: job.state,
    version: job.version,
    created_at: new Date(job.startedAtMs).toISOString(),
    finished_at: job.finishedAt,
  };
}
