/**
 * The construct's props, and their checks: everything `cdk synth` refuses before a resource is built, each with
 * one line naming what is wrong.
 */

import type { RemovalPolicy } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import {
  type AlertEventType,
  BUREAUS,
  type Bureau,
  type BureauSettings,
  DEFAULT_SETTINGS,
  isAlertEventType,
  isBureau,
  isPortfolioName,
  type PipelineSettings,
  parsePortfolioSettings,
  perBureau,
  publishedChangeKinds,
  type ReportLanguage,
  validateSettings,
} from '../../src/contract/index.ts';
import type { ConsoleProps } from './console.ts';
import type { PortfolioDeclaration } from './portfolios.ts';
import type { PolicyFile } from './shipped-policies.ts';
import { validatedWebhooks, type WebhookProps } from './webhooks.ts';

/**
 * The settings the construct takes as typed props of their own, each with its `@default`: one route per setting,
 * so no precedence between two routes has to be remembered.
 */
const SETTINGS_WITH_THEIR_OWN_PROP = [
  'bureaus',
  'workerConcurrency',
  'callsPerInvocation',
  'freshnessHours',
  'retentionDays',
  'excelSummary',
  'defaultBureau',
  'portfolioSchedule',
  'scoreChangePoints',
  'reportLanguage',
  'rebuyChargeUnknown',
] as const satisfies readonly (keyof PipelineSettings & keyof CreditScreenPipelineProps)[];
type SettingWithItsOwnProp = (typeof SETTINGS_WITH_THEIR_OWN_PROP)[number];

/** Props of {@link CreditScreenPipeline}. Everything but the bureau's URL has a secure, working default. */
export interface CreditScreenPipelineProps {
  /**
   * The console for the people who decide credit: a Cognito user pool with one group per role, and the console's
   * HTTP API (every route behind the pool's JWT authorizer) answered by its own function.
   * @default none: no console is deployed (`credit-screen console` still serves one on a laptop)
   */
  readonly console?: ConsoleProps;
  /** Base URL of the bureau API gateway, e.g. `https://gateway.example.com`. */
  readonly bureauBaseUrl: string;
  /**
   * Secret holding the bureau token (the bare token, or JSON `{"token": "…"}`). Functions read it at run time; the
   * token is never in an environment variable or the template.
   * @default a new secret, encrypted with the pipeline's key, whose value the operator sets after deploying
   */
  readonly tokenSecret?: secretsmanager.ISecret;
  /**
   * The customer-managed KMS key that encrypts `tokenSecret`, when it is not the pipeline's: the worker is allowed
   * to decrypt with it, through Secrets Manager only. Not needed for a secret encrypted with the AWS-managed key
   * `aws/secretsmanager`, nor when `tokenSecret` already carries its key (`Secret.fromSecretAttributes`).
   * Only with `tokenSecret`: the secret the pipeline creates uses the pipeline's key.
   * @default the key `tokenSecret` carries, if any; none otherwise (a synth warning says so)
   */
  readonly tokenSecretKey?: kms.IKey;
  /**
   * Per bureau of the registry (src/domain/bureau/bureau-registry.ts): requests per second across all workers
   * (`rateLimitPerSecond`), the largest burst (`rateLimitBurst`, by default one second's worth of the rate), the
   * price of a query in BRL (`pricePerQuery`) and the most queries a month (`monthlyChargeCap`, null: no cap). What
   * a bureau's entry leaves out keeps the registry's default.
   * @default each bureau's registry defaults (10 requests/s, burst 10, R$ 8.40, no cap)
   */
  readonly bureaus?: { readonly [Id in Bureau]?: Partial<BureauSettings> };
  /**
   * Concurrent worker invocations (the SQS event source's maximum concurrency; at least 2).
   * @default 5
   */
  readonly workerConcurrency?: number;
  /**
   * Concurrent bureau calls inside one worker invocation.
   * @default 5
   */
  readonly callsPerInvocation?: number;
  /**
   * Reuse a stored report younger than this many hours instead of paying again; 0 turns reuse off.
   * @default 24
   */
  readonly freshnessHours?: number;
  /**
   * Days customer data is kept: S3 objects expire and DynamoDB items carry a TTL (LGPD).
   * @default 90
   */
  readonly retentionDays?: number;
  /**
   * Buy a document again, without asking, when a call for it left and its answer was lost (a worker's timeout or
   * crash mid-call, a bureau call that timed out): that call may have been charged, so the document may be paid
   * twice. Off, such a row ends `failed` with its charge unknown, and only `redrive --charge-unknown` buys it again.
   * @default false
   */
  readonly rebuyChargeUnknown?: boolean;
  /**
   * Write summaries in the Brazilian Excel dialect (`;`, decimal comma, BOM) instead of RFC 4180.
   * @default false
   */
  readonly excelSummary?: boolean;
  /**
   * Bureau used when an upload's key does not name one (`incoming/a/…`, `incoming/b/…`).
   * @default 'a'
   */
  readonly defaultBureau?: Bureau;
  /**
   * Bus that receives `BatchCompleted` events.
   * @default the account's default event bus
   */
  readonly eventBus?: events.IEventBus;
  /**
   * Topic notified when an alarm fires (dead letters, worker errors).
   * @default no action: the alarms only show in CloudWatch
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * What happens to the data stores (bucket, table, key) when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * The other pipeline settings (timeouts, attempts, row limit, prices, caps) over the defaults of
   * `src/contract/settings.ts`. A setting that has a prop of its own is given as that prop only: giving it here too
   * is refused at synth.
   * @default DEFAULT_SETTINGS
   */
  readonly settings?: Partial<Omit<PipelineSettings, SettingWithItsOwnProp>>;
  /**
   * Portfolios re-screened on a schedule declared here (their lists still live at `portfolios/<name>.csv`).
   * Portfolios can also be added at run time by uploading their files, without a redeploy.
   * @default none
   */
  readonly portfolios?: readonly PortfolioDeclaration[];
  /**
   * Schedule of an uploaded portfolio whose settings file gives none; null leaves those on demand only.
   * @default 'rate(7 days)'
   */
  readonly portfolioSchedule?: string | null;
  /**
   * Smallest score move a re-screen's change report lists as `score_drop` or `score_rise`.
   * @default 50
   */
  readonly scoreChangePoints?: number;
  /**
   * Language of each batch's `report.html`: Brazilian Portuguese (`R$ 1.234,56`, `31/12/2026`) or English.
   * @default 'pt-BR'
   */
  readonly reportLanguage?: ReportLanguage;
  /**
   * Credit policies (JDM files) shipped to `policies/` in the bucket when the stack deploys, for uploads, portfolios
   * and `settings.defaultPolicy` to name. Each is compiled at synth with the functions' engine: one that does not
   * compile fails `cdk synth` with one line naming the file and the node. Policies uploaded by hand sit beside them.
   * @default none shipped: policies are uploaded to `policies/`
   */
  readonly policies?: readonly PolicyFile[];
  /**
   * Receivers of the pipeline's events (src/contract/alert-events.ts, docs/alerts.md): each gets an EventBridge rule
   * on `eventBus` with an API destination (its URL, https), a connection that authenticates with a secret given by
   * reference, a retry policy of up to a day, and a dead-letter queue with an alarm. Sets which change kinds send a
   * `DocumentChanged` and whether documents are also published in full (`settings.alertChangeKinds` and
   * `settings.alertFullDocuments`, which are then not given).
   * @default none
   */
  readonly webhooks?: readonly WebhookProps[];
  /**
   * A topic that receives the events too, documents masked, for e-mail or chat subscriptions.
   * @default none
   */
  readonly alertTopic?: sns.ITopic;
  /**
   * The events `alertTopic` receives.
   * @default every event but DocumentChanged (one per changed document); PortfolioChanged lists the worst changes
   */
  readonly alertTopicEvents?: readonly AlertEventType[];
}

