import { Command, CommanderError } from 'commander';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { DEFAULT_STATE_DIRECTORY } from '../../cli/local/local-state.ts';
import { addTableAction } from '../../cli/option-parsers.ts';
import { type CommandPath, OPTION_TABLE } from '../../cli/option-table.ts';
import type { BureauPrice, CommandOptions, OptionsOf } from '../../cli/option-types.ts';
import { DEFAULT_WEBHOOK_RETRY_SECONDS, type WEBHOOK_OPTIONS } from '../../cli/webhook-options.ts';
import type { AlertEventType, WebhookHeader } from '../../src/contract/index.ts';
import { DEFAULT_SETTINGS } from '../../src/contract/index.ts';
import { DEFAULT_REPORT_LANGUAGE } from '../../src/domain/batch-report/report-language.ts';
import type { ChangeKind } from '../../src/domain/monitoring/index.ts';
import type { Bureau } from '../../src/domain/report/index.ts';

/** The keys of `Options` that are always there: what commander sets when no option is given. */
type AlwaysThere<Options> = {
  [Key in keyof Options as object extends Pick<Options, Key> ? never : Key]: Options[Key];
};

/** The options object the action of the command at `path` gets from `argv`, registered as the CLI does. */
async function optionsFrom<Path extends CommandPath>(
  path: Path,
  argv: readonly string[],
): Promise<CommandOptions<Path>> {
  let given: CommandOptions<Path> | undefined;
  const command = addTableAction(new Command(path).exitOverride(), path, (options) => {
    given = options;
  });
  await command.parseAsync([...argv], { from: 'user' });
  if (given === undefined) throw new Error(`${path}: the action did not run`);
  return given;
}

