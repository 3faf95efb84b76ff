/**
 * Webhook subscriptions: which events go to which URL. The construct turns each into EventBridge rules with an API
 * destination; the local runner matches the same patterns itself and POSTs the same payloads. Checked here once for
 * both, so a bad subscription fails `cdk synth` and the command line with the same line.
 */
import { CHANGE_KINDS, type ChangeKind } from '../domain/monitoring/index.ts';
import {
  ALERT_EVENT_TYPES,
  type AlertEnvelope,
  type AlertEventType,
  DEFAULT_ALERT_CHANGE_KINDS,
  type DocumentForm,
  isAlertEventType,
} from './alert-events.ts';
import { EVENTS } from './events.ts';

/** One receiver of alerts. */
export interface WebhookSubscription {
  /** Names its rules and connection: letters, digits, `-` and `_`, up to 40. */
  readonly name: string;
  /** Where events are POSTed: https (http only to this machine, locally). */
  readonly url: string;
  /** The detail-types it receives. */
  readonly events: readonly AlertEventType[];
  /**
   * The change kinds that send it a `DocumentChanged` (only with that event).
   * @default DEFAULT_ALERT_CHANGE_KINDS
   */
  readonly changeKinds?: readonly ChangeKind[];
  /**
   * Receive documents in full instead of masked (`***.540.222-**`).
   * @default false
   */
  readonly includeDocuments?: boolean;
}

/** An EventBridge event pattern, in the subset the subscriptions use: exact values, any of which matches. */
export interface AlertEventPattern {
  readonly source: readonly string[];
  readonly 'detail-type': readonly AlertEventType[];
  readonly detail: Readonly<Record<string, readonly string[]>>;
}

const NAME = /^[A-Za-z0-9_-]{1,40}$/;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Where a subscription is used: AWS sends only to https; a laptop may also send to its own http receivers. */
export type WebhookPlace = 'aws' | 'local';

function urlProblem(url: string, place: WebhookPlace): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `url ${JSON.stringify(url)} is not a URL`;
  }
  if (parsed.username || parsed.password) return 'url must not carry credentials (give them as auth)';
  if (parsed.protocol === 'https:') return null;
  if (parsed.protocol === 'http:' && place === 'local' && LOOPBACK_HOSTS.has(parsed.hostname)) return null;
  return place === 'aws'
    ? `url must be https (EventBridge API destinations call https only): ${url}`
    : `url must be https, or http to this machine (localhost, 127.0.0.1, [::1]): ${url}`;
}

/** What is wrong with one subscription, each as a phrase; empty when nothing is. */
function webhookProblems(subscription: WebhookSubscription, place: WebhookPlace): string[] {
  const problems: string[] = [];
  if (typeof subscription.name !== 'string' || !NAME.test(subscription.name))
    problems.push(`name ${JSON.stringify(subscription.name)} must be 1–40 letters, digits, - or _`);
  const url = urlProblem(String(subscription.url), place);
  if (url) problems.push(url);
  const events = Array.isArray(subscription.events) ? subscription.events : [];
  if (events.length === 0) problems.push(`events must list at least one of ${ALERT_EVENT_TYPES.join(', ')}`);
  for (const event of events)
    if (!isAlertEventType(event))
      problems.push(`unknown event ${JSON.stringify(event)} (known: ${ALERT_EVENT_TYPES.join(', ')})`);
  if (subscription.changeKinds !== undefined) {
    if (!events.includes(EVENTS.documentChanged))
      problems.push(
        'changeKinds select DocumentChanged events: add DocumentChanged to events, or drop changeKinds',
      );
    if (subscription.changeKinds.length === 0) problems.push('changeKinds must list at least one kind');
    for (const kind of subscription.changeKinds)
      if (!(CHANGE_KINDS as readonly string[]).includes(kind))
        problems.push(`unknown change kind ${JSON.stringify(kind)} (known: ${CHANGE_KINDS.join(', ')})`);
  }
  return problems;
}

/** Checks every subscription (and that names are unique); throws one line naming the first one that is wrong. */
export function validateWebhooks(
  subscriptions: readonly WebhookSubscription[],
  place: WebhookPlace,
): readonly WebhookSubscription[] {
  const seen = new Set<string>();
  subscriptions.forEach((subscription, index) => {
    const problems = webhookProblems(subscription, place);
    if (seen.has(subscription.name)) problems.push(`name ${subscription.name} is used twice`);
    seen.add(subscription.name);
    if (problems.length > 0)
      throw new Error(`webhook ${JSON.stringify(subscription.name ?? index)}: ${problems.join('; ')}`);
  });
  return subscriptions;
}

