/**
 * Size and cold start of each bundled function in `cdk.out` (run `npm run synth` first): the bundle's bytes and the
 * time from spawning a Node process on a copy of the bundle (outside the project) to its handler being ready,
 * median of several starts. Node here is the machine's (20), not Lambda's 22; the figures compare bundles.
 *
 *   npm run bench:bundles [-- <cdk.out folder>] [--provided-sdk]
 *
 * --provided-sdk lets the bundles resolve packages from the project's node_modules, as the Lambda runtime's own SDK
 * did for bundles built without the SDK.
 */
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BundledFunction } from '../local/bundled-function.ts';
import { readCloudAssembly } from '../local/cloud-assembly.ts';

const STARTS = 7;
const args = process.argv.slice(2);
const directory = resolve(args.find((arg) => !arg.startsWith('--')) ?? 'cdk.out');
const providedModules = args.includes('--provided-sdk') ? resolve('node_modules') : undefined;

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

console.log(
  `bundles in ${directory}${providedModules ? ' (SDK provided by node_modules)' : ''}, Node ${process.version}`,
);
console.log('function              index.mjs KB   map KB   spawn→ready ms   init ms');
for (const definition of readCloudAssembly(directory).functions) {
  const bytes = (file: string) => statSync(join(definition.assetDirectory, file)).size / 1024;
  const spawnToReady: number[] = [];
  const init: number[] = [];
  for (let start = 0; start < STARTS; start++) {
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
    spawnToReady.push(performance.now() - started);
    init.push(...bundled.initDurations);
    await bundled.stop();
  }
  console.log(
    [
      definition.logicalId
        .replace(/^Pipeline/, '')
        .replace(/[0-9A-F]{8}$/, '')
        .padEnd(20),
      bytes('index.mjs').toFixed(0).padStart(12),
      bytes('index.mjs.map').toFixed(0).padStart(8),
      median(spawnToReady).toFixed(0).padStart(16),
      median(init).toFixed(0).padStart(9),
    ].join(' '),
  );
}
