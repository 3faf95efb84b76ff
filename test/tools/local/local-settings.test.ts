import { describe, expect, it } from 'vitest';
import { validateSettings } from '../../../src/contract/index.ts';
import { LOCAL_RATE_LIMIT, localSettings } from '../../../tools/local/local-settings.ts';

describe('localSettings', () => {
  it('runs at the local rate by default, with a burst of a fifth of a second', () => {
    const settings = localSettings();

    expect(settings.rateLimitPerSecond).toEqual({ a: LOCAL_RATE_LIMIT, b: LOCAL_RATE_LIMIT });
    expect(settings.rateLimitBurst).toEqual({ a: 10, b: 10 });
  });

  it('keeps a burst of at least one at a rate under five per second', () => {
    expect(localSettings(2).rateLimitBurst).toEqual({ a: 1, b: 1 });
  });

  it('gives back a crashed worker in seconds: timeouts the definition accepts, far below the AWS ones', () => {
    const settings = validateSettings(localSettings());

    expect(settings.bureauTimeoutSeconds).toBe(10);
    expect(settings.workerTimeoutSeconds).toBe(20);
  });
});
