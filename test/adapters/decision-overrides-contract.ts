import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DecisionOverride } from '../../src/domain/decision/index.ts';
import type { DecisionOverrides } from '../../src/domain/ports/index.ts';

/** An override of `row` of `batchId`, recorded at `at`. */
function anOverride(batchId: string, row: number, at: string, changes: Partial<DecisionOverride> = {}) {
  return {
    batchId,
    row,
    decision: 'approve',
    credit_limit: 5000,
    reason: 'Renda comprovada por holerite',
    by: 'ana.souza@credora.com.br',
    at,
    previous: 'review',
    ...changes,
  } satisfies DecisionOverride;
}

/**
 * The rules every overrides store keeps, run against each implementation (in memory and DynamoDB): append-only
 * (nothing replaced, a second override of a row is a new entry), read back per batch in row then time order, exactly
 * as recorded.
 */
export function describeDecisionOverridesContract(
  name: string,
  open: () => Promise<DecisionOverrides>,
): void {
  describe(`${name}: the decision overrides contract`, () => {
    let overrides: DecisionOverrides;
    let batchId: string;

    beforeEach(async () => {
      overrides = await open();
      batchId = `batch-${randomUUID()}`;
    });

    it('reads back every override of a batch, in row order then time order, exactly as recorded', async () => {
      const later = anOverride(batchId, 3, '2026-11-25T10:05:00.000Z', {
        decision: 'decline',
        credit_limit: 0,
      });
      const earlier = anOverride(batchId, 3, '2026-11-25T10:00:00.000Z');
      const first = anOverride(batchId, 1, '2026-11-25T11:00:00.000Z', { credit_limit: null });
      for (const override of [later, earlier, first]) await overrides.recordOverride(override);
      await overrides.recordOverride(anOverride(`other-${batchId}`, 1, '2026-11-25T10:00:00.000Z'));

      expect(await overrides.overridesOf(batchId)).toEqual([first, earlier, later]);
    });

    it('never replaces an override: the same row at the same time is refused', async () => {
      const override = anOverride(batchId, 2, '2026-11-25T10:00:00.000Z');
      await overrides.recordOverride(override);

      await expect(
        overrides.recordOverride({ ...override, decision: 'decline', credit_limit: 0 }),
      ).rejects.toThrow('recorded already');
      expect(await overrides.overridesOf(batchId)).toEqual([override]);
    });

    it('has none for a batch nobody reviewed', async () => {
      expect(await overrides.overridesOf(batchId)).toEqual([]);
    });
  });
}
