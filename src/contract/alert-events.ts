/**
 * The alert catalogue: every event the pipeline announces, its `detail` schema (one definition, which the docs page
 * is written from: `npx tsx scripts/alert-events-doc.ts`), its stable `eventId`, and how documents are masked.
 * EventBridge on AWS and the local webhook delivery both build their payloads here, so a receiver sees the same
 * JSON from either.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { maskDocument } from '../domain/documents/index.ts';
import { CHANGE_KINDS, type ChangeKind } from '../domain/monitoring/index.ts';
import type {
  BatchAwaitingApprovalEvent,
  BatchCompletedEvent,
  BudgetExhaustedEvent,
  DocumentChange,
  DocumentChangedEvent,
  EventPublisher,
  OverrideRecordedEvent,
  PolicyRejectedEvent,
  PortfolioChangedEvent,
} from '../domain/ports/index.ts';
import { BUREAUS } from '../domain/report/index.ts';
import { EVENTS } from './events.ts';
import { MANIFEST_STATUSES } from './manifest.ts';

/**
 * How an event shows documents: `none` (it names none), `masked` (`***.540.222-**`) or `full`. An event that names
 * documents is published masked, and in full as well only when a subscription asks for documents; each
 * subscription's rule matches one form, so a receiver never gets a document it did not ask for.
 */
export const DOCUMENT_FORMS = ['none', 'masked', 'full'] as const;
export type DocumentForm = (typeof DOCUMENT_FORMS)[number];

/** The change kinds a `DocumentChanged` subscription selects when it names none: new trouble, not improvements. */
export const DEFAULT_ALERT_CHANGE_KINDS: readonly ChangeKind[] = [
  'decision_worsened',
  'new_protest',
  'new_pending_debt',
  'score_drop',
  'status_change',
];

/** How many of a re-screen's most severe changes `PortfolioChanged` lists by default. */
export const DEFAULT_ALERT_WORST_CHANGES = 10;

const changeKind = z.enum(CHANGE_KINDS as unknown as [ChangeKind, ...ChangeKind[]]);
const documentType = z.enum(['cpf', 'cnpj']);
const count = z.number().int().nonnegative();

/** Every detail starts with these two: the id a receiver drops duplicates by, and how documents are shown. */
const common = {
  eventId: z
    .uuid()
    .describe('Stable id of this event: a redelivery carries the same one, so drop repeats by it'),
  documentForm: z.enum(DOCUMENT_FORMS).describe('none: names no document; masked; full'),
};

const documentChange = z.strictObject({
  row: count.describe('Data row of the customer list, from 1'),
  document: z.string().describe('The document, masked unless the subscription asks for documents'),
  documentType,
  kind: changeKind,
  before: z.string(),
  after: z.string(),
  delta: z.string().describe('Signed difference for numbers; empty otherwise'),
});

const batchCounts = z
  .strictObject({
    rows: count,
    screened: count,
    cached: count,
    duplicate: count,
    invalid_document: count,
    failed: count,
    cancelled: count,
    not_queried: count,
  })
  .describe('Data rows, and rows per final status');

