import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type PackageFetcher,
  resolveNativeModule,
  type ShippedPackage,
} from '../../lib/pipeline/native-modules.ts';

const ZEN = '@gorules/zen-engine';
const LINUX_X64 = '@gorules/zen-engine-linux-x64-gnu';
// The project's own pin and the installed engine's list of builds: the fake machines below differ from this one only
// in which build npm installed.
const PIN = (JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> })
  .dependencies[ZEN] as string;
const OPTIONAL = (
  JSON.parse(readFileSync(`node_modules/${ZEN}/package.json`, 'utf8')) as {
    optionalDependencies: Record<string, string>;
  }
).optionalDependencies;
const LOCKED_INTEGRITY = 'sha512-bHludXgteDY0LWdudSBhcyBsb2NrZWQ=';

interface Build {
  readonly name: string;
  readonly version: string;
  readonly os: readonly string[];
  readonly cpu: readonly string[];
  readonly libc?: readonly string[];
  readonly binary?: boolean;
}

const linuxX64 = (version = PIN): Build => ({
  name: LINUX_X64,
  version,
  os: ['linux'],
  cpu: ['x64'],
  libc: ['glibc'],
});
// What npm installs on a Mac or an arm64 Linux machine: their own build, at the version `overrides` holds it to.
const DARWIN_ARM64: Build = {
  name: `${ZEN}-darwin-arm64`,
  version: '0.52.1',
  os: ['darwin'],
  cpu: ['arm64'],
};
const LINUX_ARM64: Build = {
  name: `${ZEN}-linux-arm64-gnu`,
  version: '0.52.1',
  os: ['linux'],
  cpu: ['arm64'],
  libc: ['glibc'],
};

/** Writes a build's package into `directory`: its package.json and, unless told not to, its `.node` binary. */
function writeBuild(directory: string, build: Build): void {
  mkdirSync(directory, { recursive: true });
  const { binary = true, ...manifest } = build;
  writeFileSync(join(directory, 'package.json'), JSON.stringify(manifest));
  if (binary) writeFileSync(join(directory, 'zen-engine.node'), `binary of ${build.name}@${build.version}`);
}

/** A build machine's project: the pin, the lock's integrity of the x86_64 build, the engine and the builds installed. */
function buildMachine(installed: readonly Build[], pin = PIN): { projectRoot: string; cacheRoot: string } {
  const projectRoot = mkdtempSync(join(tmpdir(), 'native-modules-'));
  writeFileSync(join(projectRoot, 'package.json'), JSON.stringify({ dependencies: { [ZEN]: pin } }));
  writeFileSync(
    join(projectRoot, 'package-lock.json'),
    JSON.stringify({
      packages: { [`node_modules/${LINUX_X64}`]: { version: PIN, integrity: LOCKED_INTEGRITY } },
    }),
  );
  const engine = join(projectRoot, 'node_modules', ZEN);
  mkdirSync(engine, { recursive: true });
  writeFileSync(
    join(engine, 'package.json'),
    JSON.stringify({ name: ZEN, version: PIN, optionalDependencies: OPTIONAL }),
  );
  for (const build of installed) writeBuild(join(projectRoot, 'node_modules', build.name), build);
  return { projectRoot, cacheRoot: join(projectRoot, 'node_modules', '.cache', 'native-modules') };
}

/** A fetcher that writes `build` (the registry's answer) and records what it was asked for. */
function fakeFetcher(build: Build = linuxX64(), integrity = LOCKED_INTEGRITY) {
  const asked: string[] = [];
  const fetch: PackageFetcher = (name, version, destination) => {
    asked.push(`${name}@${version}`);
    writeBuild(destination, build);
    return { integrity };
  };
  return { asked, fetch };
}

const failingFetcher: PackageFetcher = () => {
  throw new Error(
    'npm pack failed: npm error request to https://registry.npmjs.org/x failed, reason: getaddrinfo ENOTFOUND\nnpm error more',
  );
};

