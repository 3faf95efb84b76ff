import type { DecisionOverride } from '../../domain/decision/index.ts';
import type { DecisionOverrides } from '../../domain/ports/index.ts';

/** Overrides in memory, append-only like the DynamoDB store: none is ever replaced. */
export class MemoryDecisionOverrides implements DecisionOverrides {
  readonly #byBatch = new Map<string, DecisionOverride[]>();

  async recordOverride(override: DecisionOverride): Promise<void> {
    const kept = this.#byBatch.get(override.batchId) ?? [];
    if (kept.some((known) => known.row === override.row && known.at === override.at))
      throw new Error(`an override of row ${override.row} at ${override.at} is recorded already`);
    kept.push(structuredClone(override));
    this.#byBatch.set(override.batchId, kept);
  }

  async overridesOf(batchId: string): Promise<DecisionOverride[]> {
    return [...(this.#byBatch.get(batchId) ?? [])]
      .sort((a, b) => a.row - b.row || a.at.localeCompare(b.at))
      .map((override) => structuredClone(override));
  }

  /** Deletes the overrides of a row (an erasure); how many there were. */
  forgetRow(batchId: string, row: number): number {
    const kept = this.#byBatch.get(batchId) ?? [];
    const rest = kept.filter((override) => override.row !== row);
    this.#byBatch.set(batchId, rest);
    return kept.length - rest.length;
  }
}
