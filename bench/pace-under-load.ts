/**
 * The rate limit's bound on a starved machine: runs the pace test (test/pipeline/rate-limit-pace.test.ts) `--runs`
 * times in a row while `--hogs` CPU-bound processes run beside it, and prints each run's busiest second of calls
 * sent against the bound (rate + burst). Run with `npm run bench:pace` (`-- --runs 5 --hogs 2`).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '20' }, hogs: { type: 'string', default: '2' } },
});
const ROOT = fileURLToPath(new URL('..', import.meta.url));

const hogs: ChildProcess[] = Array.from({ length: Number(values.hogs) }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
);
let failed = 0;
try {
  for (let run = 1; run <= Number(values.runs); run++) {
    const started = Date.now();
    const result = spawnSync('npx', ['vitest', 'run', 'test/pipeline/rate-limit-pace.test.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, PACE_FIGURES: '1' },
    });
    const figures = /pace: (.*)/.exec(result.stdout)?.[1] ?? 'no figures';
    if (result.status !== 0) failed++;
    console.log(
      `run ${String(run).padStart(2)}  ${result.status === 0 ? 'passed' : 'FAILED'}  ${figures}  (${((Date.now() - started) / 1000).toFixed(0)} s)`,
    );
  }
} finally {
  for (const hog of hogs) hog.kill();
}
console.log(`${Number(values.runs) - failed} of ${values.runs} runs passed beside ${values.hogs} CPU hogs`);
process.exitCode = failed === 0 ? 0 : 1;
