import type { TokenSource } from '../../domain/ports/index.ts';

/** A token given directly (local runs). */
export class StaticTokenSource implements TokenSource {
  readonly #token: string;
  constructor(token: string) {
    this.#token = token;
  }
  async token(): Promise<string> {
    return this.#token;
  }
}