/** The change kinds of a subscription that takes `DocumentChanged`; empty when it does not. */
function changeKindsOf(subscription: WebhookSubscription): readonly ChangeKind[] {
  if (!subscription.events.includes(EVENTS.documentChanged)) return [];
  return subscription.changeKinds ?? DEFAULT_ALERT_CHANGE_KINDS;
}

/**
 * The change kinds the finaliser publishes `DocumentChanged` for: those the subscriptions select, or the defaults
 * when none takes that event (so the bus and the alert topic still hear of new trouble).
 */
export function publishedChangeKinds(subscriptions: readonly WebhookSubscription[]): readonly ChangeKind[] {
  const selected = new Set(subscriptions.flatMap(changeKindsOf));
  if (selected.size === 0) return DEFAULT_ALERT_CHANGE_KINDS;
  return CHANGE_KINDS.filter((kind) => selected.has(kind));
}

/**
 * The event patterns of a subscription: one for the events it takes, and a second for `DocumentChanged` filtered
 * on its change kinds (an EventBridge array field matches when any of its values does). Both match only the
 * document form it may see.
 */
export function subscriptionPatterns(subscription: WebhookSubscription): AlertEventPattern[] {
  const documentForm: DocumentForm[] = ['none', subscription.includeDocuments ? 'full' : 'masked'];
  const others = subscription.events.filter((event) => event !== EVENTS.documentChanged);
  const kinds = changeKindsOf(subscription);
  const patterns: AlertEventPattern[] = [];
  if (others.length > 0)
    patterns.push({ source: [EVENTS.source], 'detail-type': others, detail: { documentForm } });
  if (kinds.length > 0)
    patterns.push({
      source: [EVENTS.source],
      'detail-type': [EVENTS.documentChanged],
      detail: { documentForm, kinds },
    });
  return patterns;
}

/**
 * Whether an event matches a pattern as EventBridge matches one: every field the pattern names must be present,
 * and a value (or, for an array, any of its values) must be one the pattern lists.
 */
export function matchesEventPattern(pattern: AlertEventPattern, event: AlertEnvelope): boolean {
  const matches = (wanted: unknown, value: unknown): boolean => {
    if (Array.isArray(wanted)) {
      const values = Array.isArray(value) ? value : [value];
      return values.some((one) => one !== undefined && (wanted as unknown[]).includes(one));
    }
    if (typeof wanted !== 'object' || wanted === null || typeof value !== 'object' || value === null)
      return false;
    return Object.entries(wanted).every(([key, inner]) =>
      matches(inner, (value as Record<string, unknown>)[key]),
    );
  };
  return matches(pattern, event);
}

/**
 * Parses `Name: value` (`--webhook-header`); throws when there is no colon or no name, with a message that reads
 * after the option's name (as the list parsers' do).
 */
export function parseWebhookHeader(text: string): { readonly name: string; readonly value: string } {
  const colon = text.indexOf(':');
  const name = colon < 0 ? '' : text.slice(0, colon).trim();
  if (colon < 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    throw new Error(`must be "Name: value", got ${JSON.stringify(text)}`);
  return { name, value: text.slice(colon + 1).trim() };
}

/** Parses a comma-separated list of event names; throws one line naming an unknown one. */
export function parseAlertEventList(text: string): AlertEventType[] {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.find((name) => !isAlertEventType(name));
  if (unknown !== undefined || names.length === 0)
    throw new Error(
      `names an unknown event ${JSON.stringify(unknown ?? text)} (known: ${ALERT_EVENT_TYPES.join(', ')})`,
    );
  return names as AlertEventType[];
}

/** Parses a comma-separated list of change kinds; throws one line naming an unknown one. */
export function parseChangeKindList(text: string): ChangeKind[] {
  const kinds = text
    .split(',')
    .map((kind) => kind.trim())
    .filter((kind) => kind !== '');
  const unknown = kinds.find((kind) => !(CHANGE_KINDS as readonly string[]).includes(kind));
  if (unknown !== undefined || kinds.length === 0)
    throw new Error(
      `names an unknown change kind ${JSON.stringify(unknown ?? text)} (known: ${CHANGE_KINDS.join(', ')})`,
    );
  return kinds as ChangeKind[];
}
