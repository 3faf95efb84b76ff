import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_USER_AGENT } from '../../service-client/http-transport.ts';
import { CLIENT_VERSION } from '../../service-client/version.ts';

const packageVersion = (): unknown =>
  (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown })
    .version;

describe('CLIENT_VERSION', () => {
  it("is package.json's version, so the User-Agent names the release that sent it", () => {
    expect(CLIENT_VERSION).toBe(packageVersion());
  });

  it('is the version in the default User-Agent', () => {
    expect(DEFAULT_USER_AGENT).toBe(`credit-screen/${packageVersion()}`);
  });
});
