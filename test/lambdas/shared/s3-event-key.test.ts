import { describe, expect, it } from 'vitest';
import { objectCreatedEvent } from '../../../cli/local/s3-notification.ts';
import { objectKeyOf } from '../../../lambdas/shared/s3-event-key.ts';

describe('the key of an S3 notification record', () => {
  it('reads back the key S3 URL-encoded, spaces, accents and plus signs included', () => {
    const key = 'incoming/a/Lista de Clientes São Paulo+1 (2026).csv';
    const [record] = objectCreatedEvent({ bucket: 'b', key, size: 1 }).Records;

    expect(record?.s3.object.key).not.toBe(key);
    expect(objectKeyOf(record as NonNullable<typeof record>)).toBe(key);
  });
});
