import type { DocumentType } from '../documents/index.ts';
import type { CustomerRow } from './customer-list.ts';

/** Counts of a validated customer list. `valid` includes duplicates; `unique` is what screening would query. */
export interface IntakeCounts {
  readonly rows: number;
  readonly valid: number;
  readonly invalid: number;
  readonly duplicates: number;
  readonly unique: number;
  /** Rows whose document type is known, whatever their status. */
  readonly byType: Readonly<Record<DocumentType, number>>;
  /** Valid rows whose leading zeros were restored (numeric spreadsheet column). */
  readonly restoredLeadingZeros: number;
}

/** Accumulates {@link IntakeCounts} row by row. */
export class IntakeTally {
  #rows = 0;
  #invalid = 0;
  #duplicates = 0;
  #restored = 0;
  #byType = { cpf: 0, cnpj: 0 };

  add(row: CustomerRow): void {
    this.#rows++;
    if (row.status === 'invalid') this.#invalid++;
    if (row.status === 'duplicate') this.#duplicates++;
    if (row.restoredLeadingZeros > 0) this.#restored++;
    if (row.type !== null) this.#byType[row.type]++;
  }

  get counts(): IntakeCounts {
    const valid = this.#rows - this.#invalid;
    return {
      rows: this.#rows,
      valid,
      invalid: this.#invalid,
      duplicates: this.#duplicates,
      unique: valid - this.#duplicates,
      byType: { ...this.#byType },
      restoredLeadingZeros: this.#restored,
    };
  }
}
