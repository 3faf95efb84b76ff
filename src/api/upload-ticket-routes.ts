import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import {
  MAX_UPLOAD_BYTES,
  POLICY_METADATA,
  PolicyList,
  sourceNameMetadata,
  UploadTicketRequest,
  UploadTicketView,
  uploadKey,
  uploadNonce,
} from '../contract/index.ts';
import type { Logger, UploadTickets } from '../domain/ports/index.ts';
import type { Authenticator, ConsoleEnv } from './console-env.ts';
import { json, refusals } from './openapi-parts.ts';
import { guard, routeBasics } from './route-guard.ts';

/** Registers the policies an upload may name (their names under `policies/`). */
export function addPolicyListRoute(
  app: OpenAPIHono<ConsoleEnv>,
  authenticator: Authenticator,
  policies: () => Promise<string[]>,
): void {
  const route = createRoute({
    ...routeBasics('policies'),
    middleware: [guard('policies', authenticator)] as const,
    responses: { 200: json(PolicyList, 'The policies, by name'), ...refusals(401, 403) },
  });
  app.openapi(route, async (context) => context.json({ policies: await policies() }, 200));
}

/**
 * Registers the upload ticket (AWS): the list goes from the browser straight into S3, under an opaque key of
 * `incoming/<bureau>/` (the file's name travels as metadata, never in the key), with the policy it names; ingest
 * takes it from there as from any upload, quoting it and holding it for a manager over the approval threshold.
 */
export function addUploadTicketRoute(
  app: OpenAPIHono<ConsoleEnv>,
  authenticator: Authenticator,
  deps: {
    readonly uploadTickets: UploadTickets;
    readonly logger: Pick<Logger, 'info'>;
    readonly now?: () => Date;
  },
): void {
  const route = createRoute({
    ...routeBasics('uploadTicket'),
    middleware: [guard('uploadTicket', authenticator)] as const,
    request: {
      body: json(UploadTicketRequest, 'The list to upload: its name, size and how to screen it', true),
    },
    responses: { 200: json(UploadTicketView, 'The form to post to S3'), ...refusals(400, 401, 403) },
  });
  app.openapi(route, async (context) => {
    const request = context.req.valid('json');
    const key = uploadKey(
      request.bureau,
      request.fileName,
      (deps.now ?? (() => new Date()))(),
      uploadNonce(),
    );
    const ticket = await deps.uploadTickets.ticketFor({
      key,
      metadata: {
        ...sourceNameMetadata(request.fileName),
        ...(request.policy === null ? {} : { [POLICY_METADATA]: request.policy }),
      },
      maxBytes: MAX_UPLOAD_BYTES,
    });
    deps.logger.info('upload ticket signed', { key, subject: context.get('identity').subject });
    return context.json(
      {
        url: ticket.url,
        fields: { ...ticket.fields },
        expiresAt: ticket.expiresAt,
        maxBytes: ticket.maxBytes,
      },
      200,
    );
  });
}