/**
 * A whole `PipelineSettings` (the local runner's, a test's) as the construct takes it: the settings that have a prop
 * of their own as those props, the rest in `settings`.
 */
export function propsOfSettings(
  settings: PipelineSettings,
): Pick<CreditScreenPipelineProps, SettingWithItsOwnProp | 'settings'> {
  const own = Object.fromEntries(SETTINGS_WITH_THEIR_OWN_PROP.map((name) => [name, settings[name]]));
  const rest = Object.fromEntries(
    Object.entries(settings).filter(
      ([name]) => !(SETTINGS_WITH_THEIR_OWN_PROP as readonly string[]).includes(name),
    ),
  );
  return { ...own, settings: rest } as Pick<CreditScreenPipelineProps, SettingWithItsOwnProp | 'settings'>;
}

/** Reads props into settings once, rejecting what cannot work, so a bad value fails `cdk synth`, not production. */
function settingsFrom(props: CreditScreenPipelineProps): PipelineSettings {
  let url: URL;
  try {
    url = new URL(props.bureauBaseUrl);
  } catch {
    throw new Error(
      `CreditScreenPipeline: bureauBaseUrl is not a URL: ${JSON.stringify(props.bureauBaseUrl)}`,
    );
  }
  if (url.protocol !== 'https:')
    throw new Error(
      'CreditScreenPipeline: bureauBaseUrl must be https (the token travels with every request)',
    );
  const given = SETTINGS_WITH_THEIR_OWN_PROP.filter((name) => props.settings?.[name as never] !== undefined);
  if (given.length > 0)
    throw new Error(
      `CreditScreenPipeline: ${given.join(', ')} ${given.length === 1 ? 'is a prop' : 'are props'} of its own; give ${given.length === 1 ? 'it' : 'them'} as the prop, not in settings`,
    );
  const base = { ...DEFAULT_SETTINGS, ...props.settings, ...alertSettingsFrom(props) };
  const unknown = Object.keys(props.bureaus ?? {}).filter((id) => !isBureau(id));
  if (unknown.length > 0)
    throw new Error(
      `CreditScreenPipeline: bureaus: unknown bureau ${unknown.join(', ')} (known: ${BUREAUS.join(', ')})`,
    );
  return validateSettings({
    ...base,
    bureaus: perBureau((bureau) => {
      const given = props.bureaus?.[bureau] ?? {};
      const rate = given.rateLimitPerSecond ?? base.bureaus[bureau].rateLimitPerSecond;
      return { ...base.bureaus[bureau], ...given, rateLimitBurst: given.rateLimitBurst ?? Math.max(1, rate) };
    }),
    workerConcurrency: props.workerConcurrency ?? base.workerConcurrency,
    callsPerInvocation: props.callsPerInvocation ?? base.callsPerInvocation,
    freshnessHours: props.freshnessHours ?? base.freshnessHours,
    retentionDays: props.retentionDays ?? base.retentionDays,
    excelSummary: props.excelSummary ?? base.excelSummary,
    defaultBureau: props.defaultBureau ?? base.defaultBureau,
    portfolioSchedule:
      props.portfolioSchedule === undefined ? base.portfolioSchedule : props.portfolioSchedule,
    scoreChangePoints: props.scoreChangePoints ?? base.scoreChangePoints,
    reportLanguage: props.reportLanguage ?? base.reportLanguage,
    rebuyChargeUnknown: props.rebuyChargeUnknown ?? base.rebuyChargeUnknown,
  });
}

