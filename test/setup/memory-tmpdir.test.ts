import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';

describe('the run’s temporary folders', () => {
  it.skipIf(!existsSync('/dev/shm') || process.env.CREDIT_SCREEN_TEST_TMPDIR === 'disk')(
    'are in memory, for the tests and the processes they start alike',
    () => {
      const child = execFileSync(process.execPath, ['-p', 'require("node:os").tmpdir()'], {
        encoding: 'utf8',
      });

      expect(tmpdir()).toMatch(/^\/dev\/shm\/credit-screen-tests-/);
      expect(child.trim()).toBe(tmpdir());
    },
  );
});
