import {
  ARTIFACT_TYPES,
  GENERATION_OPERATIONS,
  MAX_PROJECT_DESCRIPTION_CHARACTERS,
  MAX_PROJECT_NAME_CHARACTERS,
} from '../../service-client/ai-studio-rules.ts';
import { DEFAULT_SETTINGS, MAX_PRICE_PER_QUERY } from '../../src/contract/settings.ts';
import { DEFAULT_REPORT_LANGUAGE, REPORT_LANGUAGES } from '../../src/domain/batch-report/report-language.ts';
import { BUREAU_REGISTRY } from '../../src/domain/bureau/index.ts';
import { MAX_OVERRIDE_BY, MAX_OVERRIDE_REASON, OVERRIDE_VALUES } from '../../src/domain/decision/override.ts';
import { DEFAULT_MAX_ROWS } from '../../src/domain/intake/index.ts';
import { BUREAUS } from '../../src/domain/report/raw-credit-report.ts';
import { DEFAULT_EMULATOR_TOKEN } from '../emulator/service-emulator.ts';
import { LOCAL_RATE_LIMIT } from '../local/local-settings.ts';
import { DEFAULT_STATE_DIRECTORY } from '../local/local-state.ts';
import type { OptionRelation, OptionSpec } from './option-spec.ts';
import { WEBHOOK_OPTIONS, WEBHOOK_TEST_OPTIONS } from './webhook-options.ts';

/**
 * Every option of every command, in the order `--help` lists them: what its value is (type, range, unit), its
 * default, and the options it cannot be given with or needs. Commander's parsing, the `--help` text, the option
 * tests (test/cli/option-table.test.ts, test/hostile/) and docs/cli-options.md (scripts/cli-options-doc.ts) are all made
 * from it, so a range said in the help is the range enforced. Values only: nothing here imports a command.
 */

export type { OptionSpec, OptionValue } from './option-spec.ts';
export { DURATION_UNIT_MS, MAX_TIMER_MS } from './option-spec.ts';

// Bounds: far above any real use, far below what would overflow a timer, a safe integer or the memory.
const MAX_DOCUMENTS = 10_000_000;
const MAX_MONTHLY_QUERIES = 1_000_000_000;
const MAX_HOURS = 87_600; // ten years
const MAX_RATE = 10_000;
/** The slowest request rate a run accepts: one request every 100 s. */
const MIN_RATE = 0.01;
const MAX_EPOCH = 1_000_000;
const MAX_TEXT = 4096;
/** A credit limit far above any a batch screening grants. */
const MAX_CREDIT_LIMIT = 1_000_000_000;
/** Where `credit-screen emulator` listens by default, so the AI commands work against it with no setup. */
const DEFAULT_SERVICE_URL = 'http://127.0.0.1:8787';

const STACK_NAME = {
  type: 'text',
  maxLength: 128,
  pattern: /^[A-Za-z][A-Za-z0-9-]*$/,
  patternText: 'a CloudFormation stack name (a letter, then letters, digits and -)',
} as const;

const json = (description = 'print JSON'): OptionSpec => ({
  flags: '--json',
  description,
  value: { type: 'flag' },
});

const bureau = (description: string, withDefault = true): OptionSpec => ({
  flags: '--bureau <bureau>',
  description,
  value: { type: 'choice', choices: BUREAUS },
  ...(withDefault ? { default: { value: DEFAULT_SETTINGS.defaultBureau } } : {}),
});

/**
 * `--price <bureau>=<BRL>` (repeatable), and `--price-<bureau>` for each bureau of the registry, kept as the
 * aliases they were before `--price`.
 */
const prices = (purpose: string): OptionSpec[] => [
  {
    flags: '--price <bureau=brl>',
    description: `price of one query of a bureau${purpose}, e.g. a=2,70; repeatable`,
    value: { type: 'bureau-price', max: MAX_PRICE_PER_QUERY },
    repeatable: true,
    default: {
      value: undefined,
      text: BUREAUS.map((bureau) => `${bureau}=${DEFAULT_SETTINGS.bureaus[bureau].pricePerQuery}`).join(', '),
    },
  },
  ...BUREAUS.map(
    (bureau): OptionSpec => ({
      flags: `--price-${bureau} <brl>`,
      description: `price of one bureau ${BUREAU_REGISTRY[bureau].label} query${purpose} (the same as --price ${bureau}=<brl>)`,
      value: { type: 'price', max: MAX_PRICE_PER_QUERY },
      default: { value: undefined, text: `list price R$ ${DEFAULT_SETTINGS.bureaus[bureau].pricePerQuery}` },
    }),
  ),
];

const rateLimit = (description: string, fallback: number): OptionSpec => ({
  flags: '--rate-limit <req/s>',
  description,
  value: { type: 'rate', min: MIN_RATE, max: MAX_RATE },
  default: { value: undefined, text: String(fallback) },
});

const freshnessHours = (description: string): OptionSpec => ({
  flags: '--freshness-hours <h>',
  description,
  value: { type: 'number', min: 0, max: MAX_HOURS, unit: 'h' },
  default: { value: undefined, text: String(DEFAULT_SETTINGS.freshnessHours) },
});

