/**
 * Scale bench (`npm run bench:scale -- --rows 1000000 [--policy <file>] [--part-rows <n>] [--rescreen] [--json]`): the real
 * finaliser on a finalising batch of `--rows` generated rows (bench/generated-batch.ts: rows and reports are
 * generated as they are read, so the heap measured is the finaliser's own), driven as the finalise queue drives it
 * (bench/finaliser-scale.ts). With `--policy`, the finaliser decides every row with that policy: the most it ever
 * does (deployed, the workers decide the rows they settle). With `--rescreen`, the batch re-screens a portfolio:
 * every screened row is compared with a previous report (and, with a policy, decided again on it), its changes
 * written and announced. The object store keeps files as bytes outside the heap, as S3 does.
 *
 * The longest invocation is scaled to Lambda's CPU share at the finaliser's memory: Lambda gives a function
 * memory ÷ 1,769 MB of one vCPU, so CPU-seconds here ÷ that share is its time there, taking this machine's core
 * for Lambda's. The heap limit is about 60 % of the memory (Node's default in Lambda).
 *
 * With `--json`, one object: `{ rows, policy, partRows, rescreen, functions: { finalise: { peakHeapMB, heapLimitMB,
 * longestScaledSeconds, timeoutSeconds, invocations } } }`.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_SETTINGS, FUNCTION_MEMORY, functionSpecs } from '../src/contract/index.ts';
import { measureFinaliser, scaledToLambda } from './finaliser-scale.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    policy: { type: 'string' },
    'part-rows': { type: 'string', default: String(DEFAULT_SETTINGS.finalisePartRows) },
    rescreen: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const rows = Number(values.rows);
const partRows = Number(values['part-rows']);
if (!(Number.isInteger(rows) && rows > 0 && Number.isInteger(partRows) && partRows > 0)) {
  console.error('bench:scale: --rows and --part-rows must be whole numbers above 0');
  process.exit(2);
}

const started = performance.now();
const invocations = await measureFinaliser({
  rows,
  partRows,
  rescreen: values.rescreen,
  ...(values.policy === undefined ? {} : { policyFile: values.policy }),
});
const wallSeconds = (performance.now() - started) / 1000;

const memory = FUNCTION_MEMORY.finalise;
const longest = invocations.reduce((most, one) => (one.cpuSeconds > most.cpuSeconds ? one : most));
const finalise = {
  peakHeapMB: Math.round(Math.max(...invocations.map((invocation) => invocation.peakHeapMb))),
  heapLimitMB: Math.round(memory * 0.6),
  longestScaledSeconds: Math.round(scaledToLambda(longest.cpuSeconds, memory)),
  timeoutSeconds: functionSpecs(DEFAULT_SETTINGS).finalise.timeoutSeconds,
  invocations: invocations.length,
};
if (values.json) {
  const rescreen = values.rescreen;
  console.log(
    JSON.stringify({ rows, policy: values.policy ?? null, partRows, rescreen, functions: { finalise } }),
  );
} else {
  const cpuSeconds = invocations.reduce((sum, invocation) => sum + invocation.cpuSeconds, 0);
  const join = invocations.find((invocation) => invocation.message === 'join');
  console.log(
    `finaliser, ${values.rescreen ? 're-screen of ' : ''}${rows.toLocaleString('en')} rows in parts of ${partRows.toLocaleString('en')}, ` +
      `${values.policy ? `every row decided with ${values.policy}` : 'no policy'}:`,
  );
  console.log(
    `  ${invocations.length} invocations, ${cpuSeconds.toFixed(1)} CPU-s in all, ${wallSeconds.toFixed(1)} s here`,
  );
  console.log(
    `  longest: a ${longest.message}, ${longest.cpuSeconds.toFixed(1)} CPU-s here, about ` +
      `${finalise.longestScaledSeconds} s at ${memory} MB in Lambda (timeout ${finalise.timeoutSeconds} s)`,
  );
  console.log(`  peak heap: ${finalise.peakHeapMB} MB (limit about ${finalise.heapLimitMB} MB)`);
  if (join) console.log(`  the join: ${join.cpuSeconds.toFixed(1)} CPU-s, ${Math.round(join.peakHeapMb)} MB`);
}
