import { readFile, rename, rm, stat } from 'node:fs/promises';
import initSqlJs from 'sql.js';
import { writePrivateFile } from './private-files.ts';

/**
 * Rewrites DynamoDB Local's database file without the pages of deleted items. DynamoDB Local keeps its tables in one
 * SQLite file, and SQLite only marks a deleted row's page free: the bytes of an erased report stay in the file until
 * the page is reused (measured: a document whose items were all deleted was still found 11 times in the file).
 * SQLite's `VACUUM` rebuilds the file from the live rows only. Run while DynamoDB Local is stopped; the new file
 * replaces the old one by a rename, so a crash leaves one or the other, never half of each.
 *
 * sql.js is SQLite compiled to WebAssembly: no native module, the same SQLite file format DynamoDB Local writes.
 *
 * @returns the file's size before and after, in bytes; null when there is no database file.
 */
export async function compactDatabaseFile(path: string): Promise<{ before: number; after: number } | null> {
  const before = await stat(path).catch(() => null);
  if (before === null) return null;
  const SQL = await initSqlJs();
  const database = new SQL.Database(await readFile(path));
  let compacted: Uint8Array;
  try {
    database.run('VACUUM');
    compacted = database.export();
  } finally {
    database.close();
  }
  const next = `${path}.compacted`;
  try {
    await writePrivateFile(next, compacted);
    await rename(next, path);
  } finally {
    await rm(next, { force: true });
  }
  return { before: before.size, after: compacted.length };
}
