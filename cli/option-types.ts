import type { JsonObject } from '../service-client/index.ts';
import type {
  parseAlertEventList,
  parseChangeKindList,
  parseWebhookHeader,
} from '../src/contract/webhooks.ts';
import type { Bureau } from '../src/domain/report/index.ts';
import type { OptionSpec, OptionValue } from './option-spec.ts';
import type { CommandPath, OPTION_TABLE } from './option-table.ts';

/**
 * The options object commander hands a command's action, derived from the option table (option-table.ts), so
 * that adding an option is one entry there: no interface to keep in step with it. Types only.
 *
 * Commander's rules, as `Option.attributeName()` and `Command.addOption()` apply them:
 * - the key is the long name in camelCase (`--rate-limit` → `rateLimit`), `no-` dropped from a negation;
 * - a negation (`--no-wait`) gives `false`, and `true` by default when no positive option of that name exists;
 *   with one listed before it (`--state <dir>`, then `--no-state`) the key holds the positive's value, its default,
 *   or `false` (`string | false`);
 * - a value is what its parser returns (option-parsers.ts), and a repeatable option's is an array of them;
 * - a key is always there when its option is required or has a default that is never `undefined` (a default given
 *   only as text, `{ value: undefined, text: 'this month' }`, sets nothing), otherwise it is optional.
 */

/** `--price a=2,70` as its parser (option-parsers.ts) gives it. */
export interface BureauPrice {
  readonly bureau: Bureau;
  readonly price: number;
}

/**
 * What the parser of each value type (option-parsers.ts, `parserOf`) returns; types without a parser give what
 * commander does: `true` for a switch, the string itself for a choice. Indexed by every `OptionValue` type, so a
 * new type fails to compile until it is said here.
 */
interface ParsedValues<Value extends OptionValue> {
  readonly flag: boolean;
  readonly negation: boolean;
  readonly integer: number;
  readonly number: number;
  readonly duration: number;
  readonly rate: number;
  readonly probability: number;
  readonly price: number;
  readonly choice: Value extends { readonly choices: readonly (infer Choice)[] } ? Choice : never;
  readonly text: string;
  readonly path: string;
  readonly url: string;
  readonly month: string;
  readonly timestamp: string;
  readonly 'json-object': JsonObject;
  readonly 'bureau-price': BureauPrice;
  readonly header: ReturnType<typeof parseWebhookHeader>;
  readonly list: Value extends { readonly of: 'alert-events' }
    ? ReturnType<typeof parseAlertEventList>
    : ReturnType<typeof parseChangeKindList>;
}

/** The long name in `flags`, without its dashes: `--rate-limit <req/s>` → `rate-limit`. */
type LongName<Flags extends string> = Flags extends `${string}--${infer Rest}`
  ? Rest extends `${infer Name} ${string}`
    ? Name
    : Rest
  : never;

/** Commander's `camelcase`: `job-step-ms` → `jobStepMs`. */
type CamelCase<Name extends string> = Name extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : Name;

/** The key of an option that is not a negation (never for `--no-…`). */
type PositiveKey<Spec extends OptionSpec> = Spec extends unknown
  ? LongName<Spec['flags']> extends `no-${string}`
    ? never
    : CamelCase<LongName<Spec['flags']>>
  : never;

/** The key a negation sets: `--no-state` → `state` (never for any other option). */
type NegatedKey<Spec extends OptionSpec> = Spec extends unknown
  ? LongName<Spec['flags']> extends `no-${infer Positive}`
    ? CamelCase<Positive>
    : never
  : never;

/** The options among `Spec` (a union) that set `Key`, not counting negations. */
type PositivesNamed<Spec extends OptionSpec, Key extends string> = Spec extends unknown
  ? Key extends PositiveKey<Spec>
    ? Spec
    : never
  : never;

/** What a positive option's parser gives: an array of every value for a repeatable one with a parser. */
type ParsedValue<Spec extends OptionSpec> = ParsedValues<
  Spec['value']
>[Spec['value']['type']] extends infer Value
  ? Spec['repeatable'] extends true
    ? Spec['value']['type'] extends 'flag' | 'negation' | 'choice'
      ? Value
      : readonly Value[]
    : Value
  : never;

/** An option's default as commander keeps it (a function is called), undefined when it has none. */
type DefaultValueOf<Spec extends OptionSpec> = Spec extends {
  readonly default: { readonly value: infer Value };
}
  ? Value extends () => infer Called
    ? Called
    : Value
  : undefined;

/** The value an option's default gives its key (never when it gives none: commander sets no undefined default). */
type DefaultOf<Spec extends OptionSpec> = Exclude<DefaultValueOf<Spec>, undefined>;

/** Whether commander always sets an option's key: a required option, or one whose default is never undefined. */
type AlwaysSet<Spec extends OptionSpec> = Spec extends { readonly required: true }
  ? true
  : undefined extends DefaultValueOf<Spec>
    ? false
    : true;

type Keys<Spec extends OptionSpec> = PositiveKey<Spec> | NegatedKey<Spec>;

/** What `Key` holds: its positive option's value or default, and `false` (or a boolean) from its negation. */
type ValueOf<Spec extends OptionSpec, Key extends string> = [
  | (PositivesNamed<Spec, Key> extends infer Positive extends OptionSpec
      ? ParsedValue<Positive> | DefaultOf<Positive>
      : never)
  | (Key extends NegatedKey<Spec> ? (Key extends PositiveKey<Spec> ? false : boolean) : never),
][0];

/** The keys always there: a lone negation's (true by default), and those of required or defaulted options. */
type SetKeys<Spec extends OptionSpec> =
  | Exclude<NegatedKey<Spec>, PositiveKey<Spec>>
  | {
      [Key in PositiveKey<Spec>]: true extends AlwaysSet<PositivesNamed<Spec, Key>> ? Key : never;
    }[PositiveKey<Spec>];

/** One object type instead of an intersection, as editors and errors show it. */
type Flatten<Type> = { [Key in keyof Type]: Type[Key] } & {};

/**
 * The options object commander hands the action of a command whose options are `Specs` (a row of the table, or a
 * group of options as option-groups.ts holds them, for a module that reads only those).
 */
export type OptionsOf<Specs extends readonly OptionSpec[]> = Flatten<
  { readonly [Key in SetKeys<Specs[number]>]: ValueOf<Specs[number], Key> } & {
    readonly [Key in Exclude<Keys<Specs[number]>, SetKeys<Specs[number]>>]?: ValueOf<Specs[number], Key>;
  }
>;

/** Every command's options, made once. */
type TableOptions = { readonly [Path in CommandPath]: OptionsOf<(typeof OPTION_TABLE)[Path]> };

/** The options object commander hands the action of the command at `Path` (`screen`, `studio generate`). */
export type CommandOptions<Path extends CommandPath> = TableOptions[Path];