const epoch = (description: string, conflicts: readonly OptionRelation[] = []): OptionSpec => ({
  flags: '--epoch <n>',
  description,
  value: { type: 'integer', min: 0, max: MAX_EPOCH },
  default: { value: 0 },
  ...(conflicts.length > 0 ? { conflicts } : {}),
});

const lang = (description: string): OptionSpec => ({
  flags: '--lang <language>',
  description,
  value: { type: 'choice', choices: REPORT_LANGUAGES },
  default: { value: DEFAULT_REPORT_LANGUAGE },
});

const resultsFolder = (description: string): OptionSpec => ({
  flags: '--out <dir>',
  description,
  value: { type: 'path', of: 'folder' },
});

/** `--stack` or the local state: where the batch commands act. */
const TARGET_OPTIONS: readonly OptionSpec[] = [
  {
    flags: '--stack <name>',
    description:
      'a deployed stack (credentials, region and endpoints from the usual AWS settings, AWS_ENDPOINT_URL included)',
    value: STACK_NAME,
    conflicts: [{ option: 'state', message: '--stack and --state name two different pipelines: give one' }],
  },
  {
    flags: '--state <dir>',
    description: 'the local state directory, when no --stack is given',
    value: { type: 'path', of: 'folder' },
    default: { value: DEFAULT_STATE_DIRECTORY },
  },
];

/** The commands that change a batch (and `resume`): where, whether to wait, where the results go. */
const WORK_OPTIONS: readonly OptionSpec[] = [
  ...TARGET_OPTIONS,
  {
    flags: '--no-wait',
    description: 'return once the request is made (deployed stacks only)',
    value: { type: 'negation' },
    requires: [
      {
        option: 'stack',
        message: '--no-wait is for a deployed stack (--stack): locally the command always finishes the batch',
      },
    ],
  },
  resultsFolder('where to put the rewritten results (default out/<batchId>)'),
  epoch('locally: the emulator epoch the redriven queries see', [
    { option: 'stack', message: '--epoch is for the local emulator: a deployed stack calls its own bureau' },
  ]),
  json(),
];

/** `screen` and `rescreen`: the batch, what it may spend, how it runs, and which bureau answers. */
const LOCAL_RUN_OPTIONS: readonly OptionSpec[] = [
  bureau('bureau to query'),
  {
    flags: '--excel',
    description: 'write the summary in the Brazilian Excel dialect (;, decimal comma, BOM)',
    value: { type: 'flag' },
  },
  {
    flags: '--policy <file>',
    description:
      'a credit policy (JDM JSON, e.g. samples/policies/pessoa-fisica.json) that decides every screened row: approve, review or decline',
    value: { type: 'path', of: 'file' },
  },
  {
    flags: '--approve-above <n>',
    description: 'a batch that would buy more documents than this waits for approval',
    value: { type: 'integer', min: 0, max: MAX_DOCUMENTS, unit: 'documents' },
    default: { value: undefined, text: String(DEFAULT_SETTINGS.approvalThreshold) },
  },
  {
    flags: '--yes',
    description: 'approve a batch over the threshold without asking (for scripts)',
    value: { type: 'flag' },
  },
  {
    flags: '--max-charges <n>',
    description: 'buy at most this many queries for this batch',
    value: { type: 'integer', min: 0, max: MAX_DOCUMENTS, unit: 'queries' },
  },
  {
    flags: '--monthly-cap <n>',
    description: 'buy at most this many queries per bureau this month, across runs on this state',
    value: { type: 'integer', min: 0, max: MAX_MONTHLY_QUERIES, unit: 'queries' },
  },
  ...prices(', for the quote'),
  lang('language of report.html'),
  {
    flags: '--concurrency <n>',
    description: 'concurrent worker invocations',
    value: { type: 'integer', min: 1, max: 100 },
    default: { value: undefined, text: String(DEFAULT_SETTINGS.workerConcurrency) },
  },
  rateLimit('global bureau requests per second', LOCAL_RATE_LIMIT),
  freshnessHours('reuse stored reports younger than this (0 = off)'),
  {
    flags: '--state <dir>',
    description: 'keep reports, portfolios and results here between runs',
    value: { type: 'path', of: 'folder' },
    default: { value: DEFAULT_STATE_DIRECTORY },
  },
  {
    flags: '--engine <engine>',
    description:
      'where the run keeps its table: dynamodb-local (needs Java 17+; state kept in --state) or memory (Node alone; nothing kept)',
    value: { type: 'choice', choices: ['dynamodb-local', 'memory'] },
    default: { value: undefined, text: 'dynamodb-local when Java is on PATH, else memory' },
  },
  {
    flags: '--no-state',
    description: 'keep nothing: start empty and forget everything at the end',
    value: { type: 'negation' },
    conflicts: [
      { option: 'state', message: '--no-state keeps nothing and --state names where to keep it: give one' },
      { option: 'fresh', message: '--fresh empties a state directory, and --no-state has none: give one' },
    ],
  },
  {
    flags: '--fresh',
    description: 'empty the state directory before starting (only a directory it created, or an empty one)',
    value: { type: 'flag' },
  },
  {
    flags: '--token <token>',
    description: 'token the pipeline sends (the embedded emulator accepts only its own dev token)',
    value: { type: 'text', maxLength: MAX_TEXT },
  },
  epoch("the emulator's point in time: reports change a little from one epoch to the next", [
    { option: 'live', message: '--epoch sets the emulator, and --live calls a real bureau: give one' },
  ]),
  {
    flags: '--emulator-latency <ms>',
    description: 'emulator latency per query',
    value: { type: 'duration', unit: 'ms', min: 0, max: 600_000 },
    default: { value: 0 },
    conflicts: [
      {
        option: 'live',
        message: '--emulator-latency sets the emulator, and --live calls a real bureau: give one',
      },
    ],
  },
  {
    flags: '--emulator-error-rate <p>',
    description: 'share of emulator queries that fail',
    value: { type: 'probability' },
    default: { value: 0 },
    conflicts: [
      {
        option: 'live',
        message: '--emulator-error-rate sets the emulator, and --live calls a real bureau: give one',
      },
    ],
  },
  {
    flags: '--emulator-rate-limit <req/s>',
    description: 'emulator answers 429 above this rate',
    value: { type: 'rate', min: MIN_RATE, max: MAX_RATE },
    conflicts: [
      {
        option: 'live',
        message: '--emulator-rate-limit sets the emulator, and --live calls a real bureau: give one',
      },
    ],
  },
  {
    flags: '--base-url <url>',
    description: 'call a real bureau gateway instead of the emulator (its token in BUREAU_TOKEN or --token)',
    value: { type: 'url' },
    requires: [
      {
        option: 'live',
        message: '--base-url calls a real bureau gateway and spends real credits: add --live to confirm',
      },
    ],
  },
  {
    flags: '--live',
    description: 'confirm that real queries, paid in real credits, may be made',
    value: { type: 'flag' },
    requires: [{ option: 'base-url', message: '--live needs --base-url <gateway URL>' }],
  },
];

