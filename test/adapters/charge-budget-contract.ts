import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { BatchStore, ChargeBudget } from '../../src/domain/ports/index.ts';
import type { BudgetAlert, BudgetScope } from '../../src/domain/spend/index.ts';

/** A budget under test, with the store its batches live in (the DynamoDB budget counts on the batch item). */
export interface BudgetUnderTest {
  readonly budget: ChargeBudget;
  readonly store: BatchStore;
}

/**
 * The rules of the spending caps, run against each implementation: a cap is never exceeded however many callers
 * race for its last units, units given back are reusable, months and bureaus are apart, and each alert fires once.
 */
export function describeChargeBudgetContract(name: string, open: () => Promise<BudgetUnderTest>): void {
  describe(`${name}: the charge budget contract`, () => {
    let budget: ChargeBudget;
    let scope: BudgetScope;

    beforeEach(async () => {
      const subject = await open();
      budget = subject.budget;
      // A month of its own per test: months are shared by every batch, as in a deployment.
      scope = { bureau: 'a', batchId: `batch-${randomUUID()}`, month: `t-${randomUUID().slice(0, 8)}` };
      await subject.store.createBatch({
        batchId: scope.batchId,
        sourceBucket: 'bucket',
        sourceKey: 'incoming/a/list.csv',
        bureau: 'a',
        excelSummary: false,
      });
    });

    it('never reserves past a cap, with 25 callers racing for its last 5 units', async () => {
      for (let unit = 0; unit < 15; unit++) await budget.reserve(scope, { batch: null, monthly: 20 });

      const raced = await Promise.all(
        Array.from({ length: 25 }, () => budget.reserve(scope, { batch: null, monthly: 20 })),
      );

      expect(raced.filter((reservation) => reservation.reserved)).toHaveLength(5);
      expect(raced.filter((reservation) => !reservation.reserved)[0]).toEqual({
        reserved: false,
        exhausted: 'month',
      });
      expect((await budget.spent(scope.month)).a).toBe(20);
    });

    it("stops at the batch's own cap, leaving the month's units to other batches", async () => {
      const reservations = [];
      for (let unit = 0; unit < 4; unit++)
        reservations.push(await budget.reserve(scope, { batch: 3, monthly: 100 }));

      expect(reservations.map((reservation) => reservation.reserved)).toEqual([true, true, true, false]);
      expect(reservations[3]).toEqual({ reserved: false, exhausted: 'batch' });
      expect((await budget.spent(scope.month)).a).toBe(3);
    });

    it('reuses a unit given back, and keeps bureaus and months apart', async () => {
      await budget.reserve(scope, { batch: 1, monthly: null });
      await budget.giveBack(scope);
      const again = await budget.reserve(scope, { batch: 1, monthly: null });
      await budget.reserve({ ...scope, bureau: 'b' }, { batch: null, monthly: null });

      expect(again.reserved).toBe(true);
      expect(await budget.spent(scope.month)).toEqual({ a: 1, b: 1 });
      expect(await budget.spent(`${scope.month}-other`)).toEqual({ a: 0, b: 0 });
    });

    it('alerts once at 80 % and once at 100 % of each cap, even when a unit given back is taken again', async () => {
      const alerts: BudgetAlert[] = [];
      const reserve = async () => {
        const reservation = await budget.reserve(scope, { batch: 10, monthly: 5 });
        if (reservation.reserved) alerts.push(...reservation.alerts);
      };
      for (let unit = 0; unit < 5; unit++) await reserve();
      await budget.giveBack(scope);
      await budget.giveBack(scope);
      for (let unit = 0; unit < 5; unit++) await reserve();

      expect(alerts).toEqual([
        { scope: 'month', used: 4, cap: 5, percent: 80 },
        { scope: 'month', used: 5, cap: 5, percent: 100 },
      ]);
    });

    it('refuses everything under a cap of zero', async () => {
      expect(await budget.reserve(scope, { batch: 0, monthly: null })).toEqual({
        reserved: false,
        exhausted: 'batch',
      });
      expect(await budget.reserve(scope, { batch: null, monthly: 0 })).toEqual({
        reserved: false,
        exhausted: 'month',
      });
    });
  });
}
