import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { zenCreditPolicyLoader } from '../../../src/adapters/decision/zen-credit-policy.ts';
import { MemoryLogger } from '../../../src/adapters/memory/memory-logger.ts';
import { MemoryObjectStore } from '../../../src/adapters/memory/memory-object-store.ts';
import { RecordingEventPublisher } from '../../../src/adapters/memory/recording-event-publisher.ts';
import { checkPolicyUpload } from '../../../src/application/policies/check-policy-upload.ts';
import { type PolicyVerdict, policyKey, policyVerdictKey } from '../../../src/contract/index.ts';

const SAMPLE = readFileSync('samples/policies/pessoa-fisica.json', 'utf8');
/** The sample with one cell that does not compile (zen-engine would answer `{}` for it, silently). */
const BROKEN = SAMPLE.replace('"> 0"', '"> > 5 (("');

function checker() {
  const objects = new MemoryObjectStore();
  const events = new RecordingEventPublisher();
  const deps = {
    objects,
    events,
    policyLoader: zenCreditPolicyLoader,
    logger: new MemoryLogger(),
    now: () => Date.parse('2026-11-25T10:00:00Z'),
  };
  return { objects, events, deps };
}

describe('the check of a policy uploaded under policies/', () => {
  it('accepts a policy that loads, keeps its verdict under its hash and announces nothing', async () => {
    const { objects, events, deps } = checker();
    objects.put(policyKey('pessoa-fisica.json'), SAMPLE);

    const verdict = await checkPolicyUpload({ key: policyKey('pessoa-fisica.json') }, deps);

    expect(verdict).toMatchObject({ name: 'pessoa-fisica.json', accepted: true, problem: null });
    const kept = JSON.parse(
      (await objects.readTextIfExists(policyVerdictKey(verdict?.sha256 ?? ''))) ?? '{}',
    );
    expect(kept).toEqual(verdict);
    expect(events.events).toEqual([]);
  });

  it('rejects a policy with a cell that does not compile, naming the node, and announces PolicyRejected', async () => {
    const { objects, events, deps } = checker();
    objects.put(policyKey('estrita.json'), BROKEN);

    const verdict = (await checkPolicyUpload(
      { key: policyKey('estrita.json'), versionId: 'v7' },
      deps,
    )) as PolicyVerdict;

    expect(verdict.accepted).toBe(false);
    expect(verdict.problem).toMatch(/node "[^"]+", row \d+, column "[^"]+": "> > 5 \(\(" does not compile/);
    expect(events.events).toEqual([
      {
        detailType: 'PolicyRejected',
        detail: {
          name: 'estrita.json',
          key: 'policies/estrita.json',
          versionId: 'v7',
          sha256: verdict.sha256,
          problem: verdict.problem,
        },
      },
    ]);
  });

  it.each([
    ['not JSON', 'estrita.json', '{ "nodes": [', /estrita\.json/],
    ['a name no upload can give', 'pasta/estrita.json', SAMPLE, /is not a policy file name/],
  ])('rejects %s in one line', async (_, name, contents, problem) => {
    const { objects, events, deps } = checker();
    objects.put(policyKey(name), contents);

    const verdict = await checkPolicyUpload({ key: policyKey(name) }, deps);

    expect(verdict?.accepted).toBe(false);
    expect(verdict?.problem).toMatch(problem);
    expect(verdict?.problem).not.toContain('\n');
    expect(events.events.map((event) => event.detailType)).toEqual(['PolicyRejected']);
  });

  it('does nothing for a policy deleted before its check ran', async () => {
    const { events, deps } = checker();

    expect(await checkPolicyUpload({ key: policyKey('gone.json') }, deps)).toBeNull();
    expect(events.events).toEqual([]);
  });
});
