import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Which build of a native module a function ships: the one its Lambda architecture loads, at the version the
 * project pins, whatever machine synthesizes. npm installs only the build of the machine it runs on (and the
 * project's `overrides` hold the other platforms at older versions), so copying "what is installed" would ship a
 * macOS or arm64 binary from a laptop, and the first decision in AWS would fail to load the engine.
 */

/** The processor a function runs on, as the contract names it. */
export type LambdaArchitecture = 'x86_64' | 'arm64';

/** A Lambda architecture's build: napi-rs's package suffix and the `os`/`cpu`/`libc` its package.json declares. */
interface LambdaPlatform {
  readonly suffix: string;
  readonly os: string;
  readonly cpu: string;
  // Lambda's Node runtimes run on Amazon Linux 2023, a glibc system: a musl build would not load.
  readonly libc: string;
}

const LAMBDA_PLATFORMS: Readonly<Record<LambdaArchitecture, LambdaPlatform>> = {
  x86_64: { suffix: 'linux-x64-gnu', os: 'linux', cpu: 'x64', libc: 'glibc' },
  arm64: { suffix: 'linux-arm64-gnu', os: 'linux', cpu: 'arm64', libc: 'glibc' },
};

/** A package copied beside a bundle, and where its files are on this machine. */
export interface ShippedPackage {
  readonly name: string;
  readonly version: string;
  readonly directory: string;
  /** The project's install, the fetch cache of an earlier synth, or the registry during this one. */
  readonly source: 'node_modules' | 'cache' | 'registry';
}

/**
 * Fetches the package `name` at exactly `version` into `destination`, an empty folder (its package.json at the top),
 * and returns the integrity of what it fetched (`sha512-…`, as package-lock.json writes it). Throws when it cannot.
 */
export type PackageFetcher = (
  name: string,
  version: string,
  destination: string,
) => { readonly integrity: string };

/** Where the packages a function ships come from. */
export interface NativeModuleSources {
  /** The folder of the project's package.json (the pins), package-lock.json (integrities) and node_modules. */
  readonly projectRoot: string;
  /**
   * Where fetched packages are kept between syntheses (`npm ci` clears it with node_modules).
   * @default `<projectRoot>/node_modules/.cache/credit-screen/native-modules`
   */
  readonly cacheRoot?: string;
  /** @default `npm pack` from the registry this machine's npm uses, extracted with `tar` */
  readonly fetch?: PackageFetcher;
}

interface Manifest {
  readonly name?: unknown;
  readonly version?: unknown;
  readonly os?: unknown;
  readonly cpu?: unknown;
  readonly libc?: unknown;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
}

class NativeModuleError extends Error {
  override readonly name = 'NativeModuleError';
  constructor(message: string) {
    super(`CreditScreenPipeline: ${oneLine(message)}`);
  }
}

/** Text on one line: synth says what failed in one line, never a child's whole output. */
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

function readManifest(directory: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

const listed = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);

/** Why the package in `directory` is not `name@version` built for `platform`, or undefined when it is. */
function platformProblem(
  directory: string,
  name: string,
  version: string,
  platform: LambdaPlatform,
): string | undefined {
  const manifest = readManifest(directory);
  if (manifest === undefined) return 'has no readable package.json';
  if (manifest.name !== name) return `is ${String(manifest.name)}`;
  if (manifest.version !== version) return `is version ${String(manifest.version)}`;
  const { os, cpu, libc } = manifest;
  const libcOk = libc === undefined || listed(libc).includes(platform.libc);
  if (!listed(os).includes(platform.os) || !listed(cpu).includes(platform.cpu) || !libcOk)
    return `is built for os ${JSON.stringify(os)} cpu ${JSON.stringify(cpu)}${libc === undefined ? '' : ` libc ${JSON.stringify(libc)}`}`;
  const files = readdirSync(directory, { recursive: true, encoding: 'utf8' });
  if (!files.some((file) => file.endsWith('.node'))) return 'holds no .node binary';
  return undefined;
}

/** The integrity package-lock.json records for `name@version`, when the lock lists that very version. */
function lockedIntegrity(projectRoot: string, name: string, version: string): string | undefined {
  let lock: { packages?: Record<string, { version?: string; integrity?: string }> };
  try {
    lock = JSON.parse(readFileSync(join(projectRoot, 'package-lock.json'), 'utf8'));
  } catch {
    return undefined;
  }
  const entry = lock.packages?.[`node_modules/${name}`];
  return entry?.version === version ? entry.integrity : undefined;
}

/** The module's installed loader, at the version package.json pins (the JS the tests ran; it is the same everywhere). */
function installedModule(projectRoot: string, module: string): ShippedPackage & { manifest: Manifest } {
  const project = readManifest(projectRoot);
  const pin = project?.dependencies?.[module];
  if (pin === undefined) throw new NativeModuleError(`package.json does not depend on ${module}`);
  if (!EXACT_VERSION.test(pin))
    throw new NativeModuleError(
      `package.json must pin ${module} to an exact version (it says ${pin}): the functions ship that version's binary`,
    );
  const directory = join(projectRoot, 'node_modules', module);
  const manifest = readManifest(directory);
  if (manifest?.version !== pin)
    throw new NativeModuleError(
      `package.json pins ${module} ${pin} but node_modules has ${manifest === undefined ? 'none' : String(manifest.version)}: run npm ci`,
    );
  return { name: module, version: pin, directory, source: 'node_modules', manifest };
}

/** The build of `module` for `platform`, as the module's optionalDependencies name it, at the version they say. */
function platformPackageOf(
  module: ShippedPackage & { manifest: Manifest },
  platform: LambdaPlatform,
  architecture: LambdaArchitecture,
): { readonly name: string; readonly version: string } {
  const optional = module.manifest.optionalDependencies ?? {};
  const name = Object.keys(optional).find((candidate) => candidate.endsWith(`-${platform.suffix}`));
  if (name === undefined)
    throw new NativeModuleError(
      `${module.name}@${module.version} has no ${platform.suffix} build among its optionalDependencies, which ${architecture} Lambda needs`,
    );
  const version = optional[name] ?? '';
  if (!EXACT_VERSION.test(version))
    throw new NativeModuleError(
      `${module.name}@${module.version} names ${name} ${version}, not an exact version to ship`,
    );
  return { name, version };
}

/** The line of an npm failure that says what went wrong (not its code, syscall, path or where the log is). */
function npmReason(error: unknown): string {
  const stderr = String((error as { stderr?: unknown }).stderr ?? '');
  const said = stderr
    .split('\n')
    .map((line) => line.trim())
    .find(
      (line) =>
        /^npm error /.test(line) && !/^npm error (code|syscall|errno|path|A complete log) /.test(line),
    );
  return said?.replace(/^npm error /, '') ?? (error as Error).message.split('\n')[0] ?? String(error);
}

/**
 * Fetches a package from the npm registry this machine's npm uses (its .npmrc), by name and exact version, without
 * installing anything into the project: `npm pack` downloads the tarball, `tar` extracts it into `destination`.
 */
const npmPackFetcher: PackageFetcher = (name, version, destination) => {
  const work = mkdtempSync(join(tmpdir(), 'credit-screen-pack-'));
  try {
    let output: string;
    try {
      output = execFileSync(
        'npm',
        ['pack', `${name}@${version}`, '--pack-destination', work, '--json', '--ignore-scripts'],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 },
      );
    } catch (error) {
      throw new Error(`npm pack failed: ${npmReason(error)}`);
    }
    const [packed] = JSON.parse(output) as { filename?: string }[];
    if (packed?.filename === undefined) throw new Error('npm pack named no tarball');
    const tarball = join(work, packed.filename);
    // npm tarballs hold one top folder (usually package/): its contents are the package.
    execFileSync('tar', ['-xzf', tarball, '-C', destination, '--strip-components=1'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return { integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}` };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
};

/** Fetches `name@version` into the cache, checked before it is kept; one line naming it and what to do if not. */
function fetchIntoCache(
  wanted: { readonly name: string; readonly version: string },
  platform: LambdaPlatform,
  sources: NativeModuleSources,
  cacheRoot: string,
  cached: string,
): ShippedPackage {
  const { name, version } = wanted;
  const spec = `${name}@${version}`;
  mkdirSync(cacheRoot, { recursive: true });
  // Fetched beside the cache entry and renamed into place: an interrupted fetch never leaves a partial package.
  const staging = mkdtempSync(join(cacheRoot, '.fetch-'));
  try {
    let integrity: string;
    try {
      ({ integrity } = (sources.fetch ?? npmPackFetcher)(name, version, staging));
    } catch (error) {
      throw new NativeModuleError(
        `the Lambda functions need ${spec}, which this machine did not install, and it could not be fetched (${oneLine((error as Error).message).slice(0, 300)}): synth again with access to the npm registry, or put the contents of its tarball’s package/ folder (npm pack ${spec}) in ${cached}`,
      );
    }
    const problem = platformProblem(staging, name, version, platform);
    if (problem !== undefined)
      throw new NativeModuleError(
        `the package fetched for ${spec} ${problem}, not the ${platform.suffix} build the Lambda functions load: check the registry this machine uses (npm config get registry)`,
      );
    const locked = lockedIntegrity(sources.projectRoot, name, version);
    if (locked !== undefined && integrity !== locked)
      throw new NativeModuleError(
        `the package fetched for ${spec} is not the one package-lock.json records (integrity ${integrity}, expected ${locked}): check the registry this machine uses (npm config get registry)`,
      );
    try {
      renameSync(staging, cached);
    } catch (error) {
      // Another synth cached it meanwhile: theirs passed the same checks.
      if (!existsSync(join(cached, 'package.json'))) throw error;
    }
    return { name, version, directory: cached, source: 'registry' };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * The packages a function that loads `module` on `architecture` ships beside its bundle: the module itself (its
 * installed JS, at the version package.json pins) and exactly one build of it, the one that architecture's Lambda
 * loads (for x86_64, the `linux-x64-gnu` package its optionalDependencies name), at the version they name. That build
 * comes from node_modules when npm installed it there at that version (x86_64 Linux, as in CI), else from the cache
 * of an earlier synth, else from the registry by `sources.fetch`; whatever its source, its package.json must declare
 * that name, version, os and cpu and it must hold a `.node` binary, and a fetched one must match the integrity
 * package-lock.json records. Anything else throws one line naming the package and what to do.
 */
export function resolveNativeModule(
  module: string,
  architecture: LambdaArchitecture,
  sources: NativeModuleSources,
): readonly [ShippedPackage, ShippedPackage] {
  const platform = LAMBDA_PLATFORMS[architecture];
  const installed = installedModule(sources.projectRoot, module);
  const { manifest, ...loader } = installed;
  const wanted = platformPackageOf(installed, platform, architecture);
  const { name, version } = wanted;

  const fromNodeModules = join(sources.projectRoot, 'node_modules', name);
  if (platformProblem(fromNodeModules, name, version, platform) === undefined)
    return [loader, { name, version, directory: fromNodeModules, source: 'node_modules' }];

  const cacheRoot =
    sources.cacheRoot ??
    join(sources.projectRoot, 'node_modules', '.cache', 'credit-screen', 'native-modules');
  const cached = join(cacheRoot, `${name.replace('/', '+')}@${version}`);
  if (platformProblem(cached, name, version, platform) === undefined)
    return [loader, { name, version, directory: cached, source: 'cache' }];
  // A cache entry that fails the checks (edited, or half removed) is fetched again rather than shipped.
  rmSync(cached, { recursive: true, force: true });
  return [loader, fetchIntoCache(wanted, platform, sources, cacheRoot, cached)];
}
