import type { Command } from 'commander';
import { DEFAULT_EMULATOR_TOKEN } from '../emulator/service-emulator.ts';
import {
  envelopeData,
  type JsonObject,
  RequestValidationError,
  ServiceClient,
  ServiceError,
  type ServiceReply,
} from '../service-client/index.ts';
import { CliError } from './cli-error.ts';
import { addTableOptions, baseUrlProblem } from './option-parsers.ts';
import type { CommandOptions } from './option-types.ts';
import { printable } from './terminal-text.ts';

/** The service, its token and the time a request may take: the options of `ai` and `studio`. */
export type ConnectionOptions = CommandOptions<'ai' | 'studio'>;

/** Adds the options every service command shares to a parent command (read back with `optsWithGlobals`). */
export function withConnectionOptions(command: Command): Command {
  return addTableOptions(command, command.name() as 'ai' | 'studio');
}

function isLoopback(url: string): boolean {
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** The client for these options; a missing token fails here, before any request. */
export function connect(options: ConnectionOptions): ServiceClient {
  // A default from CREDIT_SCREEN_BASE_URL is not parsed as the option is: the token must not go anywhere either.
  const problem = baseUrlProblem(options.baseUrl);
  if (problem !== null) throw new CliError(`--base-url ${printable(options.baseUrl)} ${problem}`);
  const token =
    options.token ??
    process.env.BUREAU_TOKEN ??
    (isLoopback(options.baseUrl) ? DEFAULT_EMULATOR_TOKEN : undefined);
  if (token === undefined || token === '')
    throw new CliError(`no token for ${options.baseUrl}: set BUREAU_TOKEN or pass --token`);
  try {
    return new ServiceClient({ baseUrl: options.baseUrl, token, timeoutMs: options.timeout * 1000 });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

/** Service and validation failures become one line on stderr: exit 2 for a bad request, 1 for the service. */
export function asServiceCliError(error: unknown): unknown {
  if (error instanceof RequestValidationError) return new CliError(error.message, 2);
  if (error instanceof ServiceError) return new CliError(error.message, 1);
  return error;
}

function scalar(value: unknown): string {
  if (value === null || value === undefined) return '-';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

const LABEL_FIELDS = [
  'id',
  'hash',
  'file',
  'version',
  'name',
  'status',
  'artifact_type',
  'source',
  'created_at',
];

/** Human output: a list becomes one line per item (its identifying fields), an object `field: value` lines. */
function formatForPeople(value: unknown): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '(none)';
    return value
      .map((item) => {
        if (typeof item !== 'object' || item === null) return scalar(item);
        const fields = LABEL_FIELDS.filter((field) => field in item).map((field) =>
          scalar((item as Record<string, unknown>)[field]),
        );
        return fields.length > 0 ? fields.join('  ') : JSON.stringify(item);
      })
      .join('\n');
  }
  if (typeof value !== 'object' || value === null) return scalar(value);
  const entries = Object.entries(value);
  // A body that only wraps one list (`{ projects: [...] }`) prints as that list.
  if (entries.length === 1 && Array.isArray(entries[0]?.[1])) return formatForPeople(entries[0]?.[1]);
  const width = Math.max(...entries.map(([field]) => field.length));
  return entries.map(([field, item]) => `${field.padEnd(width)}  ${scalar(item)}`).join('\n');
}

/** Prints a reply: the whole body as JSON with `--json`, otherwise its payload for people. */
export function printReply(reply: ServiceReply, options: { readonly json?: boolean }): void {
  process.stdout.write(
    options.json
      ? `${JSON.stringify(reply.body, null, 2)}\n`
      : `${formatForPeople(envelopeData(reply.body as JsonObject))}\n`,
  );
}
