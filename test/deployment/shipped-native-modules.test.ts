import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CloudAssembly, readCloudAssembly } from '../../cli/local/cloud-assembly.ts';

/**
 * The engine the functions run is the engine the tests ran: what `cdk deploy` would upload for each function that
 * decides holds ZEN's x86_64 Linux build at the version package.json pins, and no other build, whatever machine
 * synthesized it (deployed-functions.test.ts runs these same bundles).
 */

const CDK_OUT = 'cdk.out';
const ZEN = '@gorules/zen-engine';
const LINUX_X64 = `${ZEN}-linux-x64-gnu`;
const PIN = (JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> })
  .dependencies[ZEN];
// ELF's e_machine for x86-64 (the binary itself, beyond what its package.json declares).
const ELF_X86_64 = 0x3e;

let assembly: CloudAssembly;

beforeAll(() => {
  // `npm test` synthesizes before vitest; run alone, this test synthesizes itself the same way.
  if (!existsSync(`${CDK_OUT}/CreditScreen.template.json`)) {
    const synth = spawnSync('npm', ['run', 'synth'], { stdio: 'inherit' });
    if (synth.status !== 0) throw new Error('npm run synth failed');
  }
  assembly = readCloudAssembly(CDK_OUT);
}, 300_000);

/** The asset folder of the function whose logical id is `Pipeline<name><hash>`. */
function assetOf(name: string): string {
  const found = assembly.functions.find(({ logicalId }) =>
    new RegExp(`^Pipeline${name}[0-9A-F]{8}$`).test(logicalId),
  );
  if (!found) throw new Error(`no bundled function ${name} in ${CDK_OUT}`);
  return found.assetDirectory;
}

const manifestIn = (directory: string) =>
  JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    os?: string[];
    cpu?: string[];
  };

describe('the policy engine shipped beside the bundles in cdk.out', () => {
  it.each(['Worker', 'Finalise', 'PolicyCheck'])(
    '%s ships the linux-x64-gnu build at the pinned version, and only it',
    (name) => {
      const asset = assetOf(name);
      const build = join(asset, 'node_modules', LINUX_X64);

      const manifest = manifestIn(build);
      const binaries = readdirSync(build).filter((file) => file.endsWith('.node'));
      const header = readFileSync(join(build, binaries[0] ?? 'none.node')).subarray(0, 20);
      const builds = readdirSync(join(asset, 'node_modules', '@gorules')).filter((folder) =>
        folder.startsWith('zen-engine-'),
      );

      expect(PIN).toMatch(/^\d+\.\d+\.\d+$/);
      expect(manifest).toMatchObject({ name: LINUX_X64, version: PIN, os: ['linux'], cpu: ['x64'] });
      expect(manifestIn(join(asset, 'node_modules', ZEN)).version).toBe(PIN);
      expect(binaries).toHaveLength(1);
      expect(header.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
      expect(header.readUInt16LE(18)).toBe(ELF_X86_64);
      expect(builds).toEqual(['zen-engine-linux-x64-gnu']);
      expect(existsSync(join(asset, 'index.mjs'))).toBe(true);
      expect(existsSync(join(asset, 'zen-evaluator.mjs'))).toBe(true);
    },
  );

  it('ships no node_modules with the functions that load no native module', () => {
    const others = assembly.functions.filter(
      ({ logicalId }) =>
        logicalId.startsWith('Pipeline') &&
        !/^Pipeline(Worker|Finalise|PolicyCheck)[0-9A-F]{8}$/.test(logicalId),
    );

    expect(others.length).toBeGreaterThan(0);
    expect(others.filter(({ assetDirectory }) => existsSync(join(assetDirectory, 'node_modules')))).toEqual(
      [],
    );
  });
});
