import { describe, expect, it } from 'vitest';
import {
  InvalidTokenError,
  RateLimitedError,
  RejectedError,
  TransientError,
} from '../../service-client/service-errors.ts';
import { classifyServiceResponse, readErrorFields } from '../../service-client/service-response.ts';

const TOKEN = 'secret-token-123';

function response(status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { status, headers: new Headers(headers), text };
}

function classify(status: number, body: unknown, headers?: Record<string, string>) {
  try {
    return classifyServiceResponse(response(status, body, headers), 'GET /ai', TOKEN);
  } catch (error) {
    return error;
  }
}

describe('classifyServiceResponse', () => {
  it.each([200, 201, 202, 204])('treats %i with an object body as success, keeping the status', (status) => {
    expect(classify(status, { id: 'x' })).toEqual({ httpStatus: status, body: { id: 'x' } });
  });

  it('treats an empty 2XX body as an empty object', () => {
    expect(classify(204, '')).toEqual({ httpStatus: 204, body: {} });
  });

  it.each([
    ['success: false', { success: false, message: 'limite de agentes' }],
    ['status: "error"', { status: 'error', message: 'limite de agentes' }],
  ])('treats a 200 whose body says %s as RejectedError', (_case, body) => {
    const error = classify(200, body);

    expect(error).toBeInstanceOf(RejectedError);
    expect(error).toMatchObject({ status: 200, serviceMessage: 'limite de agentes' });
  });

  it('treats an unreadable 2XX body as TransientError', () => {
    expect(classify(200, '<html>gateway</html>')).toBeInstanceOf(TransientError);
    expect(classify(200, '[1,2]')).toBeInstanceOf(TransientError);
  });

  it('classifies 401 and the 400 "Token inválido!" as InvalidTokenError', () => {
    expect(classify(401, { success: false, message: 'Unauthorized' })).toBeInstanceOf(InvalidTokenError);
    expect(classify(400, { status: 'error', message: 'Token inválido!' })).toBeInstanceOf(InvalidTokenError);
    expect(classify(400, { status: 'error', message: 'TOKEN INVALIDO' })).toBeInstanceOf(InvalidTokenError);
  });

  it('classifies 429 with Retry-After, 5xx as transient, other statuses as rejected', () => {
    expect(classify(429, {}, { 'Retry-After': '7' })).toMatchObject({
      name: 'RateLimitedError',
      retryAfterSeconds: 7,
    });
    expect(classify(429, {})).toBeInstanceOf(RateLimitedError);
    expect(classify(503, 'upstream down')).toBeInstanceOf(TransientError);
    expect(classify(404, { error: { code: 'not_found', message: 'Projeto não encontrado' } })).toMatchObject({
      name: 'RejectedError',
      status: 404,
      serviceCode: 'not_found',
      serviceMessage: 'Projeto não encontrado',
    });
    expect(classify(302, '')).toBeInstanceOf(RejectedError);
  });

  it('names the operation and the service code in the message, and never the token', () => {
    const error = classify(400, { code: 'bad', message: `token ${TOKEN} inválido para isto` }) as Error;

    expect(error.message).toBe(
      'request rejected (GET /ai answered 400: bad: token [redacted] inválido para isto)',
    );
    expect(JSON.stringify(error)).not.toContain(TOKEN);
  });
});

describe('readErrorFields', () => {
  it.each([
    [{ code: 'E1', message: 'm' }, 'E1', 'm'],
    [{ error: { code: 'E2', message: 'm2' } }, 'E2', 'm2'],
    [{ error_code: 42, error: 'texto' }, '42', 'texto'],
    [{ detail: 'só detalhe' }, null, 'só detalhe'],
    [{ msg: 'curta' }, null, 'curta'],
    ['not an object', null, null],
    [null, null, null],
  ])('reads %j as code %j and message %j', (body, code, message) => {
    expect(readErrorFields(body)).toEqual({ code, message });
  });
});