/**
 * The alert settings the webhooks call for: the change kinds they select, and whether one asks for documents. Given
 * webhooks, these two are theirs alone: giving them in `settings` as well is refused.
 */
function alertSettingsFrom(props: CreditScreenPipelineProps): Partial<PipelineSettings> {
  const webhooks = validatedWebhooks(props.webhooks ?? []);
  for (const event of props.alertTopicEvents ?? [])
    if (!isAlertEventType(event))
      throw new Error(`CreditScreenPipeline: alertTopicEvents: unknown event ${JSON.stringify(event)}`);
  if (props.alertTopicEvents && !props.alertTopic)
    throw new Error(
      'CreditScreenPipeline: alertTopicEvents chooses what alertTopic receives: give alertTopic',
    );
  if (webhooks.length === 0) return {};
  const derived = (['alertChangeKinds', 'alertFullDocuments'] as const).filter(
    (name) => props.settings?.[name] !== undefined,
  );
  if (derived.length > 0)
    throw new Error(
      `CreditScreenPipeline: ${derived.join(' and ')} follow from webhooks (their changeKinds and includeDocuments); do not give them in settings as well`,
    );
  return {
    alertChangeKinds: publishedChangeKinds(webhooks),
    alertFullDocuments: webhooks.some((webhook) => webhook.includeDocuments === true),
  };
}

/** Checks declared portfolios with the same rules as a settings file, so a typo fails `cdk synth`. */
function validatedPortfolios(declared: readonly PortfolioDeclaration[]): readonly PortfolioDeclaration[] {
  const seen = new Set<string>();
  for (const portfolio of declared) {
    if (!isPortfolioName(portfolio.name))
      throw new Error(
        `CreditScreenPipeline: portfolio name ${JSON.stringify(portfolio.name)} is not allowed`,
      );
    if (seen.has(portfolio.name))
      throw new Error(`CreditScreenPipeline: portfolio ${portfolio.name} is declared twice`);
    seen.add(portfolio.name);
    const { name: _name, ...settings } = portfolio;
    try {
      parsePortfolioSettings(JSON.stringify(settings));
    } catch (error) {
      throw new Error(`CreditScreenPipeline: portfolio ${portfolio.name}: ${(error as Error).message}`);
    }
  }
  return declared;
}

/** The props, checked before anything is built: settings merged with their defaults, and the declared portfolios. */
export function validatedProps(props: CreditScreenPipelineProps): {
  readonly settings: PipelineSettings;
  readonly portfolios: readonly PortfolioDeclaration[];
} {
  if (props.tokenSecretKey && !props.tokenSecret)
    throw new Error(
      'CreditScreenPipeline: tokenSecretKey is the key of a given tokenSecret; the secret the pipeline creates uses the pipeline key',
    );
  return { settings: settingsFrom(props), portfolios: validatedPortfolios(props.portfolios ?? []) };
}
