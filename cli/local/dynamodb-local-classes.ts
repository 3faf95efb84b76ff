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
 * missing `jar` tool, or anything else that fails here, only means starting the way the jar is meant to (`-jar`).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
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
  /** Keeps the archive this run wrote, once Java has exited by itself (a killed run leaves a partial file). */
  afterExit(exitedByItself: boolean): void;
}

/** What the copied jar needs to be started without its manifest. */
interface PreparedJar {
  readonly mainClass: string;
  readonly classPath: readonly string[];
}

const ARCHIVE = 'classes.jsa';
const PREPARED = 'launch.json';
// Java's own messages about the archive (classes it cannot share, an archive of another Java build that it skips)
// would land in DynamoDB Local's output, which is shown when it fails to start.
const QUIET = '-Xlog:cds*=off';
const noArchive = { writesArchive: false, afterExit: () => {} };

/** Where the archive is kept, and for which Java. */
export interface ClassArchiveOptions {
  /** The folder that holds one cache folder per release and Java build. */
  readonly cacheRoot: string;
  /** What `java -version` printed: an archive only fits the exact JVM that wrote it. */
  readonly javaVersion: string;
  /** The JDK's `jar` tool. @default 'jar' (from PATH) */
  readonly jarTool?: string;
}

/**
 * The way to start the DynamoDB Local release in `home`: with its class archive when there is one, writing one
 * when there is none, and with `-jar` when the jar cannot be prepared for an archive.
 */
export function dynamoDbLocalLaunch(home: string, options: ClassArchiveOptions): DynamoDbLocalLaunch {
  const { cacheRoot, javaVersion, jarTool = 'jar' } = options;
  const plain = { args: ['-jar', join(home, 'DynamoDBLocal.jar')], ...noArchive };
  // One folder per release and Java build: an archive only fits the exact JVM that wrote it.
  const key = createHash('sha256').update(`${home}\n${javaVersion}`).digest('hex').slice(0, 16);
  const folder = join(cacheRoot, `dynamodb-local-${key}`);
  const prepared = readPrepared(folder) ?? prepareJar(home, folder, jarTool);
  if (prepared === null) return plain;
  const start = ['-cp', prepared.classPath.join(':'), prepared.mainClass];
  const archive = join(folder, ARCHIVE);
  if (existsSync(archive))
    return { args: [`-XX:SharedArchiveFile=${archive}`, QUIET, ...start], ...noArchive };
  const written = join(folder, `${ARCHIVE}.${process.pid}.${Date.now()}.partial`);
  return {
    args: [`-XX:ArchiveClassesAtExit=${written}`, QUIET, ...start],
    writesArchive: true,
    afterExit(exitedByItself) {
      try {
        if (exitedByItself && statSync(written).size > 0) renameSync(written, archive);
        else rmSync(written, { force: true });
      } catch {
        // Another run's archive, or none: the next start writes one again.
        rmSync(written, { force: true });
      }
    },
  };
}

function readPrepared(folder: string): PreparedJar | null {
  try {
    return JSON.parse(readFileSync(join(folder, PREPARED), 'utf8')) as PreparedJar;
  } catch {
    return null;
  }
}

/**
 * Copies DynamoDBLocal.jar without its manifest into `folder`, and records its main class and class path (the
 * manifest's jars that exist, in its order). Built beside `folder` and renamed into place, so that two first runs at
 * once never see half of it. Null when it cannot be done (no `jar` tool, an unexpected manifest).
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
    const jar = join(folder, 'DynamoDBLocal.jar');
    if (
      !runJar(
        jarTool,
        ['--create', '--no-manifest', '--file', join(building, 'DynamoDBLocal.jar'), '-C', classes, '.'],
        building,
      )
    )
      return null;
    rmSync(classes, { recursive: true });
    const mainClass = manifest.get('Main-Class');
    if (mainClass === undefined) return null;
    const libraries = (manifest.get('Class-Path') ?? '')
      .split(/\s+/)
      .filter((entry) => entry.endsWith('.jar') && existsSync(join(home, entry)))
      .map((entry) => join(home, entry));
    const prepared: PreparedJar = { mainClass, classPath: [jar, ...libraries] };
    writeFileSync(join(building, PREPARED), JSON.stringify(prepared));
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
