/** The option table's bounds, shared options and groups of options (option-table.ts lists them per command). */
import {
  ARTIFACT_TYPES,
  MAX_PROJECT_DESCRIPTION_CHARACTERS,
  MAX_PROJECT_NAME_CHARACTERS,
} from '../service-client/ai-studio-rules.ts';
import { DEFAULT_SETTINGS, MAX_PRICE_PER_QUERY } from '../src/contract/settings.ts';
import { DEFAULT_REPORT_LANGUAGE, REPORT_LANGUAGES } from '../src/domain/batch-report/report-language.ts';
import { BUREAU_REGISTRY } from '../src/domain/bureau/index.ts';
import { BUREAUS } from '../src/domain/report/raw-credit-report.ts';
import { formatBrl } from '../src/domain/spend/index.ts';
import { LOCAL_RATE_LIMIT } from './local/local-settings.ts';
import { DEFAULT_STATE_DIRECTORY } from './local/local-state.ts';
import type { OptionRelation, OptionSpec } from './option-spec.ts';

// Bounds: far above any real use, far below what would overflow a timer, a safe integer or the memory.
export const MAX_DOCUMENTS = 10_000_000;
export const MAX_MONTHLY_QUERIES = 1_000_000_000;
export const MAX_HOURS = 87_600; // ten years
export const MAX_RATE = 10_000;
/** The slowest request rate a run accepts: one request every 100 s. */
export const MIN_RATE = 0.01;
const MAX_EPOCH = 1_000_000;
export const MAX_TEXT = 4096;
/** A credit limit far above any a batch screening grants. */
export const MAX_CREDIT_LIMIT = 1_000_000_000;
/** Where `credit-screen emulator` listens by default, so the AI commands work against it with no setup. */
const DEFAULT_SERVICE_URL = 'http://127.0.0.1:8787';

export const STACK_NAME = {
  type: 'text',
  maxLength: 128,
  pattern: /^[A-Za-z][A-Za-z0-9-]*$/,
  patternText: 'a CloudFormation stack name (a letter, then letters, digits and -)',
} as const;

// The helpers below keep their options' literal types (`as const`): the options types (option-types.ts) are made
// from the flags, value types and defaults they hold.

/** `--json`: print JSON instead of text for people. */
export const json = (description = 'print JSON') =>
  ({ flags: '--json', description, value: { type: 'flag' } }) as const satisfies OptionSpec;

/** `--bureau <bureau>` with no default: for a command that can learn it otherwise (`normalize`, from an archive). */
export const anyBureau = (description: string) =>
  ({
    flags: '--bureau <bureau>',
    description,
    value: { type: 'choice', choices: BUREAUS },
  }) as const satisfies OptionSpec;

/** `--bureau <bureau>`, the default bureau when not given. */
export const bureau = (description: string) =>
  ({
    ...anyBureau(description),
    default: { value: DEFAULT_SETTINGS.defaultBureau },
  }) as const satisfies OptionSpec;

/**
 * `--price <bureau>=<BRL>` (repeatable), and `--price-<bureau>` for each bureau of the registry, kept as the
 * aliases they were before `--price`.
 */
export const prices = (purpose: string) =>
  [
    {
      flags: '--price <bureau=brl>',
      description: `price of one query of a bureau${purpose}, e.g. a=2,70`,
      value: { type: 'bureau-price', max: MAX_PRICE_PER_QUERY },
      repeatable: true,
      default: {
        value: undefined,
        text: `the list price, ${BUREAUS.map((bureau) => `${bureau}=${formatBrl(DEFAULT_SETTINGS.bureaus[bureau].pricePerQuery)}`).join(', ')}`,
      },
    },
    ...BUREAUS.map(
      (bureau) =>
        ({
          flags: `--price-${bureau} <brl>`,
          description: `price of one bureau ${BUREAU_REGISTRY[bureau].label} query${purpose} (the same as --price ${bureau}=<brl>)`,
          value: { type: 'price', max: MAX_PRICE_PER_QUERY },
          default: {
            value: undefined,
            text: `list price ${formatBrl(DEFAULT_SETTINGS.bureaus[bureau].pricePerQuery)}`,
          },
        }) as const satisfies OptionSpec,
    ),
  ] as const satisfies readonly OptionSpec[];

