import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Folders whose files start local stacks (DynamoDB Local, fauxqs) or CLI child processes: they take tens of seconds
 * each, much of it waiting, so they start first and, with `--maxWorkers` above 1, the short unit files fill the gaps
 * around them.
 */
const SLOW_FOLDERS = ['test/pipeline/', 'test/cli/'];

const isSlow = (specification: TestSpecification) =>
  SLOW_FOLDERS.some((folder) => specification.moduleId.includes(`/${folder}`));

/**
 * Vitest's order (failed first, then longest first by the durations of the last run), with the slow folders first
 * when there is no last run to go by (a clean checkout, as in CI): the longest files must not start last.
 */
class SlowFilesFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const cache = this.ctx.cache;
    const known = sorted.every((file) =>
      cache.getFileTestResults(`${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`),
    );
    if (known) return sorted;
    return [...sorted.filter(isSlow), ...sorted.filter((file) => !isSlow(file))];
  }
}

export default defineConfig({
  test: {
    // One file more than there are cores: pipeline and CLI files spend part of their time waiting on child processes,
    // the emulators and timers, and the file beside them uses that CPU. On 2 cores, vitest's default (cores - 1 = one
    // file at a time) took 842 s; two files 396 s; three 381 s (README, Test suite).
    maxWorkers: availableParallelism() + 1,
    // A worker keeps the modules it loaded from one file to the next instead of loading them again for each (the AWS
    // SDK, fauxqs, ECharts: 54 s of the run's import time; 327 s rather than 360 s). Safe here because no test
    // changes module state: handlers, stores and stacks are built by factories per test, nothing is mocked, and no
    // test writes process.env.
    isolate: false,
    include: ['test/**/*.test.ts'],
    sequence: { sequencer: SlowFilesFirstSequencer },
    globalSetup: ['test/setup/memory-tmpdir.ts', 'test/setup/shared-dynamodb-local.ts'],
    // Property-based and CLI tests spawn processes or run many iterations; the default 5 s is too tight on 2 cores,
    // and 30 s timed out a CLI test with files side by side.
    testTimeout: 60_000,
  },
});