const summary = (packages: readonly ShippedPackage[]) =>
  packages.map(({ name, version, source }) => `${name}@${version} from ${source}`);

const manifestIn = (shipped: ShippedPackage | undefined) =>
  JSON.parse(readFileSync(join(shipped?.directory ?? '', 'package.json'), 'utf8')) as Build;

/** The message `act` throws (it must throw). */
function failureOf(act: () => unknown): string {
  try {
    act();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a failure');
}

describe('the native build each function ships (resolveNativeModule)', () => {
  it.each([
    ['a Mac (darwin-arm64)', DARWIN_ARM64],
    ['an arm64 Linux machine (linux-arm64-gnu)', LINUX_ARM64],
  ])(
    'on %s, fetches and ships the linux-x64-gnu build at the pinned version, never the machine’s own',
    (_machine, own) => {
      const machine = buildMachine([own]);
      const fetcher = fakeFetcher();

      const first = resolveNativeModule(ZEN, 'x86_64', { ...machine, fetch: fetcher.fetch });
      const second = resolveNativeModule(ZEN, 'x86_64', { ...machine, fetch: fetcher.fetch });

      expect(fetcher.asked).toEqual([`${LINUX_X64}@${PIN}`]);
      expect(summary(first)).toEqual([
        `${ZEN}@${PIN} from node_modules`,
        `${LINUX_X64}@${PIN} from registry`,
      ]);
      expect(summary(second)).toEqual([`${ZEN}@${PIN} from node_modules`, `${LINUX_X64}@${PIN} from cache`]);
      expect(second[1]?.directory).toBe(first[1]?.directory);
      expect(first[1]?.directory.startsWith(machine.cacheRoot)).toBe(true);
      expect(manifestIn(first[1])).toMatchObject({
        name: LINUX_X64,
        version: PIN,
        os: ['linux'],
        cpu: ['x64'],
      });
      expect(readdirSync(first[1]?.directory ?? '').some((file) => file.endsWith('.node'))).toBe(true);
      expect(first.some(({ name, directory }) => name === own.name || directory.includes(own.name))).toBe(
        false,
      );
    },
  );

  it('ships the build npm installed when it is linux-x64-gnu at the pinned version (x86_64 Linux, CI), fetching nothing', () => {
    const machine = buildMachine([linuxX64()]);
    const fetcher = fakeFetcher();

    const shipped = resolveNativeModule(ZEN, 'x86_64', { ...machine, fetch: fetcher.fetch });

    expect(summary(shipped)).toEqual([
      `${ZEN}@${PIN} from node_modules`,
      `${LINUX_X64}@${PIN} from node_modules`,
    ]);
    expect(shipped[1]?.directory).toBe(join(machine.projectRoot, 'node_modules', LINUX_X64));
    expect(fetcher.asked).toEqual([]);
  });

  it('fetches the pinned version when the installed linux-x64-gnu build is another one', () => {
    const machine = buildMachine([linuxX64('0.52.1')]);
    const fetcher = fakeFetcher();

    const shipped = resolveNativeModule(ZEN, 'x86_64', { ...machine, fetch: fetcher.fetch });

    expect(fetcher.asked).toEqual([`${LINUX_X64}@${PIN}`]);
    expect(manifestIn(shipped[1]).version).toBe(PIN);
  });

  it('fails in one line naming the package, its version and what to do when it cannot be fetched, keeping nothing', () => {
    const machine = buildMachine([DARWIN_ARM64]);

    const message = failureOf(() =>
      resolveNativeModule(ZEN, 'x86_64', { ...machine, fetch: failingFetcher }),
    );
    const retried = fakeFetcher();
    const shipped = resolveNativeModule(ZEN, 'x86_64', { ...machine, fetch: retried.fetch });

    expect(message).toMatch(
      new RegExp(
        `^CreditScreenPipeline: the Lambda functions need ${LINUX_X64}@${PIN}, which this machine did not install, and it could not be fetched \\(npm pack failed: .*ENOTFOUND.*\\): synth again with access to the npm registry, or put the contents of its tarball’s package/ folder \\(npm pack ${LINUX_X64}@${PIN}\\) in `,
      ),
    );
    expect(message).not.toContain('\n');
    // The failed fetch left nothing behind: the next synth fetched again and shipped a whole package.
    expect(retried.asked).toEqual([`${LINUX_X64}@${PIN}`]);
    expect(summary(shipped)[1]).toBe(`${LINUX_X64}@${PIN} from registry`);
  });

  it.each([
    ['another version', linuxX64('0.52.1'), 'is version 0.52.1'],
    [
      'the darwin-arm64 build',
      { ...DARWIN_ARM64, name: LINUX_X64, version: PIN },
      'is built for os ["darwin"] cpu ["arm64"]',
    ],
    [
      'the linux-arm64 build',
      { ...LINUX_ARM64, name: LINUX_X64, version: PIN },
      'cpu ["arm64"] libc ["glibc"]',
    ],
    ['the musl build', { ...linuxX64(), libc: ['musl'] }, 'libc ["musl"]'],
    ['another package', { ...linuxX64(), name: `${ZEN}-wasm32-wasi` }, `is ${ZEN}-wasm32-wasi`],
    ['a package without its binary', { ...linuxX64(), binary: false }, 'holds no .node binary'],
  ])(
    'refuses in one line what the registry gives when it is %s, shipping and caching nothing',
    (_case, answer, problem) => {
      const machine = buildMachine([DARWIN_ARM64]);
      const fetcher = fakeFetcher(answer);

      const message = failureOf(() =>
        resolveNativeModule(ZEN, 'x86_64', { ...machine, fetch: fetcher.fetch }),
      );

      expect(message).toMatch(
        new RegExp(`^CreditScreenPipeline: the package fetched for ${LINUX_X64}@${PIN} `),
      );
      expect(message).toContain(problem);
      expect(message).toContain('not the linux-x64-gnu build the Lambda functions load');
      expect(message).not.toContain('\n');
      expect(readdirSync(machine.cacheRoot)).toEqual([]);
    },
  );

  it('refuses in one line a fetched package whose integrity is not the one package-lock.json records', () => {
    const machine = buildMachine([LINUX_ARM64]);
    const fetcher = fakeFetcher(linuxX64(), 'sha512-c29tZXRoaW5nIGVsc2U=');

    const message = failureOf(() => resolveNativeModule(ZEN, 'x86_64', { ...machine, fetch: fetcher.fetch }));

    expect(message).toBe(
      `CreditScreenPipeline: the package fetched for ${LINUX_X64}@${PIN} is not the one package-lock.json records (integrity sha512-c29tZXRoaW5nIGVsc2U=, expected ${LOCKED_INTEGRITY}): check the registry this machine uses (npm config get registry)`,
    );
    expect(readdirSync(machine.cacheRoot)).toEqual([]);
  });

  it('refuses in one line an engine installed at another version than package.json pins, or a pin that is a range', () => {
    const stale = buildMachine([linuxX64()], '9.9.9');
    const ranged = buildMachine([linuxX64()], `^${PIN}`);

    const staleMessage = failureOf(() => resolveNativeModule(ZEN, 'x86_64', stale));
    const rangedMessage = failureOf(() => resolveNativeModule(ZEN, 'x86_64', ranged));

    expect(staleMessage).toBe(
      `CreditScreenPipeline: package.json pins ${ZEN} 9.9.9 but node_modules has ${PIN}: run npm ci`,
    );
    expect(rangedMessage).toBe(
      `CreditScreenPipeline: package.json must pin ${ZEN} to an exact version (it says ^${PIN}): the functions ship that version's binary`,
    );
    expect(existsSync(stale.cacheRoot) || existsSync(ranged.cacheRoot)).toBe(false);
  });
});
