import { execFile } from 'node:child_process';
import { chmod, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EMULATOR_TOKEN, ServiceEmulator } from '../../emulator/service-emulator.ts';
import { ServiceClient } from '../../service-client/index.ts';
import { utf16be, utf16le, windows1252 } from '../factories/byte-sources.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { type CliResult, caseFolder, expectOneLineRefusal, runInProcess, treeOf } from './harness.ts';

// The hostile-input corpus, part one: every command given what a confused user or an attacker would type, run in
// this process (main(argv)), since each is refused (or answered) before anything starts. Each case asserts the exit
// code, exactly one line on stderr and no stack trace, and that no file appeared or changed but in the folders it
// names. Issue #27's cases first, then others. Runs that start the pipeline are in runs.test.ts; a refusal of every
// option's out-of-range values, made from the option table, in option-values.test.ts.

let fixtures: string;
const fixture = (name: string) => join(fixtures, name);
let emulator: ServiceEmulator;
/** A studio project with one version, to export. */
let project: string;

const withoutMark = (bytes: Buffer) => bytes.subarray(2);

beforeAll(async () => {
  fixtures = await caseFolder('fixtures');
  const list = customerListCsv(distinctDocuments(3, 'hostile corpus'));
  const files: Record<string, string | Buffer> = {
    'lista.csv': list,
    'problems.csv': 'cpf;nome\n519.540.222-12;Ana\n51954022212;Ana de novo\n519.540.222-13;Bia\n',
    'two-document-columns.csv': 'cpf;nome;cpf\n51954022212;Ana;11144477735\n',
    'utf16le-no-mark.csv': withoutMark(utf16le('cpf;nome\r\n519.540.222-12;José\r\n111.444.777-35;Zé\r\n')),
    'utf16be-no-mark.csv': withoutMark(utf16be('cpf;nome\r\n519.540.222-12;José\r\n')),
    'utf32.csv': Buffer.from([0xff, 0xfe, 0, 0, 0x63, 0, 0, 0, 0x70, 0, 0, 0, 0x66, 0, 0, 0, 0x0a, 0, 0, 0]),
    'lista.csv.gz': gzipSync(list),
    'lista.xlsx': Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 6, 0, 8, 0, 0, 0, 0x21, 0]),
    'lista.xls': Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]),
    'lista.pdf': '%PDF-1.7\n%âãÏÓ\n1 0 obj\n',
    'empty.csv': '',
    'header-only.csv': 'cpf;nome\n',
    'not-json.json': 'cpf\n51954022212\n',
    'long-line.csv': `cpf\n${'5'.repeat(2 * 1024 * 1024)}\n`,
    'acentos-1252.csv': windows1252(
      'Código;CPF;Observação\r\n1;519.540.222-12;ação\r\n2;111.444.777-35;pão\r\n',
    ),
  };
  for (const [name, content] of Object.entries(files)) await writeFile(fixture(name), content);
  await promisify(execFile)('mkfifo', [fixture('fifo.csv')]);
  await symlink(fixture('loop-b'), fixture('loop-a'));
  await symlink(fixture('loop-a'), fixture('loop-b'));
  await symlink(fixture('gone.csv'), fixture('dangling.csv'));
  await mkdir(fixture('notes'));
  await writeFile(fixture('notes/notes.txt'), 'the user’s own file');
  // A state directory a live run holds: its lock names this process.
  await mkdir(fixture('locked-state'), { mode: 0o700 });
  await writeFile(fixture('locked-state/.credit-screen-state'), 'state\n');
  await writeFile(fixture('locked-state/lock'), JSON.stringify({ pid: process.pid, children: [] }));

  emulator = await ServiceEmulator.start({ ai: { jobStepMs: 5 } });
  const client = new ServiceClient({ baseUrl: emulator.url, token: DEFAULT_EMULATOR_TOKEN });
  const created = await client.studio.createProject({ artifact_type: 'chart', name: 'Carteira' });
  project = (created.body as { id: string }).id;
  await client.studio.generateAndWait(project, { prompt: 'Barras por faixa de score' });
}, 60_000);