/** The `detail` of each event, by `detail-type`. */
export const ALERT_DETAIL_SCHEMAS = {
  [EVENTS.batchCompleted]: z.strictObject({
    ...common,
    batchId: z.string(),
    revision: count.describe('1, or the redrive that produced these results'),
    status: z.enum(MANIFEST_STATUSES).describe('How the batch ended, as its manifest says'),
    counts: batchCounts,
    keys: z.strictObject({ summary: z.string(), reports: z.string(), manifest: z.string() }),
  }),
  [EVENTS.batchAwaitingApproval]: z.strictObject({
    ...common,
    batchId: z.string(),
    quote: z.strictObject({
      bureau: z.enum(BUREAUS),
      unique: count,
      reusable: count.nullable(),
      to_buy: count,
      price_per_query: z.number(),
      estimated_cost: z.number(),
      currency: z.literal('BRL'),
      estimated_seconds: count,
    }),
    keys: z.strictObject({ quote: z.string() }),
  }),
  [EVENTS.budgetExhausted]: z.strictObject({
    ...common,
    scope: z.enum(['batch', 'month']),
    used: count,
    cap: count,
    percent: z.number().describe('80 when the cap is near, 100 when it is reached'),
    bureau: z.enum(BUREAUS),
    batchId: z.string(),
    month: z.string().describe('YYYY-MM, Brasília time'),
  }),
  [EVENTS.policyRejected]: z.strictObject({
    ...common,
    name: z.string(),
    key: z.string(),
    versionId: z.string().nullable(),
    sha256: z.string(),
    problem: z.string().describe('One line naming what does not load'),
  }),
  [EVENTS.overrideRecorded]: z.strictObject({
    ...common,
    batchId: z.string(),
    row: count,
    decision: z.enum(['approve', 'decline']),
    previousDecision: z.enum(['approve', 'review', 'decline']),
    creditLimit: z.number().nullable(),
    by: z.string(),
    at: z.string(),
    policy: z.string().nullable(),
  }),
  [EVENTS.portfolioChanged]: z.strictObject({
    ...common,
    batchId: z.string(),
    revision: count,
    portfolio: z.string(),
    counts: z.record(changeKind, count).describe('Changes per kind; a document can count under several'),
    documentsChanged: count,
    worstChanges: z
      .array(documentChange)
      .describe('The most severe changes first, up to the configured number'),
    keys: z.strictObject({ changes: z.string(), manifest: z.string() }),
  }),
  [EVENTS.documentChanged]: z.strictObject({
    ...common,
    batchId: z.string(),
    revision: count,
    portfolio: z.string(),
    row: count,
    document: z.string().describe('Masked unless the subscription asks for documents'),
    documentType,
    kinds: z.array(changeKind).describe('Each kind of its changes once; a subscription matches any of them'),
    changes: z.array(documentChange.omit({ row: true, document: true, documentType: true })),
    keys: z.strictObject({ changes: z.string() }),
  }),
} as const;

/** The detail-types of the catalogue, in the order the docs list them. */
export type AlertEventType = keyof typeof ALERT_DETAIL_SCHEMAS;
export const ALERT_EVENT_TYPES = Object.keys(ALERT_DETAIL_SCHEMAS) as AlertEventType[];

export function isAlertEventType(name: string): name is AlertEventType {
  return Object.hasOwn(ALERT_DETAIL_SCHEMAS, name);
}

/** An event's detail as it travels. */
export type AlertDetail<Type extends AlertEventType = AlertEventType> = z.infer<
  (typeof ALERT_DETAIL_SCHEMAS)[Type]
>;

/** What a publisher is given, per detail-type (the domain's events). */
export interface AlertSources {
  readonly BatchCompleted: BatchCompletedEvent;
  readonly BatchAwaitingApproval: BatchAwaitingApprovalEvent;
  readonly BudgetExhausted: BudgetExhaustedEvent;
  readonly PolicyRejected: PolicyRejectedEvent;
  readonly OverrideRecorded: OverrideRecordedEvent;
  readonly PortfolioChanged: PortfolioChangedEvent;
  readonly DocumentChanged: DocumentChangedEvent;
}

/** What makes one event itself: a redelivery, or the same batch finalised twice, gives the same id. */
const identityOf: { readonly [Type in AlertEventType]: (event: AlertSources[Type]) => string } = {
  BatchCompleted: (event) => `${event.batchId}/${event.revision}`,
  BatchAwaitingApproval: (event) => event.batchId,
  BudgetExhausted: (event) =>
    `${event.bureau}/${event.month}/${event.scope}/${event.batchId}/${event.percent}`,
  PolicyRejected: (event) => `${event.key}/${event.versionId ?? event.sha256}`,
  OverrideRecorded: (event) => `${event.batchId}/${event.row}/${event.at}`,
  PortfolioChanged: (event) => `${event.batchId}/${event.revision}`,
  DocumentChanged: (event) => `${event.batchId}/${event.revision}/${event.row}`,
};

