import { describe, expect, it } from 'vitest';
import { LOCAL_RATE_LIMIT, localSettings } from '../../../cli/local/local-settings.ts';
import { validateSettings } from '../../../src/contract/index.ts';
import { BUREAUS } from '../../../src/domain/report/index.ts';

describe('localSettings', () => {
  it('runs at the local rate by default, with a burst of a fifth of a second', () => {
    const settings = localSettings();

    for (const bureau of BUREAUS)
      expect(settings.bureaus[bureau]).toMatchObject({
        rateLimitPerSecond: LOCAL_RATE_LIMIT,
        rateLimitBurst: 10,
      });
  });

  it('keeps a burst of at least one at a rate under five per second', () => {
    for (const bureau of BUREAUS) expect(localSettings(2).bureaus[bureau].rateLimitBurst).toBe(1);
  });

  it('gives back a crashed worker in seconds: timeouts the definition accepts, far below the AWS ones', () => {
    const settings = validateSettings(localSettings());

    expect(settings.bureauTimeoutSeconds).toBe(10);
    expect(settings.workerTimeoutSeconds).toBe(20);
  });
});
