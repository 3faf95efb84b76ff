import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

/** Set to the run's temporary folder when it is in memory. */
export const MEMORY_TMPDIR_MARKER = 'CREDIT_SCREEN_TEST_TMPDIR_IN_MEMORY';

/** Where Linux keeps a memory-backed filesystem. */
const MEMORY_FILESYSTEM = '/dev/shm';
/** The suite leaves about 150 MB in its temporary folders; this leaves room for far more. */
const ROOM_NEEDED_BYTES = 2 * 1024 ** 3;

/** Whether the memory-backed filesystem is there, writable, and has room. */
function memoryFilesystemHasRoom(): boolean {
  try {
    const space = statfsSync(MEMORY_FILESYSTEM);
    return space.bavail * space.bsize >= ROOM_NEEDED_BYTES;
  } catch {
    return false;
  }
}

/**
 * The run's temporary folders (every `mkdtemp(tmpdir())` of the tests and of the processes they start) in memory,
 * in one folder removed at the end. The local state's database and files are synced to disk on every write, as a
 * user's must be; a test's throwaway copy need not be: `screen.test.ts` and `rescreen.test.ts` took 82 s on disk
 * and 74 s in memory. Set before any worker starts, which inherits it; skipped where there is no such filesystem.
 */
export default function temporaryFoldersInMemory(): (() => void) | undefined {
  if (process.env.CREDIT_SCREEN_TEST_TMPDIR === 'disk' || !memoryFilesystemHasRoom()) return undefined;
  let folder: string;
  try {
    folder = mkdtempSync(join(MEMORY_FILESYSTEM, 'credit-screen-tests-'));
  } catch {
    return undefined;
  }
  process.env.TMPDIR = folder;
  // Says to the tests that the folders are in memory: the setup may have skipped (no room, no such filesystem).
  process.env[MEMORY_TMPDIR_MARKER] = folder;
  return () => rmSync(folder, { recursive: true, force: true });
}