/** A UUID-shaped id derived from the event's identity (SHA-256), the same on every delivery and every retry. */
export function eventIdOf<Type extends AlertEventType>(type: Type, event: AlertSources[Type]): string {
  const hex = createHash('sha256')
    .update(`${type}\n${identityOf[type](event)}`)
    .digest('hex');
  // Version nibble 5 and the RFC 4122 variant, as a name-based UUID has them.
  const variant = ((Number.parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}

const showDocument = (document: string, form: DocumentForm): string =>
  form === 'full' ? document : maskDocument(document);

const shownChange = (change: DocumentChange, form: DocumentForm): DocumentChange => ({
  ...change,
  document: showDocument(change.document, form),
});

/** Whether events of this type name documents (and so come masked, and in full when asked). */
function namesDocuments(type: AlertEventType): boolean {
  return type === EVENTS.portfolioChanged || type === EVENTS.documentChanged;
}

function detailIn<Type extends AlertEventType>(
  type: Type,
  event: AlertSources[Type],
  documentForm: DocumentForm,
): AlertDetail {
  const base = { eventId: eventIdOf(type, event), documentForm };
  if (type === EVENTS.portfolioChanged) {
    const changed = event as PortfolioChangedEvent;
    return {
      ...base,
      ...changed,
      worstChanges: changed.worstChanges.map((c) => shownChange(c, documentForm)),
    };
  }
  if (type === EVENTS.documentChanged) {
    const changed = event as DocumentChangedEvent;
    return {
      ...base,
      ...changed,
      document: showDocument(changed.document, documentForm),
      changes: changed.changes.map(({ kind, before, after, delta }) => ({ kind, before, after, delta })),
    } as AlertDetail;
  }
  return { ...base, ...event } as AlertDetail;
}

/**
 * The details one domain event is published as: one (`none`) for an event that names no document; `masked`, plus
 * `full` when `fullDocuments` (a subscription asks for documents), for one that does. Each is checked against its
 * schema, so what leaves is what the docs describe.
 */
export function alertDetailsOf<Type extends AlertEventType>(
  type: Type,
  event: AlertSources[Type],
  options: { readonly fullDocuments: boolean },
): AlertDetail[] {
  const forms: DocumentForm[] = !namesDocuments(type)
    ? ['none']
    : options.fullDocuments
      ? ['masked', 'full']
      : ['masked'];
  return forms.map((form) => ALERT_DETAIL_SCHEMAS[type].parse(detailIn(type, event, form)) as AlertDetail);
}

/** An event as EventBridge delivers it to a target (and as the local delivery POSTs it). */
export interface AlertEnvelope {
  readonly version: '0';
  readonly id: string;
  readonly 'detail-type': AlertEventType;
  readonly source: typeof EVENTS.source;
  readonly account: string;
  readonly time: string;
  readonly region: string;
  readonly resources: readonly string[];
  readonly detail: AlertDetail;
}

/** Publishes events of one type of the catalogue (several at once for `DocumentChanged`). */
export type PublishEvents = <Type extends AlertEventType>(
  type: Type,
  events: readonly AlertSources[Type][],
) => Promise<void>;

/**
 * The use cases' {@link EventPublisher}, each method handing its events to `publish` under their detail-type: one
 * mapping from methods to the catalogue, whatever carries the events (EventBridge, webhooks, a test's record).
 */
export function eventPublisherOf(publish: PublishEvents): EventPublisher {
  return {
    batchCompleted: (event) => publish(EVENTS.batchCompleted, [event]),
    batchAwaitingApproval: (event) => publish(EVENTS.batchAwaitingApproval, [event]),
    budgetExhausted: (event) => publish(EVENTS.budgetExhausted, [event]),
    policyRejected: (event) => publish(EVENTS.policyRejected, [event]),
    overrideRecorded: (event) => publish(EVENTS.overrideRecorded, [event]),
    portfolioChanged: (event) => publish(EVENTS.portfolioChanged, [event]),
    documentsChanged: (events) => publish(EVENTS.documentChanged, events),
  };
}
