import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  type BatchResultFiles,
  type ReportManifest,
  renderReportFromResults,
} from '../../src/application/batch-report/index.ts';
import { resultKeys } from '../../src/contract/index.ts';
import { ResultsFileError } from '../../src/domain/summary/summary-csv-reader.ts';
import { CliError } from '../cli-error.ts';
import { checkNamedFile, type NamedFile, writeNamedFile } from '../named-file.ts';
import { addTableAction } from '../option-parsers.ts';
import type { CommandOptions } from '../option-types.ts';
import { withConnection } from '../pipeline-connection.ts';
import { printable } from '../terminal-text.ts';

type ReportOptions = CommandOptions<'report'>;

const RESULT_FILES = { manifest: 'manifest.json', summary: 'summary.csv', changes: 'changes.csv' } as const;

async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function parseManifest(text: string, where: string): ReportManifest {
  try {
    const manifest = JSON.parse(text) as ReportManifest;
    if (manifest?.manifestVersion !== 1 || typeof manifest.batchId !== 'string')
      throw new Error('not a manifest');
    return manifest;
  } catch {
    throw new CliError(`${where}: not a batch manifest`);
  }
}

/** A results folder (what `screen`, `rescreen`, `submit` and `redrive` download). */
async function filesFromFolder(directory: string): Promise<BatchResultFiles> {
  const manifestPath = join(directory, RESULT_FILES.manifest);
  const text = await readIfExists(manifestPath);
  if (text === null)
    throw new CliError(`${directory}: no ${RESULT_FILES.manifest} here (not a results folder)`);
  const manifest = parseManifest(text, manifestPath);
  const summary = manifest.files === null ? null : await readIfExists(join(directory, RESULT_FILES.summary));
  if (manifest.files !== null && summary === null)
    throw new CliError(`${directory}: ${RESULT_FILES.summary} is missing`);
  const changes = manifest.files?.changes ? await readIfExists(join(directory, RESULT_FILES.changes)) : null;
  return { manifest, summary, changes };
}

/** A batch's results in the pipeline bucket: the local state's, or a deployed stack's with `--stack`. */
async function filesFromBucket(batchId: string, options: ReportOptions): Promise<BatchResultFiles> {
  return withConnection(options, async (connection) => {
    const keys = resultKeys(batchId);
    const text = await connection.objects.readTextIfExists(keys.manifest);
    if (text === null) throw new CliError(`batch ${batchId} has no results in ${connection.where}`);
    const manifest = parseManifest(text, keys.manifest);
    const summaryKey = manifest.files?.summary;
    const changesKey = manifest.files?.changes;
    const summary = summaryKey === undefined ? null : await connection.objects.readTextIfExists(summaryKey);
    if (summaryKey !== undefined && summary === null)
      throw new CliError(`batch ${batchId}: ${summaryKey} is missing`);
    const changes = changesKey === undefined ? null : await connection.objects.readTextIfExists(changesKey);
    return { manifest, summary, changes };
  });
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function report(target: string, options: ReportOptions): Promise<void> {
  // The file the user names is kept when it exists (unless --force): checked before any result is read.
  const named: NamedFile | null =
    options.out === undefined
      ? null
      : { option: '--out', path: resolve(options.out), force: options.force === true, createFolders: true };
  if (named !== null) await checkNamedFile(named);
  const folder = !options.stack && (await isDirectory(target));
  const files = folder ? await filesFromFolder(resolve(target)) : await filesFromBucket(target, options);
  let page: string;
  try {
    page = await renderReportFromResults(files, { language: options.lang });
  } catch (error) {
    if (error instanceof ResultsFileError) throw new CliError(`${target}: summary.csv: ${error.message}`);
    throw error;
  }
  // Without --out, the batch's own report.html, written again each time: the report's file, not the user's.
  const out = named ?? {
    option: '--out',
    path: resolve(folder ? join(target, 'report.html') : join('out', files.manifest.batchId, 'report.html')),
    force: true,
    createFolders: true,
  };
  // Personal data (LGPD): readable by its owner only, also when it replaces an earlier report.
  await writeNamedFile(out, page);
  process.stdout.write(`report: ${printable(out.path)}\n`);
}

export function registerReportCommand(program: Command): void {
  addTableAction(
    program
      .command('report')
      .description(
        "Write a batch's HTML report from its results folder, the local state, or a stack (--stack)",
      )
      .argument('<results-dir|batchId>', 'a folder with manifest.json and summary.csv, or a batch id'),
    'report',
    async (options, target: string) => report(target, options),
  );
}
