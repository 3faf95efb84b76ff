/** The console's uploads in AWS: the browser puts a list straight into S3 with a ticket the API signs. */
import { z } from 'zod';
import { BUREAUS } from '../domain/report/index.ts';
import { MAX_UPLOAD_BYTES, UploadFileName } from './console-schemas.ts';
import { isPolicyName } from './policies.ts';

export const UploadTicketRequest = z.object({
  fileName: UploadFileName,
  bureau: z.enum(BUREAUS),
  /** A policy under `policies/` that decides the batch; null: the deployment's default. */
  policy: z
    .string()
    .refine(isPolicyName, 'a policy file name under policies/ (letters, digits, . _ -, ending in .json)')
    .nullable()
    .default(null),
  /** The file's size, refused here when over the limit (S3 refuses it again from the ticket's policy). */
  size: z
    .number()
    .int()
    .min(1, 'the file is empty')
    .max(MAX_UPLOAD_BYTES, `the console takes lists up to ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`),
});

export const UploadTicketView = z.object({
  url: z.string(),
  fields: z.record(z.string(), z.string()),
  expiresAt: z.string(),
  maxBytes: z.number().int(),
});
export type UploadTicketView = z.infer<typeof UploadTicketView>;
