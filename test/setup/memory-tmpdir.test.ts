import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { MEMORY_TMPDIR_MARKER } from './memory-tmpdir.ts';

const inMemory = process.env[MEMORY_TMPDIR_MARKER];

describe('the run’s temporary folders', () => {
  // Where the setup put them in memory; on a machine without room for them it leaves them on disk.
  it.skipIf(inMemory === undefined)('are in memory, for the tests and the processes they start alike', () => {
    const child = execFileSync(process.execPath, ['-p', 'require("node:os").tmpdir()'], { encoding: 'utf8' });

    expect(tmpdir()).toBe(inMemory);
    expect(tmpdir()).toMatch(/^\/dev\/shm\/credit-screen-tests-/);
    expect(child.trim()).toBe(tmpdir());
  });
});
