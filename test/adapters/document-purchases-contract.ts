import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DocumentPurchases, PurchaseHolder } from '../../src/domain/ports/index.ts';

/** A purchases store under test and the clock it reads, which the tests move. */
export interface PurchasesUnderTest {
  readonly purchases: DocumentPurchases;
  /** The store's clock now, in epoch milliseconds. */
  now(): number;
  /** Moves the store's clock forward. */
  advance(milliseconds: number): void;
}

const LEASE_SECONDS = 30;

/**
 * The rules every document-purchases store keeps, run against each implementation (in memory and DynamoDB): one
 * holder at a time, leases, answers shared with every batch that accepts their age, and changes only by the holder.
 */
export function describeDocumentPurchasesContract(
  name: string,
  open: () => Promise<PurchasesUnderTest>,
): void {
  describe(`${name}: the document purchases contract`, () => {
    let subject: PurchasesUnderTest;
    let purchases: DocumentPurchases;
    let document: string;
    const first: PurchaseHolder = { batchId: 'batch-first', row: 3 };
    const second: PurchaseHolder = { batchId: 'batch-second', row: 7 };
    const iso = (ms: number) => new Date(ms).toISOString();
    const claim = (holder: PurchaseHolder, acceptAnswersSince = iso(subject.now() - 3_600_000)) =>
      purchases.claim('a', document, holder, {
        leaseSeconds: LEASE_SECONDS,
        answerKey: `raw/a/${holder.batchId}/${holder.row}.json`,
        acceptAnswersSince,
      });

    beforeEach(async () => {
      subject = await open();
      purchases = subject.purchases;
      // Unique per test: the DynamoDB table is shared by the whole run.
      document = String(randomUUID().replace(/\D/g, '')).padEnd(11, '7').slice(0, 11);
    });

    it('gives the purchase to one holder and tells every other one who holds it, until when', async () => {
      const taken = await claim(first);
      const refused = await claim(second);

      expect(taken).toEqual({ kind: 'held', abandonedAnswerKey: null });
      expect(refused).toEqual({
        kind: 'busy',
        holder: first,
        leaseUntil: subject.now() + LEASE_SECONDS * 1000,
      });
    });

    it('gives exactly one of many simultaneous claimants the purchase', async () => {
      const holders = Array.from({ length: 12 }, (_, index) => ({ batchId: `race-${index}`, row: 1 }));

      const claims = await Promise.all(holders.map((holder) => claim(holder)));

      expect(claims.filter((result) => result.kind === 'held')).toHaveLength(1);
      expect(claims.filter((result) => result.kind === 'busy')).toHaveLength(11);
    });

    it('lets the same row take its purchase again (a retry), without calling it abandoned', async () => {
      await claim(first);

      expect(await claim(first)).toEqual({ kind: 'held', abandonedAnswerKey: null });
      expect((await claim(second)).kind).toBe('busy');
    });

    it('hands an expired purchase over with the dead holder’s answer key, to look for its persisted answer', async () => {
      await claim(first);
      subject.advance((LEASE_SECONDS + 1) * 1000);

      expect(await claim(second)).toEqual({
        kind: 'held',
        abandonedAnswerKey: `raw/a/${first.batchId}/${first.row}.json`,
      });
    });

    it('keeps a purchase its holder extends, and hands over a released one as not abandoned', async () => {
      await claim(first);
      expect(await purchases.extend('a', document, first, subject.now() + 120_000)).toBe(true);
      subject.advance((LEASE_SECONDS + 1) * 1000);
      expect((await claim(second)).kind).toBe('busy');

      await purchases.release('a', document, first);

      expect(await claim(second)).toEqual({ kind: 'held', abandonedAnswerKey: null });
    });

    it('shares a recorded answer with every batch that accepts its age, and replaces it for one that does not', async () => {
      await claim(first);
      const fetchedAt = iso(subject.now());
      expect(
        await purchases.recordAnswer('a', document, first, { answerKey: 'raw/a/first.json', fetchedAt }),
      ).toBe(true);

      const accepting = await claim(second, iso(subject.now() - 1000));
      const demanding = await claim(second, iso(subject.now() + 1));

      expect(accepting).toEqual({ kind: 'answered', answerKey: 'raw/a/first.json', fetchedAt });
      expect(demanding).toEqual({ kind: 'held', abandonedAnswerKey: null });
      expect((await claim(first, iso(subject.now() + 1))).kind).toBe('busy');
    });

    it('changes nothing for a caller that does not hold the purchase', async () => {
      await claim(first);

      expect(await purchases.extend('a', document, second, subject.now() + 120_000)).toBe(false);
      expect(
        await purchases.recordAnswer('a', document, second, {
          answerKey: 'x',
          fetchedAt: iso(subject.now()),
        }),
      ).toBe(false);
      await purchases.release('a', document, second);

      expect((await claim(second)).kind).toBe('busy');
    });

    it('never gives up or extends an answered purchase: the answer stays for the other batches', async () => {
      await claim(first);
      const fetchedAt = iso(subject.now());
      await purchases.recordAnswer('a', document, first, { answerKey: 'raw/a/first.json', fetchedAt });

      await purchases.release('a', document, first);
      expect(await purchases.extend('a', document, first, subject.now() + 1000)).toBe(false);

      expect(await claim(second, iso(subject.now() - 1000))).toMatchObject({ kind: 'answered' });
    });
  });
}
