/**
 * What `npm test` needs besides node_modules, found or installed before the suite runs (npm's `pretest`): a JVM for
 * DynamoDB Local (the pipeline's integration tests) and Chromium for the browser tests (playwright-core drives it;
 * it never downloads a browser of its own). On Debian, as root, the missing packages are installed and one line says
 * which; anywhere else, one line names what is missing and how to get it, and the tests do not start.
 * Plain JavaScript run by node: it must work before anything else is known to.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';

/** A browser named in CHROMIUM_PATH is the user's: it is looked for there, never installed in its place. */
const NAMED_CHROMIUM = process.env.CHROMIUM_PATH || null;
const CHROMIUM = NAMED_CHROMIUM ?? '/usr/bin/chromium';

/** Each thing the tests need: whether it is here, and the Debian package that brings it. */
const NEEDS = [
  {
    what: 'a Java runtime (java on the PATH, for DynamoDB Local)',
    here: () => spawnSync('java', ['-version'], { stdio: 'ignore' }).status === 0,
    // Debian's default JRE (17 on Debian 12, 21 on 13): DynamoDB Local needs 17 or newer.
    debianPackage: 'default-jre-headless',
  },
  {
    what: `Chromium at ${CHROMIUM} (for the browser tests; CHROMIUM_PATH names another)`,
    here: () => {
      try {
        accessSync(CHROMIUM, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
    debianPackage: NAMED_CHROMIUM === null ? 'chromium' : null,
  },
];

function fail(line) {
  process.stderr.write(`npm test: ${line}\n`);
  process.exit(1);
}

function installWithApt(packages) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const run = (args) =>
    spawnSync('apt-get', args, { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const update = run(['update', '-qq']);
  const install =
    update.status === 0 ? run(['install', '-y', '-qq', '--no-install-recommends', ...packages]) : update;
  if (install.status !== 0) {
    const reason = (install.stderr ?? '').trim().split('\n').pop() || `exit ${install.status}`;
    fail(
      `could not install ${packages.join(', ')} with apt-get (${reason}); install them and run npm test again`,
    );
  }
}

const missing = NEEDS.filter((need) => !need.here());
if (missing.length > 0) {
  const named = missing.find((need) => need.debianPackage === null);
  if (named !== undefined) fail(`missing ${named.what}: put it there, or unset CHROMIUM_PATH`);
  const packages = missing.map((need) => need.debianPackage);
  if (!existsSync('/usr/bin/apt-get') || process.getuid?.() !== 0)
    fail(
      `missing ${missing.map((need) => need.what).join(' and ')}: install it (on Debian, as root: apt-get install ${packages.join(' ')}), then run npm test again`,
    );
  installWithApt(packages);
  const still = missing.filter((need) => !need.here());
  if (still.length > 0)
    fail(
      `installed ${packages.join(', ')}, yet ${still.map((need) => need.what).join(' and ')} is still missing`,
    );
  process.stderr.write(`npm test: installed ${packages.join(', ')} (Debian packages the tests need)\n`);
}
