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
    include: ['test/**/*.test.ts'],
    // Files side by side (`--maxWorkers=4` on 2 cores) took 751 s rather than 810–940 s, but timed out pipeline
    // tests when other work loaded the machine: the suite needs about 1,570 s of CPU. Vitest's default (cores - 1)
    // stays until that comes down; see README, Test suite.
    sequence: { sequencer: SlowFilesFirstSequencer },
    globalSetup: ['test/setup/shared-dynamodb-local.ts'],
    // Property-based and CLI tests spawn processes or run many iterations; the default 5 s is too tight on 2 cores,
    // and 30 s timed out a CLI test with files side by side.
    testTimeout: 60_000,
  },
});
