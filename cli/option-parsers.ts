import { type Command, Help, InvalidArgumentError, Option } from 'commander';
import type { JsonObject } from '../service-client/index.ts';
import { parseAlertEventList, parseChangeKindList, parseWebhookHeader } from '../src/contract/webhooks.ts';
import { isBureau } from '../src/domain/bureau/index.ts';
import { BUREAUS, type Bureau } from '../src/domain/report/index.ts';
import { CliError } from './cli-error.ts';
import { type CommandPath, OPTION_TABLE, type OptionSpec, type OptionValue } from './option-table.ts';
import type { BureauPrice, CommandOptions } from './option-types.ts';

/**
 * Commander's options made from the table (option-table.ts): each value parsed and its range enforced by its type,
 * the range said in `--help`, and the options refused together (or without each other) refused before the command
 * runs, in one line.
 */

/** A decimal as people write it: `12`, `0.5`, `.5`, `1e3`; never hex, binary, `Infinity` or an empty string. */
const DECIMAL = /^\+?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;
/** A whole number in decimal digits. */
const WHOLE = /^\+?\d+$/;
/** Longer than any path the file system takes. */
const MAX_PATH_LENGTH = 4096;
/** ISO 8601 as `--fetched-at` takes it: a date, or a date and time with an optional offset. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** The long name of an option without its dashes: `state`, `no-state`, `emulator-rate-limit`. */
export function optionName(spec: OptionSpec): string {
  return /--([a-z0-9-]+)/i.exec(spec.flags)?.[1] ?? spec.flags;
}

const flag = (name: string) => `--${name}`;

function inRange(number: number, min: number, max: number, above = false): boolean {
  return (above ? number > min : number >= min) && number <= max;
}

/** `1–100 queries`, `above 0, at most 3600 s`: a range as help, docs and refusals say it. */
function rangeText(min: number, max: number, unit: string | undefined, above = false): string {
  const suffix = unit === undefined ? '' : ` ${unit}`;
  return above ? `above ${min}, at most ${max}${suffix}` : `${min}–${max}${suffix}`;
}

/** The refusal of a base URL that may not receive the account token, or null for one that may. */
export function baseUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not hold a user name or password';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.test(url.hostname)) return null;
  return 'must be an https:// URL (http:// only on this machine: 127.0.0.1, localhost or [::1])';
}

/** A price in BRL: a decimal with a point or a Brazilian comma (`2.70`, `2,70`, `R$ 2,70`), above 0 and at most `max`. */
function price(name: string, text: string, max: number): number {
  const bare = text.trim().replace(/^R\$\s*/i, '');
  const number = /^\d+([.,]\d{1,2})?$/.test(bare) ? Number(bare.replace(',', '.')) : Number.NaN;
  if (!(number > 0 && number <= max))
    throw new InvalidArgumentError(`${name} must be a price in BRL above 0 and at most ${max} (e.g. 2,70)`);
  return number;
}

/** `a=2,70`: a bureau of the registry, then its price. */
function bureauPrice(name: string, text: string, max: number): BureauPrice {
  const [bureau = '', value] = text.split('=', 2);
  if (value === undefined || !isBureau(bureau.trim()))
    throw new InvalidArgumentError(
      `${name} must be <bureau>=<price>, a bureau of ${BUREAUS.join(', ')} (e.g. a=2,70)`,
    );
  return { bureau: bureau.trim() as Bureau, price: price(name, value, max) };
}

function path(name: string, input: string): string {
  if (input === '')
    throw new InvalidArgumentError(`${name} must not be empty (an empty path is the current folder)`);
  if (input.length > MAX_PATH_LENGTH)
    throw new InvalidArgumentError(`${name} is longer than any path (${MAX_PATH_LENGTH} characters)`);
  return input;
}

function jsonObject(name: string, text: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidArgumentError(`${name} must be a JSON object, e.g. '{"theme":"dark"}'`);
  // Parsed JSON, and an object: what a JsonObject is.
  return parsed as JsonObject;
}

function text(name: string, value: string, spec: Extract<OptionValue, { type: 'text' }>): string {
  if (value.trim() === '') throw new InvalidArgumentError(`${name} must not be empty`);
  if ([...value].length > spec.maxLength)
    throw new InvalidArgumentError(`${name} must be at most ${spec.maxLength} characters`);
  if (spec.pattern !== undefined && !spec.pattern.test(value))
    throw new InvalidArgumentError(`${name} must be ${spec.patternText ?? `like ${spec.pattern}`}`);
  return value;
}

type NumericValue = Extract<
  OptionValue,
  { type: 'integer' | 'number' | 'duration' | 'rate' | 'probability' }
>;

