/**
 * Class-data sharing for DynamoDB Local: Java keeps the classes a run loaded in an archive and maps it at the next
 * start instead of loading and verifying them again. Measured on 2 cores: a start (to the first answer) went from
 * about 3.2 to 1.6 CPU-seconds, and 3.0 to 1.5 s of wall time (docs/development.md). Every local command on a state
 * folder starts DynamoDB Local, so that is time a user waits on each one.
 *
 * Java refuses an archive when the class path holds a directory with files in it, and DynamoDBLocal.jar's manifest
 * puts its own folder (`.`) on the class path. So the jar is copied once, without its manifest, into a cache folder
 * (with the JDK's `jar` tool), and started by its main class with the manifest's jars named one by one. The first
 * run that finds no archive writes one when it exits (`-XX:ArchiveClassesAtExit`); the runs after it use it. A
 * missing `jar` tool, a cache that does not hold together, or a Java that refused to start this way (see
 * {@link DynamoDbLocalLaunch.refused}) only means starting the way the jar is meant to (`-jar`).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

/** How Java is told to start DynamoDB Local, and what to do once it has exited. */
export interface DynamoDbLocalLaunch {
  /** The arguments after the JVM options: the class path and main class, or `-jar` and the jar. */
  readonly args: readonly string[];
  /** True when this run writes the archive as it exits: its stop must give it the time to (a few seconds). */
  readonly writesArchive: boolean;
  /** True when Java starts from the copied jar: {@link refused} then says it could not. */
  readonly fromCache: boolean;
  /** Keeps the archive this run wrote when Java exited cleanly (0, or 143 after SIGTERM); drops it otherwise. */
  afterExit(code: number | null): void;
  /** Java exited before it answered: the cache is not used again (for this release, Java and options). */
  refused(): void;
}

/** What the copied jar needs to be started without its manifest. */
interface PreparedJar {
  readonly mainClass: string;
  readonly classPath: readonly string[];
}

const ARCHIVE = 'classes.jsa';
const PREPARED = 'launch.json';
const REFUSED = 'refused';
const WRITER_LOCK = `${ARCHIVE}.lock`;
/** A partial archive, a half-built folder or a writer's lock this old was left by a run that was killed. */
const STALE_MS = 10 * 60_000;
// Java's own messages about the archive (classes it cannot share, an archive of another Java build that it skips)
// would land in DynamoDB Local's output, which is shown when it fails to start.
const QUIET = '-Xlog:cds*=off';
const nothingToDo = { writesArchive: false, afterExit: () => {} };

/** DynamoDB Local started the way its jar is meant to, without the class cache. */
export function jarLaunch(home: string): DynamoDbLocalLaunch {
  return {
    args: ['-jar', join(home, 'DynamoDBLocal.jar')],
    fromCache: false,
    refused: () => {},
    ...nothingToDo,
  };
}

/** Where the archive is kept, and for which Java. */
export interface ClassArchiveOptions {
  /** The folder that holds one cache folder per release, Java build and Java options. */
  readonly cacheRoot: string;
  /** What `java -version` printed: an archive only fits the exact JVM that wrote it. */
  readonly javaVersion: string;
  /** The JVM options the runs start with: Java refuses an archive written under others (its GC, for one). */
  readonly javaOptions: readonly string[];
  /** The JDK's `jar` tool. @default 'jar' (from PATH) */
  readonly jarTool?: string;
}

/**
 * The way to start the DynamoDB Local release in `home`: with its class archive when there is one, writing one
 * when there is none (one run at a time), and with `-jar` when the jar cannot be prepared or Java refused it.
 */
export function dynamoDbLocalLaunch(home: string, options: ClassArchiveOptions): DynamoDbLocalLaunch {
  const { cacheRoot, javaVersion, javaOptions, jarTool = 'jar' } = options;
  const plain = jarLaunch(home);
  const key = createHash('sha256')
    .update([home, javaVersion, ...javaOptions].join('\n'))
    .digest('hex')
    .slice(0, 16);
  const folder = join(cacheRoot, `dynamodb-local-${key}`);
  removeStale(cacheRoot, folder);
  if (existsSync(join(folder, REFUSED))) return plain;
  const prepared = readPrepared(folder) ?? prepareJar(home, folder, jarTool);
  if (prepared === null) return plain;
  const refused = () => markRefused(folder);
  const start = ['-cp', prepared.classPath.join(':'), prepared.mainClass];
  const archive = join(folder, ARCHIVE);
  if (existsSync(archive))
    return {
      args: [`-XX:SharedArchiveFile=${archive}`, QUIET, ...start],
      fromCache: true,
      refused,
      ...nothingToDo,
    };
  // Another run is writing the archive: this one starts without, rather than write a second one.
  if (!takeWriterLock(folder)) return { args: [QUIET, ...start], fromCache: true, refused, ...nothingToDo };
  const written = join(folder, `${ARCHIVE}.${process.pid}.${Date.now()}.partial`);
  return {
    args: [`-XX:ArchiveClassesAtExit=${written}`, QUIET, ...start],
    writesArchive: true,
    fromCache: true,
    refused,
    afterExit(code) {
      try {
        if ((code === 0 || code === 143) && statSync(written).size > 0) renameSync(written, archive);
      } catch {
        // None was written: the next start writes one again.
      } finally {
        rmSync(written, { force: true });
        rmSync(join(folder, WRITER_LOCK), { force: true });
      }
    },
  };
}

