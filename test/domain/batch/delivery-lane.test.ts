import { describe, expect, it } from 'vitest';
import { deliveryLaneFor, messageGroupFor, type WorkMessage } from '../../../src/domain/batch/index.ts';

const workMessage = (overrides: Partial<WorkMessage> = {}): WorkMessage => ({
  version: 1,
  batchId: 'batch-1',
  row: 2,
  document: '52998224725',
  bureau: 'a',
  ...overrides,
});

describe('deliveryLaneFor', () => {
  it('puts uploads under incoming/<bureau>/priority/ in the priority lane', () => {
    expect(deliveryLaneFor({ key: 'incoming/a/priority/new-customers.csv', portfolio: null })).toBe(
      'priority',
    );
    expect(deliveryLaneFor({ key: 'incoming/b/priority/sub/list.csv', portfolio: null })).toBe('priority');
  });

  it('keeps other uploads in the upload lane, including a file merely named priority', () => {
    expect(deliveryLaneFor({ key: 'incoming/a/list.csv', portfolio: null })).toBe('upload');
    expect(deliveryLaneFor({ key: 'incoming/a/priority', portfolio: null })).toBe('upload');
    expect(deliveryLaneFor({ key: 'incoming/priority/list.csv', portfolio: null })).toBe('upload');
  });

  it('puts every portfolio re-screen in the scheduled lane, the lowest', () => {
    expect(deliveryLaneFor({ key: 'portfolios/carteira.csv', portfolio: 'carteira' })).toBe('scheduled');
  });
});

describe('messageGroupFor', () => {
  it('groups an upload by its batch, and a message without a lane likewise', () => {
    expect(messageGroupFor(workMessage({ lane: 'upload' }))).toBe('batch-1');
    expect(messageGroupFor(workMessage())).toBe('batch-1');
  });

  it('gives a priority message no group: a tenant of its own, never the noisy one', () => {
    expect(messageGroupFor(workMessage({ lane: 'priority' }))).toBeUndefined();
  });

  it('puts every scheduled run of a bureau in one group, whatever the batch', () => {
    const first = messageGroupFor(workMessage({ lane: 'scheduled', batchId: 'run-1' }));
    const second = messageGroupFor(workMessage({ lane: 'scheduled', batchId: 'run-2' }));
    expect(first).toBe(second);
    expect(messageGroupFor(workMessage({ lane: 'scheduled', bureau: 'b' }))).not.toBe(first);
  });
});