// Runtime: what commander really hands the action, against a literal the derived type checks. `satisfies
// AlwaysThere<…>` fails to compile when the literal lacks a key the type says is always there, or holds one it says
// is optional; toStrictEqual fails when commander sets any other key, or another value.
describe('the options object commander hands an action registered from the table', () => {
  it('holds, with no option given, exactly the keys the type says are always there', async () => {
    const screen = await optionsFrom('screen', []);

    expect(screen).toStrictEqual({
      bureau: DEFAULT_SETTINGS.defaultBureau,
      lang: DEFAULT_REPORT_LANGUAGE,
      state: DEFAULT_STATE_DIRECTORY,
      epoch: 0,
      emulatorLatency: 0,
      emulatorErrorRate: 0,
      webhookRetrySeconds: DEFAULT_WEBHOOK_RETRY_SECONDS,
    } satisfies AlwaysThere<CommandOptions<'screen'>>);
  });

  it('gives every option of screen under its camelCase key, as the type says', async () => {
    const screen = await optionsFrom('screen', [
      ...['--out', 'results', '--stagger', '1.5', '--priority', '--new-batch', '--bureau', 'b', '--excel'],
      ...['--policy', 'policy.json', '--approve-above', '10', '--yes', '--max-charges', '5'],
      ...[
        '--monthly-cap',
        '100',
        '--price',
        'a=2,70',
        '--price',
        'b=1.5',
        '--price-a',
        '2,70',
        '--price-b',
        '3',
      ],
      ...['--lang', 'en', '--concurrency', '4', '--rate-limit', '2.5', '--freshness-hours', '12'],
      ...['--rebuy-charge-unknown', '--state', 'kept', '--engine', 'memory', '--fresh', '--token', 'secret'],
      ...[
        '--epoch',
        '3',
        '--emulator-latency',
        '20',
        '--emulator-error-rate',
        '0.25',
        '--emulator-rate-limit',
        '7',
      ],
      ...['--webhook', 'https://hooks.example/a', '--webhook', 'https://hooks.example/b'],
      ...['--webhook-header', 'X-Api-Key: s3cr3t', '--webhook-events', 'BatchCompleted,DocumentChanged'],
      ...['--webhook-change-kinds', 'score_drop', '--webhook-documents', '--webhook-retry-seconds', '5'],
    ]);

    expect(screen).toStrictEqual({
      out: 'results',
      stagger: 1.5,
      priority: true,
      newBatch: true,
      bureau: 'b',
      excel: true,
      policy: 'policy.json',
      approveAbove: 10,
      yes: true,
      maxCharges: 5,
      monthlyCap: 100,
      price: [
        { bureau: 'a', price: 2.7 },
        { bureau: 'b', price: 1.5 },
      ],
      priceA: 2.7,
      priceB: 3,
      lang: 'en',
      concurrency: 4,
      rateLimit: 2.5,
      freshnessHours: 12,
      rebuyChargeUnknown: true,
      state: 'kept',
      engine: 'memory',
      fresh: true,
      token: 'secret',
      epoch: 3,
      emulatorLatency: 20,
      emulatorErrorRate: 0.25,
      emulatorRateLimit: 7,
      webhook: ['https://hooks.example/a', 'https://hooks.example/b'],
      webhookHeader: [{ name: 'X-Api-Key', value: 's3cr3t' }],
      webhookEvents: ['BatchCompleted', 'DocumentChanged'],
      webhookChangeKinds: ['score_drop'],
      webhookDocuments: true,
      webhookRetrySeconds: 5,
      // --base-url and --live are refused with the emulator's options: the next test gives them.
    } satisfies Omit<Required<CommandOptions<'screen'>>, 'baseUrl' | 'live'>);
  });

  it('gives --no-state as state: false, beside --live and --base-url', async () => {
    const screen = await optionsFrom('screen', [
      '--no-state',
      '--live',
      '--base-url',
      'https://bureau.example',
    ]);

    expect(screen).toMatchObject({
      state: false,
      live: true,
      baseUrl: 'https://bureau.example',
    } satisfies Partial<CommandOptions<'screen'>>);
  });

  it('gives a required option, and refuses the command without it', async () => {
    const decide = await optionsFrom('decide', ['--policy', 'policy.json']);

    expect(decide).toStrictEqual({
      policy: 'policy.json',
      state: DEFAULT_STATE_DIRECTORY,
    } satisfies AlwaysThere<CommandOptions<'decide'>>);
    await expect(optionsFrom('decide', [])).rejects.toThrow(CommanderError);
  });

  it('gives a lone negation as a switch that is on unless given', async () => {
    const waiting = await optionsFrom('redrive', []);
    const notWaiting = await optionsFrom('redrive', ['--stack', 'credit-screen', '--no-wait']);

    expect(waiting).toStrictEqual({
      state: DEFAULT_STATE_DIRECTORY,
      wait: true,
      epoch: 0,
    } satisfies AlwaysThere<CommandOptions<'redrive'>>);
    expect(notWaiting.wait).toBe(false);
  });

  it('gives each value of a repeatable option, in order', async () => {
    const test = await optionsFrom('webhook test', ['--webhook-header', 'A: 1', '--webhook-header', 'B: 2']);

    expect(test).toStrictEqual({
      webhookHeader: [
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ],
      webhookRetrySeconds: DEFAULT_WEBHOOK_RETRY_SECONDS,
    } satisfies CommandOptions<'webhook test'>);
  });

  it('passes the options first, then the arguments and the command', async () => {
    const calls: [CommandOptions<'status'>, string, string][] = [];
    const command = addTableAction(
      new Command('status').argument('<batchId>').exitOverride(),
      'status',
      (options, batchId: string, self: Command) => {
        calls.push([options, batchId, self.name()]);
      },
    );

    await command.parseAsync(['b-1', '--json'], { from: 'user' });

    expect(calls).toStrictEqual([[{ state: DEFAULT_STATE_DIRECTORY, json: true }, 'b-1', 'status']]);
  });
});

