import { MemoryRateLimiter } from '../../../src/adapters/memory/memory-rate-limiter.ts';
import { describeRateLimiterContract } from '../rate-limiter-contract.ts';

describeRateLimiterContract(
  'MemoryRateLimiter',
  async (limits) => new MemoryRateLimiter({ a: limits, b: limits }),
);