afterAll(async () => {
  await emulator?.close();
});

/** What a case may change besides its own folder: the folders it names (none for a refusal). */
interface Case {
  readonly label: string;
  /** The arguments, given the case's own (empty) folder. */
  readonly args: (folder: string) => string[] | Promise<string[]>;
  readonly code?: number;
  /** The one line on stderr (a refusal), or null for a run that succeeds. */
  readonly refusal: RegExp | null;
  /** Checks of its own, on the result and the case's folder. */
  readonly afterwards?: (result: CliResult, folder: string) => void | Promise<void>;
}

/** Runs a case: in a new folder, with the fixtures compared before and after. */
async function runCase(testCase: Case): Promise<void> {
  const folder = await caseFolder('case');
  const args = await testCase.args(folder);
  const fixturesBefore = await treeOf(fixtures);
  const folderBefore = await treeOf(folder);

  const result = await runInProcess(args, folder);

  if (testCase.refusal === null) {
    // What succeeds may say what it did on stderr (`exported version 1 … to …`), but refuses nothing.
    expect(result.stderr).not.toMatch(/^credit-screen: |^\s+at \S/m);
    expect(result.code, result.stderr).toBe(testCase.code ?? 0);
  } else expectOneLineRefusal(result, testCase.refusal, testCase.code ?? 2);
  expect(result.stderr).not.toContain('starting DynamoDB Local');
  expect(await treeOf(fixtures)).toEqual(fixturesBefore);
  if (testCase.afterwards === undefined) expect(await treeOf(folder)).toEqual(folderBefore);
  await testCase.afterwards?.(result, folder);
}

const modeOf = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

