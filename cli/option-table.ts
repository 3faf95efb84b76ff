import { DEFAULT_EMULATOR_TOKEN } from '../emulator/service-emulator.ts';
import { GENERATION_OPERATIONS } from '../service-client/ai-studio-rules.ts';
import { DEFAULT_SETTINGS } from '../src/contract/settings.ts';
import { MAX_OVERRIDE_BY, MAX_OVERRIDE_REASON, OVERRIDE_VALUES } from '../src/domain/decision/override.ts';
import { DEFAULT_MAX_ROWS } from '../src/domain/intake/index.ts';
import { CONSOLE_OPTIONS } from './console/console-options.ts';
import {
  anyBureau,
  bureau,
  epoch,
  freshnessHours,
  json,
  LOCAL_RUN_OPTIONS,
  lang,
  MAX_CREDIT_LIMIT,
  MAX_DOCUMENTS,
  MAX_HOURS,
  MAX_MONTHLY_QUERIES,
  MAX_RATE,
  MAX_TEXT,
  MIN_RATE,
  prices,
  RESUME_OPTIONS,
  rateLimit,
  replaceFile,
  resultsFolder,
  SERVICE_OPTIONS,
  STACK_NAME,
  STUDIO_OPTIONS,
  TARGET_OPTIONS,
  WORK_OPTIONS,
} from './option-groups.ts';
import type { OptionSpec } from './option-spec.ts';
import { WEBHOOK_OPTIONS, WEBHOOK_TEST_OPTIONS } from './webhook-options.ts';

/**
 * Every option of every command, in the order `--help` lists them: what its value is (type, range, unit), its
 * default, and the options it cannot be given with or needs. Commander's parsing, the `--help` text, the option
 * tests (test/cli/option-table.test.ts, test/hostile/) and docs/cli-options.md (scripts/cli-options-doc.ts) are all made
 * from it, so a range said in the help is the range enforced. Values only: nothing here imports a command.
 */

export type { OptionSpec, OptionValue } from './option-spec.ts';
export { DURATION_UNIT_MS, MAX_TIMER_MS } from './option-spec.ts';

