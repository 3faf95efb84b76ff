import { bureausWith, DEFAULT_SETTINGS, type PipelineSettings } from '../../src/contract/index.ts';

/** Local default of the global rate limit: the emulator has no limit of its own unless asked for one. */
export const LOCAL_RATE_LIMIT = 50;

/**
 * The pipeline's settings on this machine: the defaults, at `ratePerSecond` for each bureau (a burst of a fifth of
 * a second's worth), with short timeouts so that a crashed worker's messages come back in seconds, not the six
 * minutes used in AWS.
 */
export function localSettings(ratePerSecond: number = LOCAL_RATE_LIMIT): PipelineSettings {
  const burst = Math.max(1, Math.ceil(ratePerSecond / 5));
  return {
    ...DEFAULT_SETTINGS,
    bureaus: bureausWith({ rateLimitPerSecond: ratePerSecond, rateLimitBurst: burst }),
    bureauTimeoutSeconds: 10,
    workerTimeoutSeconds: 20,
  };
}
