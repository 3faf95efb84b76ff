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

/** A header every request to a webhook carries (the receiver's key, most often). */
export interface WebhookHeader {
  readonly name: string;
  readonly value: string;
}

/** A header name as RFC 9110 has it: a token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Headers the HTTP client writes itself from the request it sends, by their lower-case names, and why one given
 * beside them is refused: a second length or host, or a hop-by-hop header, would make the receiver (or a proxy on
 * the way) read the request differently from how it was sent.
 */
const CLIENT_SET_HEADERS: ReadonlyMap<string, string> = new Map([
  ['content-length', 'frames the request'],
  ['transfer-encoding', 'frames the request'],
  ['host', 'names the server the URL names'],
  ['content-type', 'says what the body is (JSON)'],
  ['connection', 'is hop-by-hop'],
  ['keep-alive', 'is hop-by-hop'],
  ['proxy-connection', 'is hop-by-hop'],
  ['te', 'is hop-by-hop'],
  ['trailer', 'is hop-by-hop'],
  ['upgrade', 'is hop-by-hop'],
  ['expect', 'changes how the request is sent'],
]);

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const LINE_BREAK_OR_NUL = /[\r\n\u0000]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const OTHER_CONTROL = /[\u0001-\u0008\u000b-\u001f\u007f]/;
/** Past Latin-1: a header is bytes, and fetch refuses a character it cannot write as one. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range is Latin-1's, from its first character
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

/**
 * What is wrong with a header a webhook request would carry, as a phrase that starts with its name (or says the
 * name is not one); null when nothing is. The value is never repeated, nor a name that is not one: either may be
 * the receiver's key.
 */
export function webhookHeaderProblem(header: WebhookHeader): string | null {
  if (!HEADER_NAME.test(header.name))
    return "a header name must be letters, digits and !#$%&'*+-.^_`|~ (the text given is not repeated: it may hold a secret)";
  const clientSet = CLIENT_SET_HEADERS.get(header.name.toLowerCase());
  if (clientSet !== undefined)
    return `${header.name}: the HTTP client sets this header itself (it ${clientSet}); leave it out`;
  if (LINE_BREAK_OR_NUL.test(header.value))
    return `${header.name}: its value holds a line break (CR, LF) or NUL, which would end the header and start another; a value is one line`;
  if (OTHER_CONTROL.test(header.value))
    return `${header.name}: its value holds a control character, which a header cannot carry`;
  if (BEYOND_LATIN1.test(header.value))
    return `${header.name}: its value holds a character beyond Latin-1, which a header cannot carry`;
  return null;
}

/**
 * The headers of a webhook's requests as one record, each checked by {@link webhookHeaderProblem}, and none given
 * twice (names are case-insensitive: two would be joined into one value); throws naming the first one wrong.
 */
export function webhookHeaderRecord(headers: readonly WebhookHeader[]): Record<string, string> {
  const record: Record<string, string> = {};
  const seen = new Set<string>();
  for (const header of headers) {
    const problem = webhookHeaderProblem(header);
    if (problem !== null) throw new Error(problem);
    if (seen.has(header.name.toLowerCase())) throw new Error(`${header.name}: given twice; give it once`);
    seen.add(header.name.toLowerCase());
    record[header.name] = header.value;
  }
  return record;
}

/** Space and tab around a header's value (RFC 9110's optional whitespace); anything else is the value's. */
const OPTIONAL_WHITESPACE = /^[ \t]+|[ \t]+$/g;

/**
 * Parses `Name: value` (`--webhook-header`) and checks it by {@link webhookHeaderProblem}; throws with a message
 * that reads after the option's name (as the list parsers' do) and never repeats the value.
 */
export function parseWebhookHeader(text: string): WebhookHeader {
  const colon = text.indexOf(':');
  if (colon < 0)
    throw new Error('must be "Name: value" (the text given is not repeated: it may hold a secret)');
  const header = {
    name: text.slice(0, colon).replace(OPTIONAL_WHITESPACE, ''),
    value: text.slice(colon + 1).replace(OPTIONAL_WHITESPACE, ''),
  };
  const problem = webhookHeaderProblem(header);
  if (problem !== null) throw new Error(problem);
  return header;
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