/** `ai` and `studio`: the service, its token and the time a request may take. */
const SERVICE_OPTIONS: readonly OptionSpec[] = [
  {
    flags: '--base-url <url>',
    description: 'service base URL',
    value: { type: 'url' },
    default: {
      value: () => process.env.CREDIT_SCREEN_BASE_URL ?? DEFAULT_SERVICE_URL,
      text: `$CREDIT_SCREEN_BASE_URL, else ${DEFAULT_SERVICE_URL}`,
    },
  },
  {
    flags: '--token <token>',
    description: 'account token (env BUREAU_TOKEN); the emulator token is used on loopback',
    value: { type: 'text', maxLength: MAX_TEXT },
  },
  {
    flags: '--timeout <seconds>',
    description: 'per-request timeout',
    value: { type: 'number', min: 0, max: 3600, unit: 's', above: true },
    default: { value: 30 },
  },
  json('print the service answer as JSON'),
];

const STUDIO_OPTIONS = {
  type: {
    flags: '--type <artifact_type>',
    description: 'artifact type',
    value: { type: 'choice', choices: ARTIFACT_TYPES },
    required: true,
  },
  name: {
    flags: '--name <name>',
    description: 'project name',
    value: { type: 'text', maxLength: MAX_PROJECT_NAME_CHARACTERS },
  },
  description: {
    flags: '--description <text>',
    description: 'project description',
    value: { type: 'text', maxLength: MAX_PROJECT_DESCRIPTION_CHARACTERS },
  },
  options: {
    flags: '--options <json>',
    description: 'free-form options, as a JSON object',
    value: { type: 'json-object' },
  },
} as const satisfies Record<string, OptionSpec>;

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
    bureau('which bureau answered (read from an archive)', false),
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
      description: 'where to write it (default report.html in the folder, or out/<batchId>/)',
      value: { type: 'path', of: 'file' },
    },
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
      description: 'where to write everything held about the document (JSON, readable by its owner only)',
      value: { type: 'path', of: 'file' },
      conflicts: [
        { option: 'erase', message: '--export and --erase answer two different requests: give one' },
      ],
    },
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
  redrive: WORK_OPTIONS,
  approve: WORK_OPTIONS,
  reject: WORK_OPTIONS,
  resume: WORK_OPTIONS.map((spec) =>
    spec.flags === '--out <dir>'
      ? resultsFolder('where to put the results, a folder per batch in it (default out)')
      : spec,
  ),
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
    {
      flags: '--force',
      description: 'replace the --out file when it exists',
      value: { type: 'flag' },
      requires: [{ option: 'out', message: '--force replaces the --out file: give --out' }],
    },
  ],
} as const satisfies Record<string, readonly OptionSpec[]>;

/** A command's path (`screen`, `studio projects create`) as the table names it. */
export type CommandPath = keyof typeof OPTION_TABLE;
