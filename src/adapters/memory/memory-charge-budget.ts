import { perBureau } from '../../domain/bureau/index.ts';
import type { ChargeBudget } from '../../domain/ports/index.ts';
import type { Bureau } from '../../domain/report/index.ts';
import {
  alertsAt,
  type BudgetCaps,
  type BudgetReservation,
  type BudgetScope,
} from '../../domain/spend/index.ts';

/** The spending caps in memory, with the DynamoDB budget's rules (the same contract tests run on both). */
export class MemoryChargeBudget implements ChargeBudget {
  readonly #used = new Map<string, number>();
  readonly #alerted = new Set<string>();

  async reserve(scope: BudgetScope, caps: BudgetCaps): Promise<BudgetReservation> {
    const batch = `batch#${scope.batchId}`;
    const month = `${scope.bureau}#${scope.month}`;
    const batchUsed = this.#used.get(batch) ?? 0;
    const monthUsed = this.#used.get(month) ?? 0;
    if (caps.batch !== null && batchUsed >= caps.batch) return { reserved: false, exhausted: 'batch' };
    if (caps.monthly !== null && monthUsed >= caps.monthly) return { reserved: false, exhausted: 'month' };
    this.#used.set(batch, batchUsed + 1);
    this.#used.set(month, monthUsed + 1);
    const alerts = [
      ...alertsAt('batch', batchUsed + 1, caps.batch).map((alert) => ({ alert, key: batch })),
      ...alertsAt('month', monthUsed + 1, caps.monthly).map((alert) => ({ alert, key: month })),
    ].filter(({ alert, key }) => this.#firstTime(`${key}#${alert.percent}`));
    return { reserved: true, alerts: alerts.map(({ alert }) => alert) };
  }

  /** Each alert once, even when a count passes its threshold again after a unit was given back. */
  #firstTime(alert: string): boolean {
    if (this.#alerted.has(alert)) return false;
    this.#alerted.add(alert);
    return true;
  }

  async giveBack(scope: BudgetScope): Promise<void> {
    for (const key of [`batch#${scope.batchId}`, `${scope.bureau}#${scope.month}`])
      this.#used.set(key, (this.#used.get(key) ?? 0) - 1);
  }

  async spent(month: string): Promise<Record<Bureau, number>> {
    return perBureau((bureau) => this.#used.get(`${bureau}#${month}`) ?? 0);
  }

  /** Units reserved by a batch (what the DynamoDB budget keeps on the batch item). */
  reservedBy(batchId: string): number {
    return this.#used.get(`batch#${batchId}`) ?? 0;
  }
}