/** Every command (its path: `studio projects create`) with its options, in `--help` order. */
export const OPTION_TABLE = {
  check: [
    json('print one JSON object with counts and every row'),
    {
      flags: '--reveal',
      description: 'show documents whole (by default they are masked: ***.540.222-**)',
      value: { type: 'flag' },
    },
    {
      flags: '--max-rows <n>',
      description: 'refuse files with more data rows than this',
      value: { type: 'integer', min: 1, max: MAX_DOCUMENTS, unit: 'rows' },
      default: { value: DEFAULT_MAX_ROWS },
    },
    {
      flags: '--show <n>',
      description: 'how many problem rows to list',
      value: { type: 'integer', min: 1, max: MAX_DOCUMENTS, unit: 'rows' },
      default: { value: 20 },
      conflicts: [{ option: 'json', message: '--show is for the text report; --json lists every row' }],
    },
    bureau('bureau the quote is for'),
    ...prices(''),
    rateLimit(
      'global bureau rate the time is estimated at',
      DEFAULT_SETTINGS.bureaus[DEFAULT_SETTINGS.defaultBureau].rateLimitPerSecond,
    ),
    freshnessHours('stored reports younger than this are reused'),
    {
      flags: '--policy <file>',
      description:
        'a credit policy (JDM JSON) to compile, and to check the list against (the customer columns it reads)',
      value: { type: 'path', of: 'file' },
    },
    {
      flags: '--state <dir>',
      description: 'count the stored reports of this local state directory that would be reused',
      value: { type: 'path', of: 'folder' },
    },
    {
      flags: '--stack <name>',
      description: 'count the stored reports of this deployed stack that would be reused',
      value: STACK_NAME,
      conflicts: [{ option: 'state', message: '--stack and --state name two different pipelines: give one' }],
    },
  ],
  console: CONSOLE_OPTIONS,
  emulator: [
    {
      flags: '--port <port>',
      description: 'port to listen on (0 picks a free one)',
      value: { type: 'integer', min: 0, max: 65_535 },
      default: { value: 8787 },
    },
    {
      flags: '--host <host>',
      description: 'address to listen on (keep it on loopback)',
      value: { type: 'text', maxLength: 253 },
      default: { value: '127.0.0.1' },
    },
    {
      flags: '--token <token>',
      description: 'the Bearer token to accept',
      value: { type: 'text', maxLength: MAX_TEXT },
      default: { value: DEFAULT_EMULATOR_TOKEN },
    },
    {
      flags: '--latency <ms>',
      description: 'mean added latency per query (±25% jitter)',
      value: { type: 'duration', unit: 'ms', min: 0, max: 600_000 },
      default: { value: 0 },
    },
    {
      flags: '--error-rate <p>',
      description: 'share of queries failing with 500/502/503 or a non-success 200',
      value: { type: 'probability' },
      default: { value: 0 },
    },
    {
      flags: '--rate-limit <req/s>',
      description: 'answer 429 with Retry-After above this rate',
      value: { type: 'rate', min: MIN_RATE, max: MAX_RATE },
    },
    {
      flags: '--hang-rate <p>',
      description: 'share of queries never answered',
      value: { type: 'probability' },
      default: { value: 0 },
    },
    epoch('the point in time reports are drawn at; a share of documents changes between epochs'),
    {
      flags: '--job-step-ms <ms>',
      description: 'time an AI Studio job spends queued, then running',
      value: { type: 'duration', unit: 'ms', min: 0, max: 600_000 },
      default: { value: 1000 },
    },
  ],
  normalize: [
    anyBureau('which bureau answered (read from an archive)'),
    {
      flags: '--document <document>',
      description: 'the CPF/CNPJ queried (default: read from the response)',
      value: { type: 'text', maxLength: 64 },
    },
    {
      flags: '--fetched-at <iso>',
      description: 'when the response was received (default: from the archive, else the file date)',
      value: { type: 'timestamp' },
    },
  ],
  screen: [
    resultsFolder(
      'where to put summary.csv, reports.jsonl and manifest.json (default out/<batchId>; with several files <dir>/<batchId>)',
    ),
    {
      flags: '--stagger <seconds>',
      description: 'with several files: wait this long between one upload and the next',
      value: { type: 'duration', unit: 's', min: 0, max: 86_400 },
    },
    {
      flags: '--priority',
      description: 'upload under incoming/<bureau>/priority/: go ahead of large batches',
      value: { type: 'flag' },
    },
    {
      flags: '--new-batch',
      description:
        'screen each file as a new batch, even when an interrupted run on this state left one of it unfinished (by default that batch is resumed, keeping its own options)',
      value: { type: 'flag' },
    },
    ...LOCAL_RUN_OPTIONS,
    ...WEBHOOK_OPTIONS,
  ],
  rescreen: [
    {
      flags: '--name <name>',
      description: 'portfolio name (default: the file name)',
      value: { type: 'text', maxLength: 256 },
    },
    {
      flags: '--max-age-hours <h>',
      description:
        'reuse reports younger than this instead of asking again (default: ask again for every document)',
      value: { type: 'number', min: 0, max: MAX_HOURS, unit: 'h' },
    },
    resultsFolder('where to put the results (default out/<batchId>)'),
    ...LOCAL_RUN_OPTIONS,
    ...WEBHOOK_OPTIONS,
  ],
  submit: [
    {
      flags: '--stack <name>',
      description: 'the deployed stack (its outputs name the bucket, table and queues)',
      value: STACK_NAME,
      required: true,
    },
    bureau('bureau to query'),
    resultsFolder('where to put the results (default out/<batchId>)'),
    {
      flags: '--timeout <seconds>',
      description: 'how long to wait for the batch to start',
      value: { type: 'duration', unit: 's', min: 1, max: 86_400 },
      default: { value: 120 },
    },
  ],
  report: [
    lang('language of the page'),
    {
      flags: '--out <file>',
      description:
        'where to write it, a file that exists kept (default: report.html in the folder, or out/<batchId>/, written again)',
      value: { type: 'path', of: 'file' },
    },
    replaceFile('out'),
    ...TARGET_OPTIONS,
  ],
  decide: [
    {
      flags: '--policy <file>',
      description: 'the credit policy (a JDM decision graph, JSON) to decide with',
      value: { type: 'path', of: 'file' },
      required: true,
    },
    {
      flags: '--out <dir>',
      description: 'where to write decisions.csv (default: the results folder, or out/<batchId>)',
      value: { type: 'path', of: 'folder' },
    },
    json('print only {counts, flips} as JSON'),
    ...TARGET_OPTIONS,
  ],
  batches: [
    {
      flags: '--limit <n>',
      description: 'how many',
      value: { type: 'integer', min: 1, max: 1000, unit: 'batches' },
      default: { value: 20 },
    },
    json(),
    ...TARGET_OPTIONS,
  ],
  status: [json(), ...TARGET_OPTIONS],
  review: [json(), ...TARGET_OPTIONS],
  override: [
    {
      flags: '--row <n>',
      description: 'the row of the list (the summary’s row column)',
      value: { type: 'integer', min: 1, max: MAX_DOCUMENTS, unit: 'row' },
      required: true,
    },
    {
      flags: '--decision <decision>',
      description: 'the final decision',
      value: { type: 'choice', choices: OVERRIDE_VALUES },
      required: true,
    },
    {
      flags: '--limit <brl>',
      description: 'the credit limit granted, in reais (an approval only)',
      value: { type: 'number', min: 0, max: MAX_CREDIT_LIMIT, unit: 'R$' },
    },
    {
      flags: '--reason <text>',
      description: 'why the decision is changed, in words the auditors read',
      value: { type: 'text', maxLength: MAX_OVERRIDE_REASON },
      required: true,
    },
    {
      flags: '--by <who>',
      description: 'who decides: a name or an e-mail',
      value: { type: 'text', maxLength: MAX_OVERRIDE_BY },
      required: true,
    },
    json(),
    ...TARGET_OPTIONS,
  ],
  subject: [
    {
      flags: '--export <file>',
      description:
        'where to write everything held about the document (JSON, readable by its owner only); a file that exists is kept',
      value: { type: 'path', of: 'file' },
      conflicts: [
        { option: 'erase', message: '--export and --erase answer two different requests: give one' },
      ],
    },
    replaceFile('export'),
    {
      flags: '--erase',
      description:
        'erase the personal data held about the document (rows, reports, raw answers, list and results records); the audit entries stay',
      value: { type: 'flag' },
      requires: [
        { option: 'by', message: '--erase needs --by "<who>": the audit log records who erased' },
        { option: 'reason', message: '--erase needs --reason "<text>": the audit log records why' },
      ],
    },
    {
      flags: '--by <who>',
      description: 'who carries out the erasure: a name or an e-mail',
      value: { type: 'text', maxLength: MAX_OVERRIDE_BY },
      requires: [{ option: 'erase', message: '--by goes with --erase' }],
    },
    {
      flags: '--reason <text>',
      description: 'why: the request it answers, in words the auditors read',
      value: { type: 'text', maxLength: MAX_OVERRIDE_REASON },
      requires: [{ option: 'erase', message: '--reason goes with --erase' }],
    },
    {
      ...resultsFolder(
        'downloaded results erased from too: a batch’s folder, or the folder holding them by batch id (default out/)',
      ),
      requires: [{ option: 'erase', message: '--out goes with --erase' }],
    },
    json('print what was erased as JSON'),
    ...TARGET_OPTIONS,
  ],
  audit: [
    {
      flags: '--document <cpf|cnpj>',
      description: 'the document whose entries to read (hashed with the deployment’s key to find them)',
      value: { type: 'text', maxLength: 40 },
      conflicts: [
        { option: 'batch', message: '--document and --batch ask for two different things: give one' },
      ],
    },
    {
      flags: '--batch <id>',
      description: 'the batch whose entries to read',
      value: { type: 'text', maxLength: 64 },
    },
    {
      flags: '--from <time>',
      description: 'entries at or after this instant or day',
      value: { type: 'timestamp' },
    },
    {
      flags: '--to <time>',
      description: 'entries at or before this instant, or within this day',
      value: { type: 'timestamp' },
    },
    json(),
    ...TARGET_OPTIONS,
  ],
  export: [
    resultsFolder('where to put the batch’s results with the final decisions (default out/<batchId>)'),
    json(),
    ...TARGET_OPTIONS,
  ],
  cancel: WORK_OPTIONS,
  redrive: [
    ...WORK_OPTIONS,
    {
      flags: '--charge-unknown',
      description:
        'send back instead the failed rows whose earlier call may have been charged (quoted, then bought again once agreed)',
      value: { type: 'flag' },
    },
    {
      flags: '--yes',
      description: 'buy the rows --charge-unknown quotes without asking (for scripts)',
      value: { type: 'flag' },
      requires: [{ option: 'charge-unknown', message: '--yes goes with --charge-unknown' }],
    },
  ],
  approve: WORK_OPTIONS,
  reject: WORK_OPTIONS,
  resume: RESUME_OPTIONS,
  spend: [
    {
      flags: '--month <YYYY-MM>',
      description: 'the month (Brasília time)',
      value: { type: 'month' },
      default: { value: undefined, text: 'this month' },
    },
    {
      flags: '--cap <n>',
      description: 'the monthly cap to compare with, per bureau',
      value: { type: 'integer', min: 0, max: MAX_MONTHLY_QUERIES, unit: 'queries' },
    },
    ...prices(''),
    json(),
    ...TARGET_OPTIONS,
  ],
  ai: SERVICE_OPTIONS,
  studio: SERVICE_OPTIONS,
  'studio projects create': [
    STUDIO_OPTIONS.type,
    STUDIO_OPTIONS.name,
    STUDIO_OPTIONS.description,
    STUDIO_OPTIONS.options,
  ],
  'studio projects update': [STUDIO_OPTIONS.name, STUDIO_OPTIONS.description, STUDIO_OPTIONS.options],
  'studio generate': [
    {
      flags: '--prompt <text>',
      description: 'what to generate',
      value: { type: 'text', maxLength: MAX_TEXT },
      required: true,
    },
    {
      flags: '--operation <operation>',
      description: 'create or update',
      value: { type: 'choice', choices: GENERATION_OPERATIONS },
    },
    {
      flags: '--no-wait',
      description: 'print the accepted job and return at once',
      value: { type: 'negation' },
      conflicts: [
        { option: 'wait-timeout', message: '--wait-timeout is for waiting, and --no-wait does not wait' },
      ],
    },
    {
      flags: '--wait-timeout <seconds>',
      description: 'stop waiting after this long',
      value: { type: 'duration', unit: 's', min: 1, max: 86_400 },
      default: { value: 600 },
    },
  ],
  'studio messages post': [
    { flags: '--content <text>', description: 'the message', value: { type: 'text', maxLength: MAX_TEXT } },
    {
      flags: '--prompt <text>',
      description: 'a prompt for the change',
      value: { type: 'text', maxLength: MAX_TEXT },
    },
    STUDIO_OPTIONS.options,
  ],
  'webhook test': WEBHOOK_TEST_OPTIONS,
  'studio export': [
    {
      flags: '--out <file>',
      description: 'write the export to this file (0600) instead of printing it; an existing file is kept',
      value: { type: 'path', of: 'file' },
    },
    replaceFile('out'),
  ],
} as const satisfies Record<string, readonly OptionSpec[]>;

/** A command's path (`screen`, `studio projects create`) as the table names it. */
export type CommandPath = keyof typeof OPTION_TABLE;
