import { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { S3UploadTickets } from '../../../src/adapters/aws/s3-upload-tickets.ts';

const s3 = new S3Client({
  region: 'sa-east-1',
  credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' },
});

/** The POST policy S3 will hold the upload to, as the ticket carries it (base64 JSON). */
const policyOf = (fields: Readonly<Record<string, string>>) =>
  JSON.parse(Buffer.from(fields.Policy ?? '', 'base64').toString('utf8')) as {
    expiration: string;
    conditions: unknown[];
  };

describe('S3UploadTickets', () => {
  it('signs a form S3 accepts only for that key, that metadata, and a size from 1 byte to the limit', async () => {
    const tickets = new S3UploadTickets(s3, 'pipeline-bucket', () => Date.parse('2026-11-29T12:00:00Z'));

    const ticket = await tickets.ticketFor({
      key: 'incoming/a/20261129T120000000Z-abcdefghijkl.csv',
      metadata: { 'source-name': 'clientes%20novembro.csv', policy: 'pessoa-fisica.json' },
      maxBytes: 15 * 1024 * 1024,
    });

    const policy = policyOf(ticket.fields);
    expect(ticket.url).toContain('pipeline-bucket');
    expect(ticket.fields).toMatchObject({
      key: 'incoming/a/20261129T120000000Z-abcdefghijkl.csv',
      'x-amz-meta-source-name': 'clientes%20novembro.csv',
      'x-amz-meta-policy': 'pessoa-fisica.json',
    });
    expect(policy.conditions).toEqual(
      expect.arrayContaining([
        ['content-length-range', 1, 15 * 1024 * 1024],
        { bucket: 'pipeline-bucket' },
        { key: 'incoming/a/20261129T120000000Z-abcdefghijkl.csv' },
        { 'x-amz-meta-source-name': 'clientes%20novembro.csv' },
        { 'x-amz-meta-policy': 'pessoa-fisica.json' },
      ]),
    );
    // No condition lets the key or the metadata vary (no starts-with): the form is for this one object.
    expect(JSON.stringify(policy.conditions)).not.toContain('starts-with');
    const minutes = (Date.parse(policy.expiration) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(3);
    expect(minutes).toBeLessThanOrEqual(5);
    expect(ticket.expiresAt).toBe('2026-11-29T12:05:00.000Z');
  });
});
