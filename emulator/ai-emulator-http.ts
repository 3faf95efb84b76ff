/** How the AI emulator reads requests and refuses bad ones: its error type, paths, JSON bodies and their schemas. */
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import type { Json } from './ai-emulator-model.ts';
import { readBody } from './http-io.ts';

/** A refusal the emulator answers with its status and code. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const MAX_JSON_BYTES = 256 * 1024;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpProblem(400, 'invalid_path', 'Caminho inválido');
  }
}

export function allow(method: string, expected: string): void {
  if (method !== expected) throw new HttpProblem(405, 'method_not_allowed', `Use ${expected}`);
}

export function notFound(): HttpProblem {
  return new HttpProblem(404, 'route_not_found', 'Rota não encontrada');
}

export async function jsonBody(request: IncomingMessage, required: boolean): Promise<Json> {
  const bytes = await readBody(request, MAX_JSON_BYTES);
  if (bytes === null) throw new HttpProblem(413, 'body_too_large', 'Corpo grande demais');
  if (bytes.length === 0) {
    if (required) throw new HttpProblem(400, 'body_required', 'O corpo JSON é obrigatório');
    return {};
  }
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new HttpProblem(400, 'invalid_json', 'Corpo JSON inválido');
  }
  if (!isObject(body)) throw new HttpProblem(400, 'invalid_json', 'O corpo deve ser um objeto JSON');
  return body;
}

/** A body checked against the interface's rules, as a real server checks it; the first problem is the answer. */
export function parsed<Schema extends z.ZodType>(schema: Schema, body: Json): z.output<Schema> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.') ?? '';
  throw new HttpProblem(400, 'validation_error', `${field}: ${issue?.message ?? 'inválido'}`);
}
