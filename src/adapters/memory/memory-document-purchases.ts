import type {
  DocumentPurchases,
  PurchaseClaim,
  PurchasedAnswer,
  PurchaseHolder,
} from '../../domain/ports/index.ts';
import type { Bureau } from '../../domain/report/index.ts';

interface Purchase {
  readonly holder: PurchaseHolder;
  readonly leaseUntil: number;
  readonly pendingAnswerKey: string;
  readonly answer: PurchasedAnswer | null;
}

const sameHolder = (first: PurchaseHolder, second: PurchaseHolder) =>
  first.batchId === second.batchId && first.row === second.row;

/**
 * Document purchases in memory, under the same rules as the DynamoDB adapter (the contract suite in
 * test/adapters/document-purchases-contract.ts runs on both).
 */
export class MemoryDocumentPurchases implements DocumentPurchases {
  readonly #purchases = new Map<string, Purchase>();
  readonly #now: () => number;

  constructor(options: { readonly now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async claim(
    bureau: Bureau,
    document: string,
    holder: PurchaseHolder,
    options: {
      readonly leaseSeconds: number;
      readonly answerKey: string;
      readonly acceptAnswersSince: string;
    },
  ): Promise<PurchaseClaim> {
    const id = `${bureau}#${document}`;
    const current = this.#purchases.get(id);
    const now = this.#now();
    if (current?.answer && current.answer.fetchedAt >= options.acceptAnswersSince)
      return { kind: 'answered', ...current.answer };
    if (current && !current.answer && current.leaseUntil >= now && !sameHolder(current.holder, holder))
      return { kind: 'busy', holder: current.holder, leaseUntil: current.leaseUntil };
    this.#purchases.set(id, {
      holder: { ...holder },
      leaseUntil: now + options.leaseSeconds * 1000,
      pendingAnswerKey: options.answerKey,
      answer: null,
    });
    const abandoned = current && !current.answer && !sameHolder(current.holder, holder);
    return { kind: 'held', abandonedAnswerKey: abandoned ? current.pendingAnswerKey : null };
  }

  async recordAnswer(
    bureau: Bureau,
    document: string,
    holder: PurchaseHolder,
    answer: PurchasedAnswer,
  ): Promise<boolean> {
    const current = this.#held(bureau, document, holder);
    if (current === null) return false;
    this.#purchases.set(`${bureau}#${document}`, { ...current, answer: { ...answer } });
    return true;
  }

  async extend(bureau: Bureau, document: string, holder: PurchaseHolder, untilMs: number): Promise<boolean> {
    const current = this.#held(bureau, document, holder);
    if (current === null) return false;
    this.#purchases.set(`${bureau}#${document}`, { ...current, leaseUntil: untilMs });
    return true;
  }

  async release(bureau: Bureau, document: string, holder: PurchaseHolder): Promise<void> {
    if (this.#held(bureau, document, holder) !== null) this.#purchases.delete(`${bureau}#${document}`);
  }

  /** The purchase when `holder` holds it unanswered. */
  #held(bureau: Bureau, document: string, holder: PurchaseHolder): Purchase | null {
    const current = this.#purchases.get(`${bureau}#${document}`);
    return current && !current.answer && sameHolder(current.holder, holder) ? current : null;
  }

  /** Deletes the purchase of a document (an erasure); whether there was one. */
  forget(bureau: Bureau, document: string): boolean {
    return this.#purchases.delete(`${bureau}#${document}`);
  }
}