describe('the options types made from the table', () => {
  it('types screen: parsers’ values, choices, arrays, and --state merged with --no-state', () => {
    type Screen = CommandOptions<'screen'>;

    expectTypeOf<Screen['state']>().toEqualTypeOf<string | false>();
    expectTypeOf<Screen['bureau']>().toEqualTypeOf<Bureau>();
    expectTypeOf<Screen['engine']>().toEqualTypeOf<'dynamodb-local' | 'memory' | undefined>();
    expectTypeOf<Screen['price']>().toEqualTypeOf<readonly BureauPrice[] | undefined>();
    expectTypeOf<Screen['priceA']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Screen['webhookHeader']>().toEqualTypeOf<readonly WebhookHeader[] | undefined>();
    expectTypeOf<Screen['webhookEvents']>().toEqualTypeOf<AlertEventType[] | undefined>();
    expectTypeOf<Screen['webhookRetrySeconds']>().toEqualTypeOf<number>();
    expectTypeOf<Screen>().not.toHaveProperty('noState');
    expectTypeOf<Screen>().not.toHaveProperty('name');
  });

  it('types rescreen with its own options, and without screen’s', () => {
    type Rescreen = CommandOptions<'rescreen'>;

    expectTypeOf<Rescreen['name']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Rescreen['maxAgeHours']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Rescreen['lang']>().toEqualTypeOf<'pt-BR' | 'en'>();
    expectTypeOf<Rescreen>().not.toHaveProperty('stagger');
  });

  it('types decide, redrive and webhook test whole', () => {
    expectTypeOf<CommandOptions<'decide'>>().toEqualTypeOf<{
      readonly policy: string;
      readonly out?: string;
      readonly json?: boolean;
      readonly stack?: string;
      readonly state: string;
    }>();
    expectTypeOf<CommandOptions<'redrive'>>().toEqualTypeOf<{
      readonly stack?: string;
      readonly state: string;
      readonly wait: boolean;
      readonly out?: string;
      readonly epoch: number;
      readonly json?: boolean;
      readonly chargeUnknown?: boolean;
      readonly yes?: boolean;
    }>();
    expectTypeOf<CommandOptions<'webhook test'>>().toEqualTypeOf<{
      readonly webhookHeader?: readonly WebhookHeader[];
      readonly webhookEvents?: AlertEventType[];
      readonly webhookChangeKinds?: ChangeKind[];
      readonly webhookDocuments?: boolean;
      readonly webhookRetrySeconds: number;
      readonly json?: boolean;
    }>();
  });

  it('types a group of options as the commands that hold it get it', () => {
    type Webhooks = OptionsOf<typeof WEBHOOK_OPTIONS>;

    expectTypeOf<Webhooks['webhook']>().toEqualTypeOf<readonly string[] | undefined>();
    expectTypeOf<Omit<Webhooks, 'webhook'>>().toEqualTypeOf<Omit<CommandOptions<'webhook test'>, 'json'>>();
  });

  it('refuses, at compile time, an option the table does not list or a value of another type', () => {
    const screen = new Command('screen');
    const decide = new Command('decide');

    // @ts-expect-error: screen has no --dry-run
    addTableAction(screen, 'screen', (options) => options.dryRun);
    // @ts-expect-error: --policy is required, and a path, never a number
    addTableAction(decide, 'decide', (options: { readonly policy: number }) => options.policy);
    // @ts-expect-error: a required option is never undefined
    expectTypeOf<CommandOptions<'decide'>['policy']>().toEqualTypeOf<string | undefined>();

    expect(screen.options.map((option) => option.long)).toContain('--stagger');
    expect(decide.options.map((option) => option.long)).toContain('--policy');
  });
});

describe('the option table', () => {
  it('lists a negation (--no-x) after its option (--x), the order the derived types assume', () => {
    // Commander makes --x default to true when --no-x comes first; the types say optional and `string | false`.
    const misplaced = Object.entries(OPTION_TABLE).flatMap(([path, specs]) => {
      const names = specs.map((spec) => /--(no-)?([a-z0-9-]+)/.exec(spec.flags));
      return names.flatMap((name, index) => {
        if (name?.[1] === undefined) return [];
        const positive = names.findIndex((other) => other?.[1] === undefined && other?.[2] === name[2]);
        return positive > index ? [`${path}: --no-${name[2]}`] : [];
      });
    });

    expect(misplaced).toEqual([]);
  });
});
