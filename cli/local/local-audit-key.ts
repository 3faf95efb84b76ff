import { createHmac, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalStateError } from './local-state.ts';
import { readIfThere, writeOnce } from './private-files.ts';

/** The audit key's file in a state directory, readable by its owner only. */
const AUDIT_KEY_FILE = 'audit-key';
/**
 * Beside it, a keyed hash of a fixed text made with the key when the key was made: it says whether the key there is
 * still the one the audit log began with, and tells nothing of the key.
 */
const AUDIT_KEY_CHECK_FILE = 'audit-key.check';
const CHECK_TEXT = 'credit-screen local audit key check, version 1';

const checkOf = (key: string) => createHmac('sha256', key).update(CHECK_TEXT).digest('hex');

/**
 * The local deployment's audit key (what Secrets Manager generates in AWS), kept in the state directory and made
 * on first use, so that the audit log's entries of every run on that state name a document the same way. Without a
 * state directory nothing is kept, and a key for this run alone does.
 *
 * A key that went missing or changed is refused, never replaced: the audit log names documents only by their keyed
 * hash, so with another key `audit --document` and the data subject's export would answer "no entry" for documents
 * that have them. Deleting both files on purpose starts a new key (the old entries then name no one findable).
 *
 * @throws LocalStateError when the key is missing while its check is there, or is not the key the check was made with
 */
export async function openLocalAuditKey(stateDirectory: string | undefined): Promise<string> {
  if (stateDirectory === undefined) return randomBytes(32).toString('hex');
  const keyPath = join(stateDirectory, AUDIT_KEY_FILE);
  const checkPath = join(stateDirectory, AUDIT_KEY_CHECK_FILE);
  let key = await readIfThere(keyPath);
  const check = await readIfThere(checkPath);
  if (key === null && check !== null)
    throw new LocalStateError(
      `${stateDirectory}: its audit key (${AUDIT_KEY_FILE}) is missing, and the audit log names documents by it: restore the file from a backup of the directory`,
    );
  if (key === null) {
    await writeOnce(keyPath, randomBytes(32).toString('hex'));
    key = (await readFile(keyPath, 'utf8')).trim();
  }
  if (check === null) await writeOnce(checkPath, checkOf(key));
  const kept = check ?? (await readFile(checkPath, 'utf8')).trim();
  if (kept !== checkOf(key))
    throw new LocalStateError(
      `${stateDirectory}: its audit key (${AUDIT_KEY_FILE}) is not the key its audit log began with: restore the original file from a backup of the directory`,
    );
  return key;
}
