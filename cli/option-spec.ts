/**
 * What the option table (option-table.ts) says of each option: its value, default and relations. Types only, so
 * the files that hold groups of options (webhook-options.ts) and the table can share them.
 */

/** What an option's value is. Ranges are inclusive unless said otherwise. */
export type OptionValue =
  /** A switch: `--json`. */
  | { readonly type: 'flag' }
  /** A switch that turns a default off: `--no-state`, `--no-wait`. */
  | { readonly type: 'negation' }
  /** A whole number written in decimal digits (`1e3`, `0x10` and `1.0` are refused). */
  | { readonly type: 'integer'; readonly min: number; readonly max: number; readonly unit?: string }
  /** A decimal number. `above` makes the minimum exclusive (a timeout of 0 means nothing). */
  | {
      readonly type: 'number';
      readonly min: number;
      readonly max: number;
      readonly unit: string;
      readonly above?: boolean;
    }
  /**
   * A time some timer waits for: at most {@link MAX_TIMER_MS} once in milliseconds, past which Node's timers fire
   * at once (a `TimeoutOverflowWarning`) instead of waiting.
   */
  | { readonly type: 'duration'; readonly unit: DurationUnit; readonly min: number; readonly max: number }
  /** Requests per second: zero would never let one through, a rate far below the minimum outlasts a timer. */
  | { readonly type: 'rate'; readonly min: number; readonly max: number }
  /** A share, 0 to 1. */
  | { readonly type: 'probability' }
  /** A price in BRL above 0 (`2.70`, `2,70`, `R$ 2,70`). */
  | { readonly type: 'price'; readonly max: number }
  | { readonly type: 'choice'; readonly choices: readonly string[] }
  /** Free text: never empty nor blank, at most `maxLength` characters (code points), and `pattern` when given. */
  | {
      readonly type: 'text';
      readonly maxLength: number;
      readonly pattern?: RegExp;
      /** What `pattern` asks for, in words. */
      readonly patternText?: string;
    }
  /** A path on this machine (never empty: an empty path would mean the current folder). */
  | { readonly type: 'path'; readonly of: 'file' | 'folder' }
  /** The base URL of a service that gets the account token: https, or http on a loopback address. */
  | { readonly type: 'url' }
  | { readonly type: 'month' }
  | { readonly type: 'timestamp' }
  | { readonly type: 'json-object' }
  /** A bureau and the price of one of its queries: `a=2,70`. */
  | { readonly type: 'bureau-price'; readonly max: number }
  /** An HTTP header, `Name: value`. */
  | { readonly type: 'header' }
  /** A comma-separated list of names from the alert catalogue: detail-types, or change kinds. */
  | { readonly type: 'list'; readonly of: 'alert-events' | 'change-kinds' };

export type DurationUnit = 'ms' | 's';

/** The longest wait a Node timer takes (2^31 - 1 ms, about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Milliseconds in one unit of a duration. */
export const DURATION_UNIT_MS: Readonly<Record<DurationUnit, number>> = { ms: 1, s: 1000 };

/** Another option this one is refused with, or needs, and why (said in the refusal). */
export interface OptionRelation {
  /** Its long name without the dashes: `state`, `no-state`. */
  readonly option: string;
  /** The refusal's line (when absent: `--a cannot be used with --b`, or `--a needs --b`). */
  readonly message?: string;
}

export interface OptionSpec {
  /** As commander takes it: `--concurrency <n>`, `--json`, `--no-state`. */
  readonly flags: string;
  readonly description: string;
  readonly value: OptionValue;
  /** The value when the option is not given; a function is called when the command is registered. */
  readonly default?: DefaultValue;
  /** Must be given. */
  readonly required?: boolean;
  /** Options refused together with this one (said once, on either side). */
  readonly conflicts?: readonly OptionRelation[];
  /** Options this one is refused without. */
  readonly requires?: readonly OptionRelation[];
  /** May be given several times; the command gets every value, in order. */
  readonly repeatable?: boolean;
}

interface DefaultValue {
  readonly value: unknown | (() => unknown);
  /** How help and docs say it, when not the value itself (`this month`, `$CREDIT_SCREEN_BASE_URL`). */
  readonly text?: string;
}