/** `--rate-limit`: the bureau request rate, `fallback` (said in help) when not given. */
export const rateLimit = (description: string, fallback: number) =>
  ({
    flags: '--rate-limit <req/s>',
    description,
    value: { type: 'rate', min: MIN_RATE, max: MAX_RATE },
    default: { value: undefined, text: String(fallback) },
  }) as const satisfies OptionSpec;

/** `--freshness-hours`: how old a stored report may be and still be reused. */
export const freshnessHours = (description: string) =>
  ({
    flags: '--freshness-hours <h>',
    description,
    value: { type: 'number', min: 0, max: MAX_HOURS, unit: 'h' },
    default: { value: undefined, text: String(DEFAULT_SETTINGS.freshnessHours) },
  }) as const satisfies OptionSpec;

/** `--epoch`: the emulator's point in time, and the options it is refused with on this command. */
export const epoch = (description: string, conflicts: readonly OptionRelation[] = []) =>
  ({
    flags: '--epoch <n>',
    description,
    value: { type: 'integer', min: 0, max: MAX_EPOCH },
    default: { value: 0 },
    ...(conflicts.length > 0 ? { conflicts } : {}),
  }) as const satisfies OptionSpec;

/** `--lang`: the language of the batch's report page. */
export const lang = (description: string) =>
  ({
    flags: '--lang <language>',
    description,
    value: { type: 'choice', choices: REPORT_LANGUAGES },
    default: { value: DEFAULT_REPORT_LANGUAGE },
  }) as const satisfies OptionSpec;

/** `--out <dir>`: where a batch's results go. */
export const resultsFolder = (description: string) =>
  ({
    flags: '--out <dir>',
    description,
    value: { type: 'path', of: 'folder' },
  }) as const satisfies OptionSpec;

/**
 * `--force` of a command that writes one file the user names with `--<option>`: an existing file is kept unless
 * this replaces it (cli/named-file.ts).
 */
export const replaceFile = (option: 'out' | 'export') =>
  ({
    flags: '--force',
    description: `replace the --${option} file when it exists`,
    value: { type: 'flag' },
    requires: [{ option, message: `--force replaces the --${option} file: give --${option}` }],
  }) as const satisfies OptionSpec;

/** `--stack` or the local state: where the batch commands act. */
export const TARGET_OPTIONS = [
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
] as const satisfies readonly OptionSpec[];

/** The commands that change a batch (and `resume`): where, whether to wait, where the results go. */
export const WORK_OPTIONS = [
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
] as const satisfies readonly OptionSpec[];

/** `resume`: the options of the commands that change a batch, its results a folder per batch. */
export const RESUME_OPTIONS = WORK_OPTIONS.map((spec) =>
  spec.flags === '--out <dir>'
    ? resultsFolder('where to put the results, a folder per batch in it (default out)')
    : spec,
);

/** The approval threshold of the batches a local run or the local console starts. */
export const APPROVE_ABOVE = {
  flags: '--approve-above <n>',
  description: 'a batch that would buy more documents than this waits for approval',
  value: { type: 'integer', min: 0, max: MAX_DOCUMENTS, unit: 'documents' },
  default: { value: undefined, text: String(DEFAULT_SETTINGS.approvalThreshold) },
} as const satisfies OptionSpec;

/** `screen` and `rescreen`: the batch, what it may spend, how it runs, and which bureau answers. */
export const LOCAL_RUN_OPTIONS = [
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
  APPROVE_ABOVE,
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
    flags: '--rebuy-charge-unknown',
    description:
      'buy a document again without asking when a call for it left and its answer was lost (it may then be paid twice); without it such rows end failed, charge unknown, for redrive --charge-unknown',
    value: { type: 'flag' },
  },
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
] as const satisfies readonly OptionSpec[];

/** `ai` and `studio`: the service, its token and the time a request may take. */
export const SERVICE_OPTIONS = [
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
] as const satisfies readonly OptionSpec[];

export const STUDIO_OPTIONS = {
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