/** Issue #27, as it was filed: each case failed on f34c988. */
const ISSUE_CASES: Case[] = [
  {
    label: '1. screen --concurrency 1e12 (a RangeError once started)',
    args: () => ['screen', fixture('lista.csv'), '--no-state', '--concurrency', '1e12'],
    refusal: /--concurrency must be a whole number, 1–100/,
  },
  {
    label: '1. screen --emulator-rate-limit 0 (a RangeError, though the help said ≥ 0)',
    args: () => ['screen', fixture('lista.csv'), '--no-state', '--emulator-rate-limit', '0'],
    refusal: /--emulator-rate-limit must be at least 0\.01/,
  },
  {
    label: '1. batches --limit 1e12 (an SDK InternalFailure)',
    args: () => ['batches', '--limit', '1e12'],
    refusal: /--limit must be a whole number, 1–1000/,
  },
  {
    label: '1. studio export --out <a folder> (EISDIR)',
    args: (folder) => ['studio', 'export', project, '1', '--out', folder, '--base-url', emulator.url],
    refusal: /--out .*: is a folder; name the file to write/,
  },
  {
    label: '1. studio export --out /missing/f.json (ENOENT)',
    args: () => ['studio', 'export', project, '1', '--out', '/missing/f.json', '--base-url', emulator.url],
    refusal: /--out \/missing\/f\.json: no such folder \/missing/,
  },
  {
    label: "2. screen --base-url 'javascript:alert(1)' --live",
    args: () => ['screen', fixture('lista.csv'), '--no-state', '--base-url', 'javascript:alert(1)', '--live'],
    refusal: /--base-url must be an https:\/\/ URL/,
  },
  {
    label: '3. studio export writes a new file readable by its owner only',
    args: (folder) => [
      'studio',
      'export',
      project,
      '1',
      '--out',
      join(folder, 'v1.json'),
      '--base-url',
      emulator.url,
    ],
    refusal: null,
    afterwards: async (result, folder) => {
      expect(await modeOf(join(folder, 'v1.json'))).toBe('600');
      expect(JSON.parse(await readFile(join(folder, 'v1.json'), 'utf8'))).toMatchObject({ version: 1 });
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^exported version 1 of prj_\w+ to .*v1\.json\n$/);
    },
  },
  {
    label: '3. studio export keeps an existing file (and its mode) instead of replacing it',
    args: async (folder) => {
      await writeFile(join(folder, 'mine.json'), 'mine');
      await chmod(join(folder, 'mine.json'), 0o644);
      return [
        'studio',
        'export',
        project,
        '1',
        '--out',
        join(folder, 'mine.json'),
        '--base-url',
        emulator.url,
      ];
    },
    refusal: /--out .*mine\.json: already exists \(--force replaces it\)/,
    afterwards: async (_result, folder) => {
      expect(await readFile(join(folder, 'mine.json'), 'utf8')).toBe('mine');
      expect(await modeOf(join(folder, 'mine.json'))).toBe('644');
    },
  },
  {
    label: '3. studio export --force replaces a file and makes it private',
    args: async (folder) => {
      await writeFile(join(folder, 'old.json'), 'old');
      await chmod(join(folder, 'old.json'), 0o644);
      return [
        'studio',
        'export',
        project,
        '1',
        '--out',
        join(folder, 'old.json'),
        '--force',
        '--base-url',
        emulator.url,
      ];
    },
    refusal: null,
    afterwards: async (_result, folder) => {
      expect(await readFile(join(folder, 'old.json'), 'utf8')).toContain('"version": 1');
      expect(await modeOf(join(folder, 'old.json'))).toBe('600');
    },
  },
  {
    label: '4. screen --no-state --state X (the later flag won, the list was kept in X)',
    args: (folder) => ['screen', fixture('lista.csv'), '--no-state', '--state', join(folder, 'x')],
    refusal: /--no-state keeps nothing and --state names where to keep it/,
  },
  {
    label: '4. screen --state X --no-state, the other way round',
    args: (folder) => ['screen', fixture('lista.csv'), '--state', join(folder, 'x'), '--no-state'],
    refusal: /--no-state keeps nothing and --state names where to keep it/,
  },
  {
    label: '5. check --state /nonexistent/x (made a state and quoted "reusable 0")',
    args: (folder) => ['check', fixture('lista.csv'), '--state', join(folder, 'nonexistent', 'x')],
    refusal: /--state .*nonexistent\/x: no credit-screen state there/,
  },
  {
    label: '6. check a list with two columns headed for documents',
    args: () => ['check', fixture('two-document-columns.csv')],
    refusal: /2 columns are headed for the same documents: "cpf" \(column 1\), "cpf" \(column 3\)/,
  },
  {
    label: '7. check UTF-16LE without a byte-order mark',
    args: () => ['check', fixture('utf16le-no-mark.csv'), '--json'],
    refusal: null,
    afterwards: (result) => {
      expect(JSON.parse(result.stdout)).toMatchObject({
        encoding: 'utf-16le',
        rows: 2,
        valid: 2,
        invalid: 0,
      });
    },
  },
  {
    label: '7. check UTF-16BE without a byte-order mark',
    args: () => ['check', fixture('utf16be-no-mark.csv'), '--json'],
    refusal: null,
    afterwards: (result) => {
      expect(JSON.parse(result.stdout)).toMatchObject({ encoding: 'utf-16be', rows: 1, valid: 1 });
    },
  },
  {
    label: '7. check UTF-32 (taken for UTF-16)',
    args: () => ['check', fixture('utf32.csv')],
    refusal: /utf32\.csv: this file is UTF-32 \(little-endian\); save it as CSV in UTF-8/,
  },
  {
    label: '7. check a gzip file',
    args: () => ['check', fixture('lista.csv.gz')],
    refusal: /this file is gzip-compressed/,
  },
  {
    label: '7. check an Excel workbook (.xlsx)',
    args: () => ['check', fixture('lista.xlsx')],
    refusal: /this is an Excel workbook \(\.xlsx\)/,
  },
  {
    label: '7. check an old Excel workbook (.xls)',
    args: () => ['check', fixture('lista.xls')],
    refusal: /this is an old Excel workbook \(\.xls\)/,
  },
  {
    label: '7. check a PDF',
    args: () => ['check', fixture('lista.pdf')],
    refusal: /this is a PDF, not a CSV/,
  },
  {
    label: '8. check a FIFO (hung)',
    args: () => ['check', fixture('fifo.csv')],
    refusal: /cannot read .*fifo\.csv: not a regular file/,
  },
  {
    label: '9. screen --emulator-latency 1e12 (became 1 ms)',
    args: () => ['screen', fixture('lista.csv'), '--no-state', '--emulator-latency', '1e12'],
    refusal: /--emulator-latency must be a number, 0–600000 ms/,
  },
  {
    label: '9. screen --stagger 1e12 (became 1 ms)',
    args: () => ['screen', fixture('lista.csv'), fixture('lista.csv'), '--no-state', '--stagger', '1e12'],
    refusal: /--stagger must be a number, 0–86400 s/,
  },
  {
    label: '10. screen --out a folder of the user’s own files (as --out / did)',
    args: () => ['screen', fixture('lista.csv'), '--no-state', '--out', fixture('notes')],
    refusal: /--out .*notes holds "notes\.txt", which is not a credit-screen result/,
  },
  {
    label: '11. check masks the documents of duplicates and invalid rows',
    args: () => ['check', fixture('problems.csv')],
    refusal: null,
    afterwards: (result) => {
      expect(result.stdout).toContain('***.540.222-**');
      expect(result.stdout).toContain('"***.540.222-**"');
      expect(result.stdout).not.toMatch(/519\.?540\.?222-?1[23]/);
    },
  },
  {
    label: '11. check --json masks them too',
    args: () => ['check', fixture('problems.csv'), '--json'],
    refusal: null,
    afterwards: (result) => {
      expect(result.stdout).not.toMatch(/519\.?540\.?222-?1[23]/);
      expect(JSON.parse(result.stdout).rows_detail[1]).toMatchObject({ document: '***.540.222-**' });
    },
  },
  {
    label: '11. check --reveal shows them whole',
    args: () => ['check', fixture('problems.csv'), '--reveal'],
    refusal: null,
    afterwards: (result) => {
      expect(result.stdout).toContain('519.540.222-12');
      expect(result.stdout).toContain('"519.540.222-13"');
    },
  },
  {
    label: '11. studio generate with a blank prompt (its error said twice beside a spinner)',
    args: () => ['studio', 'generate', project, '--prompt', '   ', '--base-url', emulator.url],
    refusal: /--prompt must not be empty/,
  },
  {
    label: '11. a state another run holds: "in use by another credit-screen run"',
    args: () => ['screen', fixture('lista.csv'), '--state', fixture('locked-state')],
    refusal: new RegExp(
      `--state .*locked-state is in use by another credit-screen run \\(pid ${process.pid}\\): try again when it has finished, or name another state directory with --state$`,
    ),
  },
];

