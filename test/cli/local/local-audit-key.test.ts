import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLocalAuditKey } from '../../../cli/local/local-audit-key.ts';
import { LocalStateError } from '../../../cli/local/local-state.ts';

const stateDirectory = () => mkdtemp(join(tmpdir(), 'credit-screen-audit-key-'));

describe('openLocalAuditKey', () => {
  it('makes a private key and its check on first use, and reads the same key afterwards', async () => {
    const directory = await stateDirectory();

    const first = await openLocalAuditKey(directory);
    const second = await openLocalAuditKey(directory);

    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(second).toBe(first);
    expect((await stat(join(directory, 'audit-key'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(directory, 'audit-key.check'), 'utf8')).not.toContain(first);
  });

  it('refuses a key that went missing instead of making a new one', async () => {
    const directory = await stateDirectory();
    await openLocalAuditKey(directory);
    await rm(join(directory, 'audit-key'));

    await expect(openLocalAuditKey(directory)).rejects.toThrow(
      new LocalStateError(
        `${directory}: its audit key (audit-key) is missing, and the audit log names documents by it: restore the file from a backup of the directory`,
      ),
    );
  });

  it('refuses a key that is not the one its check was made with', async () => {
    const directory = await stateDirectory();
    await openLocalAuditKey(directory);
    await writeFile(join(directory, 'audit-key'), 'b'.repeat(64));

    await expect(openLocalAuditKey(directory)).rejects.toThrow(/is not the key its audit log began with/);
  });

  it('adds the check to a state made before it, keeping that state’s key', async () => {
    const directory = await stateDirectory();
    await writeFile(join(directory, 'audit-key'), 'c'.repeat(64), { mode: 0o600 });

    expect(await openLocalAuditKey(directory)).toBe('c'.repeat(64));
    expect(await openLocalAuditKey(directory)).toBe('c'.repeat(64));
  });

  it('makes a key for the run alone without a state directory', async () => {
    expect(await openLocalAuditKey(undefined)).not.toBe(await openLocalAuditKey(undefined));
  });
});
