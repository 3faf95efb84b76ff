import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

import type { TokenSource } from '../../domain/ports/index.ts';

/**
 * Reads the token from Secrets Manager once per container and keeps it. The secret is either the bare token or a
 * JSON object with a `token` field (what the console's key/value editor writes).
 */
export class SecretsManagerTokenSource implements TokenSource {
  readonly #client: SecretsManagerClient;
  readonly #secretId: string;
  #cached: Promise<string> | undefined;

  constructor(client: SecretsManagerClient, secretId: string) {
    if (secretId === '') throw new Error('SecretsManagerTokenSource needs a secret id');
    this.#client = client;
    this.#secretId = secretId;
  }

  token(): Promise<string> {
    this.#cached ??= this.#load().catch((error: unknown) => {
      this.#cached = undefined; // a failed read is retried by the next invocation
      throw error;
    });
    return this.#cached;
  }

  async #load(): Promise<string> {
    const result = await this.#client.send(new GetSecretValueCommand({ SecretId: this.#secretId }));
    const text = result.SecretString?.trim() ?? '';
    let token = text;
    if (text.startsWith('{')) {
      const parsed = JSON.parse(text) as { token?: unknown };
      token = typeof parsed.token === 'string' ? parsed.token : '';
    }
    if (token === '')
      throw new Error(`secret ${this.#secretId} holds no bureau token (a string, or JSON with "token")`);
    return token;
  }
}

/** Reads a secret's string (the audit key): a function to call when the value is first needed, not before. */
export function secretStringOf(client: SecretsManagerClient, secretId: string): () => Promise<string> {
  return async () => {
    const result = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    const value = result.SecretString ?? '';
    if (value === '') throw new Error(`secret ${secretId} holds no value`);
    return value;
  };
}