/** More of the same, beyond the issue: sizes, encodings, paths, names, values. */
const MORE_CASES: Case[] = [
  {
    label: 'check an empty file',
    args: () => ['check', fixture('empty.csv')],
    refusal: /empty\.csv: the file has no rows/,
  },
  {
    label: 'check a header without rows',
    args: () => ['check', fixture('header-only.csv')],
    refusal: /header-only\.csv: the file has a header row but no data rows/,
  },
  {
    label: 'check a 2 MiB line without a line break',
    args: () => ['check', fixture('long-line.csv')],
    refusal: /long-line\.csv: .*is longer than 1024 KiB/,
  },
  {
    label: 'check --max-rows 2 on a list of 3',
    args: () => ['check', fixture('lista.csv'), '--max-rows', '2'],
    refusal: /lista\.csv: the file has more than 2 data rows, the limit/,
  },
  {
    label: 'check a Windows-1252 list with accents',
    args: () => ['check', fixture('acentos-1252.csv'), '--json'],
    refusal: null,
    afterwards: (result) => {
      expect(JSON.parse(result.stdout)).toMatchObject({ encoding: 'windows-1252', rows: 2, valid: 2 });
    },
  },
  {
    label: 'check a loop of symbolic links',
    args: () => ['check', fixture('loop-a')],
    refusal: /cannot read .*loop-a: too many symbolic links/,
  },
  {
    label: 'screen a loop of symbolic links',
    args: () => ['screen', fixture('loop-a'), '--no-state'],
    refusal: /cannot read .*loop-a: too many symbolic links/,
  },
  {
    label: 'screen a dangling symbolic link',
    args: () => ['screen', fixture('dangling.csv'), '--no-state'],
    refusal: /cannot read .*dangling\.csv: no such file/,
  },
  {
    label: 'check /dev/null, a device',
    args: () => ['check', '/dev/null'],
    refusal: /cannot read \/dev\/null: not a regular file/,
  },
  {
    label: 'screen /dev/null, a device',
    args: () => ['screen', '/dev/null', '--no-state'],
    refusal: /cannot read \/dev\/null: not a regular file/,
  },
  {
    label: 'screen --out "" (the current folder)',
    args: () => ['screen', fixture('lista.csv'), '--no-state', '--out', ''],
    refusal: /--out must not be empty/,
  },
  {
    label: 'screen --state ""',
    args: () => ['screen', fixture('lista.csv'), '--state', ''],
    refusal: /--state must not be empty/,
  },
  {
    label: 'screen --fresh --no-state',
    args: () => ['screen', fixture('lista.csv'), '--fresh', '--no-state'],
    refusal: /--fresh empties a state directory, and --no-state has none/,
  },
  {
    label: 'screen --live with emulator options',
    args: () => [
      'screen',
      fixture('lista.csv'),
      '--no-state',
      '--live',
      '--base-url',
      'https://gateway.invalid',
      '--emulator-error-rate',
      '0.5',
    ],
    refusal: /--emulator-error-rate sets the emulator, and --live calls a real bureau/,
  },
  {
    label: 'screen --base-url on plain http to another machine (the token in clear)',
    args: () => [
      'screen',
      fixture('lista.csv'),
      '--no-state',
      '--base-url',
      'http://gateway.example.com',
      '--live',
    ],
    refusal: /--base-url must be an https:\/\/ URL/,
  },
  {
    label: 'ai status --base-url with a password in it',
    args: () => ['ai', 'status', '--base-url', 'https://user:secret@gateway.example.com'],
    refusal: /--base-url must not hold a user name or password/,
  },
  {
    label: 'screen --max-charges -1',
    args: () => ['screen', fixture('lista.csv'), '--no-state', '--max-charges', '-1'],
    refusal: /--max-charges must be a whole number, 0–10000000 queries/,
  },
  {
    label: 'screen --rate-limit 0x10 (hexadecimal)',
    args: () => ['screen', fixture('lista.csv'), '--no-state', '--rate-limit', '0x10'],
    refusal: /--rate-limit must be at least 0\.01/,
  },
  {
    label: 'screen --concurrency with a 1,000-digit value, echoed cut short',
    args: () => ['screen', fixture('lista.csv'), '--no-state', '--concurrency', '9'.repeat(1000)],
    refusal: /--concurrency must be a whole number/,
    afterwards: (result) => {
      expect(result.stderr.length).toBeLessThan(300);
    },
  },
  {
    label: 'rescreen --name with a line break and an escape sequence',
    args: () => ['rescreen', fixture('lista.csv'), '--no-state', '--name', 'a\nb\u001b[2J'],
    refusal: /cannot name a portfolio/,
    afterwards: (result) => {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape looked for
      expect(result.stderr).not.toMatch(/\u001b/);
    },
  },
  {
    label: 'check --json --show 5',
    args: () => ['check', fixture('lista.csv'), '--json', '--show', '5'],
    refusal: /--show is for the text report; --json lists every row/,
  },
  {
    label: 'check --state on a folder of the user’s own files, which it leaves alone',
    args: () => ['check', fixture('lista.csv'), '--state', fixture('notes')],
    refusal: /--state .*notes is not a credit-screen state directory/,
  },
  {
    label: 'check --state and --stack together',
    args: () => ['check', fixture('lista.csv'), '--state', fixture('notes'), '--stack', 'prod'],
    refusal: /--stack and --state name two different pipelines/,
  },
  {
    label: 'batches where nothing was ever screened makes no state',
    args: () => ['batches'],
    refusal: /--state \.credit-screen: no credit-screen state there/,
  },
  {
    label: 'status of a batch in a state that does not exist',
    args: (folder) => ['status', 'ffffffffffffffffffffffff', '--state', join(folder, 'typo')],
    refusal: /--state .*typo: no credit-screen state there/,
  },
  {
    label: 'cancel --no-wait on the local state',
    args: () => ['cancel', 'ffffffffffffffffffffffff', '--no-wait'],
    refusal: /--no-wait is for a deployed stack/,
  },
  {
    label: 'redrive --epoch with --stack',
    args: () => ['redrive', 'ffffffffffffffffffffffff', '--stack', 'prod', '--epoch', '2'],
    refusal: /--epoch is for the local emulator/,
  },
  {
    label: 'submit --stack with a name no stack can have',
    args: () => ['submit', fixture('lista.csv'), '--stack', 'prod; rm -rf /'],
    refusal: /--stack must be a CloudFormation stack name/,
  },
  {
    label: 'spend --month 2026-13',
    args: () => ['spend', '--month', '2026-13'],
    refusal: /--month must be YYYY-MM/,
  },
  {
    label: 'normalize --fetched-at yesterday',
    args: () => ['normalize', fixture('not-json.json'), '--bureau', 'a', '--fetched-at', 'yesterday'],
    refusal: /--fetched-at must be an ISO 8601 date or time/,
  },
  {
    label: 'emulator --port 1.5 (was accepted)',
    args: () => ['emulator', '--port', '1.5'],
    refusal: /--port must be a whole number, 0–65535/,
  },
  {
    label: 'studio export of a version past any whole number',
    args: () => ['studio', 'export', project, '99999999999999999999', '--base-url', emulator.url],
    refusal: /'99999999999999999999' is invalid for argument 'version'/,
  },
  {
    label: 'studio export --force without --out',
    args: () => ['studio', 'export', project, '1', '--force', '--base-url', emulator.url],
    refusal: /--force replaces the --out file: give --out/,
  },
  {
    label: 'studio generate --no-wait --wait-timeout 5',
    args: () => ['studio', 'generate', project, '--prompt', 'x', '--no-wait', '--wait-timeout', '5'],
    refusal: /--wait-timeout is for waiting, and --no-wait does not wait/,
  },
  {
    label: 'studio --timeout 0 (a request that may take no time)',
    args: () => ['studio', 'catalog', '--timeout', '0', '--base-url', emulator.url],
    refusal: /--timeout must be a number, above 0, at most 3600 s/,
  },
  {
    label: 'an option mistyped',
    args: () => ['screen', fixture('lista.csv'), '--concurency', '2'],
    refusal: /unknown option '--concurency'/,
  },
  {
    label: 'screen with no file',
    args: () => ['screen', '--no-state'],
    refusal: /missing required argument 'files'/,
  },
  {
    label: 'report of a folder with a manifest that is not one',
    args: async (folder) => {
      await writeFile(join(folder, 'manifest.json'), '{"hello":"world"}');
      return ['report', folder];
    },
    refusal: /manifest\.json: not a batch manifest/,
    afterwards: () => undefined,
  },
];

describe('the hostile-input corpus, in process: issue #27', () => {
  it.each(ISSUE_CASES.map((testCase) => [testCase.label, testCase] as const))(
    '%s',
    async (_label, testCase) => runCase(testCase),
  );
});

describe('the hostile-input corpus, in process: more', () => {
  it.each(MORE_CASES.map((testCase) => [testCase.label, testCase] as const))('%s', async (_label, testCase) =>
    runCase(testCase),
  );
});