/** The prepared jar of `folder`, when its record holds together and everything it names is there. */
function readPrepared(folder: string): PreparedJar | null {
  try {
    const record = JSON.parse(readFileSync(join(folder, PREPARED), 'utf8')) as Partial<PreparedJar>;
    const { mainClass, classPath } = record;
    if (typeof mainClass !== 'string' || !Array.isArray(classPath) || classPath.length === 0) return null;
    if (!classPath.every((entry) => typeof entry === 'string' && existsSync(entry))) return null;
    return { mainClass, classPath };
  } catch {
    return null;
  }
}

/**
 * Copies DynamoDBLocal.jar without its manifest into `folder`, and records its main class and class path (the
 * manifest's jars that exist, in its order). Built beside `folder` and renamed into place, so that two first runs at
 * once never see half of it; a folder whose record does not hold together is replaced. Null when it cannot be done
 * (no `jar` tool, an unexpected manifest).
 */
function prepareJar(home: string, folder: string, jarTool: string): PreparedJar | null {
  let building: string | null = null;
  try {
    mkdirSync(join(folder, '..'), { recursive: true });
    building = mkdtempSync(`${folder}.building-`);
    const classes = join(building, 'classes');
    mkdirSync(classes);
    if (!runJar(jarTool, ['--extract', '--file', join(home, 'DynamoDBLocal.jar')], classes)) return null;
    const manifest = parseManifest(readFileSync(join(classes, 'META-INF', 'MANIFEST.MF'), 'utf8'));
    rmSync(join(classes, 'META-INF', 'MANIFEST.MF'));
    const copied = [
      '--create',
      '--no-manifest',
      '--file',
      join(building, 'DynamoDBLocal.jar'),
      '-C',
      classes,
      '.',
    ];
    if (!runJar(jarTool, copied, building)) return null;
    rmSync(classes, { recursive: true });
    const mainClass = manifest.get('Main-Class');
    if (mainClass === undefined) return null;
    const libraries = (manifest.get('Class-Path') ?? '')
      .split(/\s+/)
      .filter((entry) => entry.endsWith('.jar') && existsSync(join(home, entry)))
      .map((entry) => join(home, entry));
    const prepared: PreparedJar = { mainClass, classPath: [join(folder, 'DynamoDBLocal.jar'), ...libraries] };
    writeFileSync(join(building, PREPARED), JSON.stringify(prepared));
    // A folder left broken (its jar deleted, its record damaged) gives way; a sound one another run made stays.
    if (readPrepared(folder) === null) rmSync(folder, { recursive: true, force: true });
    renameSync(building, folder);
    building = null;
    return prepared;
  } catch {
    // Prepared meanwhile by another run, or not possible here.
    return readPrepared(folder);
  } finally {
    if (building !== null) rmSync(building, { recursive: true, force: true });
  }
}

function runJar(jarTool: string, args: readonly string[], cwd: string): boolean {
  const run = spawnSync(jarTool, args, { cwd, stdio: 'ignore' });
  return !run.error && run.status === 0;
}

/** Takes the right to write the archive; false when another run holds it (a lock older than {@link STALE_MS} is not). */
function takeWriterLock(folder: string): boolean {
  try {
    closeSync(openSync(join(folder, WRITER_LOCK), 'wx'));
    return true;
  } catch {
    return false;
  }
}

/** Leaves a mark that Java refused the copied jar here: the cache is kept out of the way, not tried again. */
function markRefused(folder: string): void {
  try {
    writeFileSync(
      join(folder, REFUSED),
      'Java exited before DynamoDB Local answered when started from this cache\n',
    );
  } catch {
    // The next start tries the cache again and, refused again, starts with -jar again.
  }
}

/** Removes what killed runs left: partial archives, writers' locks and half-built folders older than {@link STALE_MS}. */
function removeStale(cacheRoot: string, folder: string): void {
  const stale = (path: string) => {
    try {
      return Date.now() - statSync(path).mtimeMs > STALE_MS;
    } catch {
      return false;
    }
  };
  const inFolder = (names: readonly string[], matches: (name: string) => boolean, base: string) => {
    for (const name of names.filter(matches)) {
      const path = join(base, name);
      if (stale(path)) rmSync(path, { recursive: true, force: true });
    }
  };
  try {
    const prefix = `${folder.slice(cacheRoot.length + 1)}.building-`;
    inFolder(readdirSync(cacheRoot), (name) => name.startsWith(prefix), cacheRoot);
    inFolder(readdirSync(folder), (name) => name.endsWith('.partial') || name === WRITER_LOCK, folder);
  } catch {
    // No cache yet.
  }
}

/** A JAR manifest's main section: `Name: value` lines, a value continued on lines that start with one space. */
function parseManifest(text: string): Map<string, string> {
  const attributes = new Map<string, string>();
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n /g, '').split('\n');
  for (const line of lines) {
    if (line === '') break;
    const colon = line.indexOf(': ');
    if (colon > 0) attributes.set(line.slice(0, colon), line.slice(colon + 2));
  }
  return attributes;
}
