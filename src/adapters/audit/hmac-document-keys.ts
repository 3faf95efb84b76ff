import { createHmac } from 'node:crypto';
import type { DocumentKeys } from '../../domain/ports/index.ts';

/** Shortest secret accepted: an HMAC key must not be guessable (32 random characters or more). */
const MIN_SECRET_LENGTH = 32;

/**
 * HMAC-SHA256 of the normalised document under the deployment's secret: the same document always gets the same key
 * (so its entries are found again), and without the secret nobody can tell whose entries they are, even by trying
 * every CPF. The secret comes from `secret()`, read once (Secrets Manager in AWS, a private file locally).
 */
export class HmacDocumentKeys implements DocumentKeys {
  #secret: Promise<string> | null = null;

  constructor(private readonly secret: () => Promise<string>) {}

  async keyOf(document: string): Promise<string> {
    this.#secret ??= this.secret().then((value) => {
      if (value.length < MIN_SECRET_LENGTH)
        throw new Error(`the audit key must be at least ${MIN_SECRET_LENGTH} characters long`);
      return value;
    });
    const secret = await this.#secret.catch((error: unknown) => {
      this.#secret = null; // read again next time: a secret that could not be read may be readable later
      throw error;
    });
    return createHmac('sha256', secret)
      .update(document.replace(/\D/g, '') || document)
      .digest('hex');
  }
}
