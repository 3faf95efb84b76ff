import { describe, expect, it } from 'vitest';
import {
  InvalidTokenError,
  OversizedResponseError,
  RateLimitedError,
  RejectedError,
  TransientError,
} from '../../../service-client/index.ts';
import {
  CreditReportGateway,
  toBureauCallError,
} from '../../../src/adapters/bureau/credit-report-gateway.ts';
import { BureauCallError } from '../../../src/domain/bureau/index.ts';

describe('toBureauCallError', () => {
  it.each([
    ['invalid_token', new InvalidTokenError('the token was refused', 401, 'Unauthorized'), 'not_charged'],
    ['rate_limited', new RateLimitedError('rate limited', 429, null, 7), 'not_charged'],
    ['transient', new TransientError('server error', 503, null), 'not_charged'],
    ['transient', new TransientError('no complete response within 2000 ms', null, null), 'unknown'],
    ['rejected', new RejectedError('request rejected', 400, 'Documento inválido'), 'not_charged'],
    ['oversized', new OversizedResponseError(200, 1024), 'charged'],
  ] as const)('turns the client error into a %s BureauCallError (%#)', (kind, clientError, charge) => {
    const translated = toBureauCallError(clientError);

    expect(translated).toBeInstanceOf(BureauCallError);
    expect(translated).toMatchObject({
      kind,
      status: clientError.status,
      serviceMessage: clientError.serviceMessage,
      message: clientError.message,
      charge,
    });
  });

  it('keeps what each kind carries: Retry-After seconds and the size cap', () => {
    expect(toBureauCallError(new RateLimitedError('rate limited', 429, null, 7))).toMatchObject({
      retryAfterSeconds: 7,
      maxBytes: null,
    });
    expect(toBureauCallError(new OversizedResponseError(200, 1024))).toMatchObject({
      retryAfterSeconds: null,
      maxBytes: 1024,
    });
  });

  it('passes any other error through unchanged (our fault, not the bureau answer)', () => {
    const own = new Error('Secrets Manager unavailable');

    expect(toBureauCallError(own)).toBe(own);
  });
});

describe('CreditReportGateway', () => {
  it('returns the answer of the client and raises its failures as BureauCallError', async () => {
    const answer = { body: { status: 'sucesso' }, httpStatus: 200, receivedAt: '2026-01-01T00:00:00.000Z' };
    let calls = 0;
    const gateway = new CreditReportGateway({
      fetchReport: async () => {
        calls++;
        if (calls === 1) return answer;
        throw new RejectedError('request rejected', 404, 'Not found');
      },
    });

    await expect(gateway.fetchReport('a', '52998224725')).resolves.toEqual(answer);
    await expect(gateway.fetchReport('a', '52998224725')).rejects.toMatchObject({
      name: 'BureauCallError',
      kind: 'rejected',
      status: 404,
    });
  });
});