/** The parser of a numeric value: a decimal (a whole number for integers) within the value's range. */
function numericParser(name: string, value: NumericValue): (text: string) => number {
  if (value.type === 'integer')
    return (input) => {
      const number = WHOLE.test(input.trim()) ? Number(input.trim()) : Number.NaN;
      if (!(Number.isSafeInteger(number) && inRange(number, value.min, value.max)))
        throw new InvalidArgumentError(
          `${name} must be a whole number, ${rangeText(value.min, value.max, value.unit)}`,
        );
      return number;
    };
  const [min, max, above, message] =
    value.type === 'probability'
      ? [0, 1, false, `${name} must be between 0 and 1`]
      : value.type === 'rate'
        ? [
            value.min,
            value.max,
            false,
            `${name} must be at least ${value.min} requests per second (one every ${1 / value.min} s) and at most ${value.max}`,
          ]
        : [
            value.min,
            value.max,
            value.type === 'number' && value.above === true,
            `${name} must be a number, ${rangeText(value.min, value.max, value.unit, value.type === 'number' && value.above === true)}`,
          ];
  return (input) => {
    const number = DECIMAL.test(input.trim()) ? Number(input.trim()) : Number.NaN;
    if (!(Number.isFinite(number) && inRange(number, min, max, above)))
      throw new InvalidArgumentError(message);
    return number;
  };
}

/** The parser of an option's value: it returns the value the command gets, or refuses naming the option. */
export function parserOf(name: string, value: OptionValue): ((text: string) => unknown) | null {
  switch (value.type) {
    case 'flag':
    case 'negation':
    case 'choice':
      return null;
    case 'integer':
    case 'number':
    case 'duration':
    case 'rate':
    case 'probability':
      return numericParser(name, value);
    case 'price':
      return (input) => price(name, input, value.max);
    case 'bureau-price':
      return (input) => bureauPrice(name, input, value.max);
    case 'text':
      return (input) => text(name, input, value);
    case 'path':
      return (input) => path(name, input);
    case 'url':
      return (input) => {
        const problem = baseUrlProblem(input);
        if (problem !== null) throw new InvalidArgumentError(`${name} ${problem}`);
        return input;
      };
    case 'month':
      return (input) => {
        if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(input)) throw new InvalidArgumentError(`${name} must be YYYY-MM`);
        return input;
      };
    case 'timestamp':
      return (input) => {
        if (!(TIMESTAMP.test(input) && Number.isFinite(Date.parse(input))))
          throw new InvalidArgumentError(
            `${name} must be an ISO 8601 date or time, e.g. 2026-11-24T10:00:00-03:00`,
          );
        return input;
      };
    case 'json-object':
      return (input) => jsonObject(name, input);
    case 'header':
      return (input) => contractParser(name, () => parseWebhookHeader(input));
    case 'list':
      return value.of === 'alert-events'
        ? (input) => contractParser(name, () => parseAlertEventList(input))
        : (input) => contractParser(name, () => parseChangeKindList(input));
  }
}

/** A contract's parser (src/contract/webhooks.ts), its refusal said as the option's. */
function contractParser<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new InvalidArgumentError(`${name} ${(error as Error).message}`);
  }
}

/** What an option's value may be, in words (`1–100`, `0–600000 ms`), or null when its flags say it all. */
export function valueText(value: OptionValue): string | null {
  switch (value.type) {
    case 'integer':
      return `whole number, ${rangeText(value.min, value.max, value.unit)}`;
    case 'number':
      return rangeText(value.min, value.max, value.unit, value.above);
    case 'duration':
      return rangeText(value.min, value.max, value.unit);
    case 'rate':
      return rangeText(value.min, value.max, 'requests/s');
    case 'probability':
      return '0–1';
    case 'price':
      return `BRL, above 0, at most ${value.max}`;
    case 'bureau-price':
      return `<bureau>=<BRL>, bureau one of ${BUREAUS.join(', ')}, price above 0, at most ${value.max}`;
    case 'text':
      return value.patternText ?? null;
    case 'url':
      return 'https://, or http:// on this machine';
    case 'timestamp':
      return 'ISO 8601';
    case 'json-object':
      return 'a JSON object';
    case 'header':
      return 'Name: value';
    case 'list':
      return 'comma-separated';
    default:
      return null;
  }
}

/** The options an option is refused with (among `specs`, its command's), and those it needs, as help and docs say them. */
export function relationText(spec: OptionSpec, specs: readonly OptionSpec[]): string[] {
  const name = optionName(spec);
  const conflicting = specs
    .flatMap((other) => {
      const otherName = optionName(other);
      if (spec.conflicts?.some((relation) => relation.option === otherName)) return [otherName];
      if (other.conflicts?.some((relation) => relation.option === name)) return [otherName];
      return [];
    })
    .map(flag);
  return [
    ...(conflicting.length > 0 ? [`not with ${conflicting.join(', ')}`] : []),
    ...(spec.requires ?? []).map((relation) => `needs ${flag(relation.option)}`),
  ];
}

/** How an option's default is said, or null when it has none worth saying (a switch is off unless given). */
function defaultText(spec: OptionSpec): string | null {
  if (spec.default === undefined || spec.value.type === 'flag' || spec.value.type === 'negation') return null;
  if (spec.default.text !== undefined) return spec.default.text;
  const value = defaultOf(spec);
  return value === undefined ? null : String(value);
}

/**
 * The notes help and docs add to an option's description: what its value may be, the options it is refused with or
 * needs, and its default.
 */
