import { describe, expect, it } from 'vitest';
import {
  TOKEN_POLL_MS,
  TokenGate,
  type TokenGateStores,
} from '../../../src/application/worker/token-gate.ts';
import type { BatchRecord } from '../../../src/domain/batch/index.ts';

/** A store with one batch whose token probe can be held once, counting the requests the gate sends. */
function countingStores() {
  const state = { probeHeld: false, tokenState: 'unverified' as BatchRecord['tokenState'], requests: 0 };
  const stores: TokenGateStores = {
    tokenProbes: {
      acquireTokenProbe: async () => {
        state.requests++;
        if (state.probeHeld) return false;
        state.probeHeld = true;
        return true;
      },
      releaseTokenProbe: async () => {
        state.requests++;
        state.probeHeld = false;
      },
    },
    batchRecords: {
      getBatch: async () => {
        state.requests++;
        return { tokenState: state.tokenState } as BatchRecord;
      },
    },
  };
  return { state, stores };
}

describe('the token gate of one worker process', () => {
  it('makes exactly one of many waiting rows the probe, and answers the rest with what its call proved', async () => {
    const { state, stores } = countingStores();
    const gate = new TokenGate(stores, { leaseSeconds: 60 });
    const deadline = Date.now() + 30_000;

    const answers = Array.from({ length: 25 }, () => gate.wait('b1', deadline));
    const first = await Promise.race(answers);
    state.tokenState = 'verified';
    const all = await Promise.all(answers);

    expect(first).toBe('probe');
    expect(all.filter((answer) => answer === 'probe')).toHaveLength(1);
    expect(all.filter((answer) => answer === 'verified')).toHaveLength(24);
  });

  it('sends one poll per batch, not one per waiting row', async () => {
    const { state, stores } = countingStores();
    state.probeHeld = true; // another process probes
    const gate = new TokenGate(stores, { leaseSeconds: 60 });
    const deadline = Date.now() + 30_000;

    const answers = Array.from({ length: 50 }, () => gate.wait('b1', deadline));
    await new Promise((resolve) => setTimeout(resolve, TOKEN_POLL_MS * 4));
    state.tokenState = 'rejected';
    const all = await Promise.all(answers);

    expect(new Set(all)).toEqual(new Set(['rejected']));
    // About 5 polls of 2 requests each (every 250 ms for a second); 50 rows polling alone would send 500 or more.
    expect(state.requests).toBeLessThanOrEqual(16);
  });

  it('answers undecided at a row’s deadline or when its invocation ends, leaving the others waiting', async () => {
    const { state, stores } = countingStores();
    state.probeHeld = true;
    const gate = new TokenGate(stores, { leaseSeconds: 60 });
    const ending = new AbortController();

    const early = gate.wait('b1', Date.now() + 100);
    const aborted = gate.wait('b1', Date.now() + 30_000, ending.signal);
    const patient = gate.wait('b1', Date.now() + 30_000);
    ending.abort();

    expect(await early).toBe('undecided');
    expect(await aborted).toBe('undecided');
    state.tokenState = 'verified';
    expect(await patient).toBe('verified');
  });

  it('gives back a probe it took when nobody was left to use it', async () => {
    const { state, stores } = countingStores();
    const gate = new TokenGate(stores, { leaseSeconds: 60 });
    const ending = new AbortController();
    ending.abort();

    expect(await gate.wait('b1', Date.now() + 30_000, ending.signal)).toBe('undecided');
    expect(state.probeHeld).toBe(false);
  });

  it('fails every waiting row when the store fails, so their messages are retried', async () => {
    const { stores } = countingStores();
    const failing: TokenGateStores = {
      ...stores,
      batchRecords: {
        getBatch: async () => {
          throw new Error('storage down');
        },
      },
    };
    const gate = new TokenGate(failing, { leaseSeconds: 60 });
    const deadline = Date.now() + 30_000;

    const first = gate.wait('b1', deadline);
    const second = gate.wait('b1', deadline);

    expect(await first).toBe('probe');
    await expect(second).rejects.toThrow('storage down');
  });
});
