import { readFile, stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { parseDocument } from '../../src/domain/documents/index.ts';
import {
  documentOfResponse,
  isReportArchive,
  MalformedReportError,
  normaliseCreditReport,
  normaliseUnidentifiedReport,
} from '../../src/domain/report/index.ts';
import { CliError } from '../cli-error.ts';
import { addTableAction } from '../option-parsers.ts';
import type { CommandOptions } from '../option-types.ts';
import { asCliError } from '../read-customer-list.ts';

/**
 * The largest file `normalize` reads. A bureau response is a few kilobytes; past this a file is not one, and
 * reading it whole would take the memory (and V8's longest string is about this long anyway).
 */
const MAX_RESPONSE_BYTES = 512 * 1024 * 1024;

async function normalize(path: string, options: CommandOptions<'normalize'>): Promise<void> {
  let text: string;
  let modified: Date;
  try {
    // Sized up before it is read: a device never ends and a huge file would exhaust memory first.
    const info = await stat(path);
    if (info.isFile() && info.size > MAX_RESPONSE_BYTES)
      throw new CliError(
        `${path}: ${Math.ceil(info.size / 1024 / 1024)} MB, more than the ${MAX_RESPONSE_BYTES / 1024 / 1024} MB a bureau response can be`,
      );
    if (!info.isFile() && !info.isDirectory()) throw new CliError(`cannot read ${path}: not a regular file`);
    text = await readFile(path, 'utf8');
    modified = info.mtime;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw asCliError(path, error);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${path}: not JSON (${(error as Error).message})`);
  }

  // An archive made by the pipeline carries its own bureau, document and date; a bare response needs them told.
  const archive = isReportArchive(parsed) ? parsed : null;
  const response = archive ? archive.response : parsed;
  const bureau = options.bureau ?? archive?.bureau;
  if (bureau === undefined)
    throw new CliError(`${path}: say which bureau answered it with --bureau a or --bureau b`);
  if (archive && archive.bureau !== bureau) {
    throw new CliError(`${path}: archived as a bureau ${archive.bureau} response, not ${bureau}`);
  }
  let document = archive?.document ?? documentOfResponse(response);
  if (options.document !== undefined) {
    const check = parseDocument(options.document);
    if (!check.valid) throw new CliError(`--document ${JSON.stringify(options.document)}: ${check.reason}`);
    document = check.document;
  }
  const fetchedAt = options.fetchedAt ?? archive?.fetchedAt ?? modified.toISOString();
  try {
    // Without a document, the shape may still tell the type (bureau B's company answer); never a guess beyond that.
    const report =
      document === null
        ? normaliseUnidentifiedReport(response, { bureau, fetchedAt })
        : normaliseCreditReport(response, { bureau, document, fetchedAt });
    if (report === null) {
      throw new CliError(`${path}: the response does not say which document it is about; pass --document`);
    }
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } catch (error) {
    if (error instanceof MalformedReportError) throw new CliError(`${path}: ${error.message}`);
    throw error;
  }
}

export function registerNormalizeCommand(program: Command): void {
  addTableAction(
    program
      .command('normalize')
      .description('Print the normalised report of a saved bureau response (raw JSON or a pipeline archive)')
      .argument('<raw.json>', 'the saved response'),
    'normalize',
    async (options, file: string) => normalize(file, options),
  );
}