export function optionNotes(spec: OptionSpec, specs: readonly OptionSpec[]): string[] {
  const value =
    spec.value.type === 'choice' ? `one of ${spec.value.choices.join(', ')}` : valueText(spec.value);
  const fallback = defaultText(spec);
  return [
    ...(value === null ? [] : [value]),
    ...relationText(spec, specs),
    ...(fallback === null ? [] : [`default: ${fallback}`]),
    ...(spec.required ? ['required'] : []),
    ...(spec.repeatable ? ['repeatable'] : []),
  ];
}

/** The help of the table's options, which says choices and defaults itself (commander's would say them twice). */
const HELP_OF = new WeakMap<Option, string>();

function optionDescription(option: Option): string {
  return HELP_OF.get(option) ?? new Help().optionDescription(option);
}

/** The default an option takes when it is not given (a function default is called now). */
function defaultOf(spec: OptionSpec): unknown {
  const value = spec.default?.value;
  return typeof value === 'function' ? (value as () => unknown)() : value;
}

/** Types whose values are often secrets (a header with the receiver's key): refused without repeating them. */
const SECRET_VALUE_TYPES: ReadonlySet<OptionValue['type']> = new Set(['header']);

/**
 * The parser commander calls for `spec`. Commander's refusal repeats the value (`argument '…' is invalid`), so a
 * secret value's refusal is made a one-line error of our own instead, which says only what the parser said.
 */
function commanderParser(spec: OptionSpec): ((input: string) => unknown) | null {
  const parse = parserOf(flag(optionName(spec)), spec.value);
  if (parse === null || !SECRET_VALUE_TYPES.has(spec.value.type)) return parse;
  return (input) => {
    try {
      return parse(input);
    } catch (error) {
      if (error instanceof InvalidArgumentError) throw new CliError(error.message);
      throw error;
    }
  };
}

function commanderOption(spec: OptionSpec, specs: readonly OptionSpec[]): Option {
  const notes = optionNotes(spec, specs);
  const option = new Option(spec.flags, spec.description);
  HELP_OF.set(option, notes.length > 0 ? `${spec.description} (${notes.join('; ')})` : spec.description);
  if (spec.value.type === 'choice') option.choices(spec.value.choices);
  const parse = commanderParser(spec);
  if (parse !== null && spec.repeatable)
    option.argParser((input: string, previous: unknown) => [
      ...(Array.isArray(previous) ? previous : []),
      parse(input),
    ]);
  else if (parse !== null) option.argParser(parse);
  if (spec.default !== undefined) option.default(defaultOf(spec), spec.default.text);
  if (spec.required) option.makeOptionMandatory();
  return option;
}

/**
 * The first refusal the options given call for: two that cannot go together, or one without another it needs;
 * null when there is none.
 */
function relationProblem(specs: readonly OptionSpec[], given: ReadonlySet<string>): string | null {
  for (const spec of specs) {
    const name = optionName(spec);
    if (!given.has(name)) continue;
    for (const relation of spec.conflicts ?? [])
      if (given.has(relation.option))
        return relation.message ?? `${flag(name)} cannot be used with ${flag(relation.option)}`;
    for (const relation of spec.requires ?? [])
      if (!given.has(relation.option))
        return relation.message ?? `${flag(name)} needs ${flag(relation.option)}`;
  }
  return null;
}

/**
 * Adds the options the table lists for the command at `path`, in its order, and refuses (one line, exit 2) the
 * combinations it forbids before the command's action runs. Options typed count, defaults do not.
 */
export function addTableOptions(command: Command, path: CommandPath): Command {
  const specs: readonly OptionSpec[] = OPTION_TABLE[path];
  command.configureHelp({ ...command.configureHelp(), optionDescription });
  const given = new Set<string>();
  for (const spec of specs) {
    const option = commanderOption(spec, specs);
    command.addOption(option);
    command.on(`option:${option.name()}`, () => given.add(option.name()));
  }
  // Called for the command's own action and its subcommands' (an option of `studio` given to `studio generate`).
  command.hook('preAction', () => {
    const problem = relationProblem(specs, given);
    if (problem !== null) throw new CliError(problem);
  });
  return command;
}

/**
 * Adds the options the table lists for the command at `path` ({@link addTableOptions}) and its action, which is
 * called with the options object typed from the table ({@link CommandOptions}), then the command's arguments and
 * the command itself, as commander passes them. The options come first so that TypeScript takes their type from
 * `path` while it infers the arguments' from their annotations: an action that reads an option the table does not
 * list, or reads one as another type, does not compile.
 */
export function addTableAction<Path extends CommandPath, Args extends unknown[]>(
  command: Command,
  path: Path,
  action: (options: CommandOptions<Path>, ...args: Args) => void | Promise<void>,
): Command {
  return addTableOptions(command, path).action((...given: unknown[]) => {
    // Commander's order: the arguments, then the options object, then the command.
    const options = given[given.length - 2] as CommandOptions<Path>;
    return action(options, ...([...given.slice(0, -2), given[given.length - 1]] as Args));
  });
}
