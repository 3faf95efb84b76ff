/**
 * Size and cold start of each bundled function in `cdk.out` (run `npm run synth` first): the bundle's bytes and the
 * time from spawning a Node process on a copy of the bundle (outside the project) to its handler being ready
 * (spawn → ready; "init" is the module load alone, timed inside the process), median of several starts. Node here
 * is the machine's (20), not Lambda's 22: the figures compare bundles, they do not predict Lambda's.
 *
 *   npm run bench:bundles [-- <cdk.out folder>] [--baseline <older cdk.out folder>]
 *
 * A baseline is a synth of bundles that leave the SDK out (before bundleAwsSDK): its bundles resolve `@aws-sdk/*`
 * from the project's node_modules, standing in for the SDK the Lambda runtime provides. Starts of the two are
 * interleaved, so a busy machine slows both alike.
 */
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BundledFunction } from '../cli/local/bundled-function.ts';
import { type BundledFunctionDefinition, readCloudAssembly } from '../cli/local/cloud-assembly.ts';

const STARTS = 9;
const args = process.argv.slice(2);
const baselineAt = args.indexOf('--baseline');
const baselineDirectory = baselineAt >= 0 ? args[baselineAt + 1] : undefined;
const directory = resolve(
  args.find((arg, index) => !arg.startsWith('--') && index !== baselineAt + 1) ?? 'cdk.out',
);

/** The template's variables, with a placeholder where a value is a reference: init only checks they are set. */
function placeholderEnvironment(properties: Record<string, unknown>): Record<string, string> {
  const variables = (properties.Environment as { Variables?: Record<string, unknown> } | undefined)
    ?.Variables;
  return Object.fromEntries(
    Object.entries(variables ?? {}).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : `https://placeholder.invalid/${name}`,
    ]),
  );
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

interface Measured {
  readonly spawnToReady: number[];
  readonly init: number[];
}

async function startOnce(
  definition: BundledFunctionDefinition,
  providedModules: string | undefined,
  into: Measured,
) {
  const bundled = new BundledFunction({
    assetDirectory: definition.assetDirectory,
    functionName: definition.logicalId,
    functionArn: `arn:aws:lambda:us-east-1:123456789012:function:${definition.logicalId}`,
    handler: definition.handler,
    memorySize: definition.memorySize,
    timeoutSeconds: definition.timeoutSeconds,
    environment: { AWS_REGION: 'us-east-1', ...placeholderEnvironment(definition.properties) },
    providedModules,
  });
  const started = performance.now();
  await bundled.start();
  into.spawnToReady.push(performance.now() - started);
  into.init.push(...bundled.initDurations);
  await bundled.stop();
}

const kilobytes = (definition: BundledFunctionDefinition, file: string) =>
  (statSync(join(definition.assetDirectory, file)).size / 1024).toFixed(0);

const baseline = baselineDirectory ? readCloudAssembly(resolve(baselineDirectory)).functions : [];
console.log(
  `bundles in ${directory}${baselineDirectory ? `, baseline ${baselineDirectory}` : ''}, Node ${process.version}`,
);
console.log('function             bundle    index.mjs KB  map KB  spawn→ready ms  init ms');
for (const definition of readCloudAssembly(directory).functions) {
  const before = baseline.find((candidate) => candidate.logicalId === definition.logicalId);
  const current: Measured = { spawnToReady: [], init: [] };
  const previous: Measured = { spawnToReady: [], init: [] };
  for (let start = 0; start < STARTS; start++) {
    await startOnce(definition, undefined, current);
    if (before) await startOnce(before, resolve('node_modules'), previous);
  }
  const name = definition.logicalId.replace(/^Pipeline/, '').replace(/[0-9A-F]{8}$/, '');
  const row = (label: string, measured: Measured, of: BundledFunctionDefinition) =>
    console.log(
      [
        name.padEnd(20),
        label.padEnd(9),
        kilobytes(of, 'index.mjs').padStart(13),
        kilobytes(of, 'index.mjs.map').padStart(7),
        median(measured.spawnToReady).toFixed(0).padStart(15),
        median(measured.init).toFixed(0).padStart(8),
      ].join(' '),
    );
  if (before) row('baseline', previous, before);
  row('current', current, definition);
}
