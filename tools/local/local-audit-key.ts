import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The audit key's file in a state directory, readable by its owner only. */
const AUDIT_KEY_FILE = 'audit-key';

/**
 * The local deployment's audit key (what Secrets Manager generates in AWS): kept in the state directory, made on
 * first use (exclusively, so two runs on one state agree), so the audit log's entries of every run on that state
 * name a document the same way. Without a state directory nothing is kept, and a key for this run alone does.
 */
export function localAuditKey(stateDirectory: string | undefined): () => Promise<string> {
  if (stateDirectory === undefined) {
    const key = randomBytes(32).toString('hex');
    return async () => key;
  }
  const path = join(stateDirectory, AUDIT_KEY_FILE);
  return async () => {
    try {
      await writeFile(path, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return (await readFile(path, 'utf8')).trim();
  };
}
