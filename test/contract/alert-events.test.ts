import { describe, expect, it } from 'vitest';
import { ALERT_SAMPLES } from '../../cli/alert-samples.ts';
import {
  ALERT_DETAIL_SCHEMAS,
  ALERT_EVENT_TYPES,
  type AlertDetail,
  type AlertEnvelope,
  type AlertEventPattern,
  alertDetailsOf,
  eventIdOf,
  matchesEventPattern,
  parseWebhookHeader,
  publishedChangeKinds,
  subscriptionPatterns,
  validateWebhooks,
  type WebhookSubscription,
} from '../../src/contract/index.ts';

const envelope = (type: AlertEnvelope['detail-type'], detail: AlertEnvelope['detail']): AlertEnvelope => ({
  version: '0',
  id: 'x',
  'detail-type': type,
  source: 'credit-screen',
  account: '1',
  time: '2026-11-25T00:00:00Z',
  region: 'sa-east-1',
  resources: [],
  detail,
});

const subscription = (overrides: Partial<WebhookSubscription> = {}): WebhookSubscription => ({
  name: 'erp',
  url: 'https://erp.example.com/hooks/credit',
  events: ['BatchCompleted'],
  ...overrides,
});

describe('the alert catalogue', () => {
  it.each(ALERT_EVENT_TYPES)('%s: the sample matches its schema, every form', (type) => {
    const details = alertDetailsOf(type, ALERT_SAMPLES[type] as never, { fullDocuments: true });

    for (const detail of details) expect(ALERT_DETAIL_SCHEMAS[type].parse(detail)).toEqual(detail);
    expect(details.map((detail) => detail.documentForm)).toEqual(
      type === 'PortfolioChanged' || type === 'DocumentChanged' ? ['masked', 'full'] : ['none'],
    );
  });

  it('gives an event the same UUID-shaped id every time, and another event another', () => {
    const id = eventIdOf('BatchCompleted', ALERT_SAMPLES.BatchCompleted);

    expect(eventIdOf('BatchCompleted', { ...ALERT_SAMPLES.BatchCompleted })).toBe(id);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(eventIdOf('BatchCompleted', { ...ALERT_SAMPLES.BatchCompleted, revision: 2 })).not.toBe(id);
  });

  it('masks documents unless the full form is asked for', () => {
    const [masked] = alertDetailsOf('PortfolioChanged', ALERT_SAMPLES.PortfolioChanged, {
      fullDocuments: false,
    });

    expect(JSON.stringify(masked)).not.toMatch(/52998224725|11444777000161/);
    expect(masked).toMatchObject({
      worstChanges: [{ document: '**.444.777/0001-**' }, {}, { document: '***.982.247-**' }],
    });
  });

  it('refuses a detail that drifted from its schema', () => {
    expect(() =>
      alertDetailsOf('BatchCompleted', { ...ALERT_SAMPLES.BatchCompleted, extra: 1 } as never, {
        fullDocuments: false,
      }),
    ).toThrow(/extra/);
  });
});

describe('webhook subscriptions', () => {
  it.each([
    [subscription({ url: 'http://erp.example.com/x' }), 'aws', /url must be https/],
    [subscription({ url: 'http://127.0.0.1:9000/x' }), 'aws', /url must be https/],
    [subscription({ url: 'http://erp.example.com/x' }), 'local', /http to this machine/],
    [subscription({ url: 'https://user:pw@erp.example.com' }), 'aws', /credentials/],
    [subscription({ events: ['BatchDone' as never] }), 'aws', /unknown event "BatchDone"/],
    [subscription({ events: [] }), 'aws', /at least one/],
    [
      subscription({ events: ['DocumentChanged'], changeKinds: ['registration' as never] }),
      'aws',
      /unknown change kind "registration"/,
    ],
    [subscription({ changeKinds: ['new_protest'] }), 'aws', /add DocumentChanged/],
    [subscription({ name: 'has space' }), 'aws', /name "has space"/],
  ] as const)('refuses %j in %s with one line', (given, place, message) => {
    expect(() => validateWebhooks([given], place)).toThrow(message);
    try {
      validateWebhooks([given], place);
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('takes http to this machine locally, and refuses a name used twice', () => {
    expect(validateWebhooks([subscription({ url: 'http://127.0.0.1:9000/x' })], 'local')).toHaveLength(1);
    expect(() => validateWebhooks([subscription(), subscription()], 'aws')).toThrow(/used twice/);
  });

  it('matches events as EventBridge does: named fields present, any value of an array', () => {
    const [others, documents] = subscriptionPatterns(
      subscription({ events: ['BatchCompleted', 'DocumentChanged'], changeKinds: ['new_protest'] }),
    ) as [AlertEventPattern, AlertEventPattern];
    const [completed] = alertDetailsOf('BatchCompleted', ALERT_SAMPLES.BatchCompleted, {
      fullDocuments: true,
    }) as [AlertDetail];
    const [masked, full] = alertDetailsOf('DocumentChanged', ALERT_SAMPLES.DocumentChanged, {
      fullDocuments: true,
    }) as [AlertDetail, AlertDetail];

    expect(matchesEventPattern(others, envelope('BatchCompleted', completed))).toBe(true);
    expect(matchesEventPattern(others, envelope('DocumentChanged', masked))).toBe(false);
    expect(matchesEventPattern(documents, envelope('DocumentChanged', masked))).toBe(true);
    expect(matchesEventPattern(documents, envelope('DocumentChanged', full))).toBe(false);
    expect(
      matchesEventPattern(
        documents,
        envelope('DocumentChanged', { ...masked, kinds: ['score_rise'] } as never),
      ),
    ).toBe(false);
  });

  it('publishes DocumentChanged for the kinds the subscriptions select, else for the defaults', () => {
    expect(publishedChangeKinds([])).toEqual([
      'decision_worsened',
      'new_protest',
      'new_pending_debt',
      'score_drop',
      'status_change',
    ]);
    expect(
      publishedChangeKinds([
        subscription({ events: ['DocumentChanged'], changeKinds: ['score_drop'] }),
        subscription({ name: 'b', events: ['DocumentChanged'], changeKinds: ['new_protest'] }),
      ]),
    ).toEqual(['new_protest', 'score_drop']);
  });

  it('parses a header, and refuses one without a colon', () => {
    expect(parseWebhookHeader('Authorization: Basic YTpi')).toEqual({
      name: 'Authorization',
      value: 'Basic YTpi',
    });
    expect(() => parseWebhookHeader('X-Api-Key s3cr3t')).toThrow(/Name: value/);
  });
});
