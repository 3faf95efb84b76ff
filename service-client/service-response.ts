import type { TransportResponse } from './http-transport.ts';
import {
  cleanServiceMessage,
  errorForStatus,
  foldText,
  RejectedError,
  type ServiceError,
  TransientError,
} from './service-errors.ts';

/** A JSON value, as the service sends and accepts it. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | JsonObject;

/** A JSON object whose fields the specification does not fix: every field is optional and open. */
export interface JsonObject {
  readonly [field: string]: JsonValue | undefined;
}

/**
 * A successful answer: the HTTP status (any 2XX; 201 for a creation, 202 for an accepted asynchronous generation)
 * and the parsed body. The specification leaves the fields of the success envelope and of AI Studio's objects
 * open, so the body is returned whole rather than narrowed to a guessed shape.
 */
export interface ServiceReply<Body extends JsonObject = JsonObject> {
  readonly httpStatus: number;
  readonly body: Body;
}

function parseJson(text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false } {
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function firstString(...candidates: unknown[]): string | null {
  for (const candidate of candidates) {
    if (typeof candidate === 'string' && candidate.trim() !== '') return candidate;
    if (typeof candidate === 'number' && Number.isFinite(candidate)) return String(candidate);
  }
  return null;
}

/**
 * The code and message of an error body. The specification names an error envelope (AI operations) and an error
 * object "with a code and a message" (AI Studio) but not their fields, so this reads the common spellings: `code`
 * or `error_code` and `message`, `error` as a text or as a nested `{code, message}`, and `detail`/`msg`.
 */
export function readErrorFields(body: unknown): {
  readonly code: string | null;
  readonly message: string | null;
} {
  if (!isObject(body)) return { code: null, message: null };
  const nested = isObject(body.error) ? body.error : {};
  return {
    code: firstString(body.code, body.error_code, nested.code, body.errorCode),
    message: firstString(body.message, nested.message, body.error, body.detail, body.msg),
  };
}

/**
 * Whether a 2XX body still reports a failure. The credit queries' legacy rule is to check the body's `status`
 * even on 200; the AI envelopes' fields are not shown, so a 2XX whose body says `status: "error"` or
 * `success: false` is taken as a failure too. Any other 2XX body is a success.
 */
function saysFailure(body: Record<string, unknown>): boolean {
  return body.success === false || (typeof body.status === 'string' && foldText(body.status) === 'error');
}

/**
 * Classifies an AI or AI Studio response into a {@link ServiceReply} or one of the shared {@link ServiceError}
 * kinds: 401 (and the credit queries' `Token inválido!` message) is `InvalidTokenError`, 429 is
 * `RateLimitedError`, 5xx and unreadable 2XX bodies are `TransientError`, and every other status is
 * `RejectedError` carrying the body's code and message.
 */
export function classifyServiceResponse(
  response: TransportResponse,
  operation: string,
  token: string,
): ServiceReply {
  const parsed = parseJson(response.text);
  const body = parsed.ok ? parsed.value : null;
  const fields = readErrorFields(body);
  const serviceMessage = cleanServiceMessage(fields.message, token);
  const serviceCode = cleanServiceMessage(fields.code, token);
  const is2xx = response.status >= 200 && response.status < 300;

  if (is2xx && isObject(body) && !saysFailure(body)) {
    return { httpStatus: response.status, body: body as JsonObject };
  }
  throw errorFor(response, operation, body, serviceMessage, serviceCode, parsed.ok);
}

function errorFor(
  response: TransportResponse,
  operation: string,
  body: unknown,
  serviceMessage: string | null,
  serviceCode: string | null,
  readable: boolean,
): ServiceError {
  const said = [serviceCode, serviceMessage].filter((part) => part !== null).join(': ');
  const detail = `${operation} answered ${response.status}${said ? `: ${said}` : ''}`;
  const byStatus = errorForStatus(response, detail, serviceMessage, serviceCode);
  if (byStatus !== null) return byStatus;
  if (!readable || !isObject(body))
    return new TransientError(`unreadable response body (${detail})`, response.status, null);
  return new RejectedError(
    `the service reported a failure (${detail})`,
    response.status,
    serviceMessage,
    serviceCode,
  );
}

/**
 * The payload of a success envelope: its `data` when the body is shaped `{ data, … }`, otherwise the body
 * itself. The envelope's fields are not specified, so this is a convenience for display, not a contract.
 */
export function envelopeData(body: JsonObject): JsonValue {
  return body.data !== undefined ? body.data : body;
}
