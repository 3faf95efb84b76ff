/**
 * The console's HTTP API, written once: `credit-screen console` serves it on a laptop (Node), a Lambda function behind
 * API Gateway serves it in AWS. Every route comes from the contract's table with the roles that may call it, every
 * request is validated by the contract's schemas, and the OpenAPI document is generated from the same routes.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { secureHeaders } from 'hono/secure-headers';
import type { BatchControlDependencies } from '../application/batch-control/batch-control.ts';
import type { ReviewRowsCache } from '../application/review/review-queue.ts';
import { CONSOLE_ROUTES, MAX_UPLOAD_BYTES } from '../contract/index.ts';
import type { Logger, UploadTickets } from '../domain/ports/index.ts';
import { addBatchRoutes } from './batch-routes.ts';
import type { Authenticator, ConsoleEnv, LocalUsers } from './console-env.ts';
import { addResultRoutes, type ResultDependencies } from './result-routes.ts';
import { addReviewRoutes, type ReviewDependencies } from './review-routes.ts';
import { addIdentityRoute, addLocalSessionRoutes } from './session-routes.ts';
import { addSpendRoute, type SpendDependencies } from './spend-routes.ts';
import { addSubjectRoutes, type SubjectDependencies } from './subject-routes.ts';
import { addUploadRoutes, type UploadDependencies } from './upload-routes.ts';
import { addPolicyListRoute, addUploadTicketRoute } from './upload-ticket-routes.ts';

export interface ConsoleApiDependencies {
  readonly authenticator: Authenticator;
  readonly batches: BatchControlDependencies;
  /** The review queue and overrides: the batches' results, their overrides, the audit log and the events. */
  readonly review: ReviewDependencies;
  /** A batch's result files: short-lived links, and the export of its final decisions into its summary. */
  readonly results: ResultDependencies;
  /** The month's spend per bureau against its cap. */
  readonly spend: SpendDependencies;
  /** A data subject's access and erasure: everything held about a document, and the audit log. */
  readonly subjects: SubjectDependencies;
  /** The local console's uploads (in AWS a list goes straight to S3); absent there. */
  readonly uploads?: UploadDependencies;
  /** The policies an upload may name (their names under `policies/`). */
  readonly policies?: () => Promise<string[]>;
  /** In AWS: signs the browser's upload of a list straight to S3. */
  readonly uploadTickets?: UploadTickets;
  /** The local console's users and sign-in links; absent in AWS, where the user pool has them. */
  readonly localUsers?: LocalUsers;
  readonly logger: Logger;
}

/**
 * The page's security policy: its own scripts, styles and images only, no inline script, never framed by another
 * site. The API's answers carry it too, so that a JSON answer opened as a page runs nothing.
 */
export const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  frameSrc: ["'self'"],
  frameAncestors: ["'none'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
};

/** The largest request body the API reads (a sign-in token, a decision and its reason, a user). */
const MAX_REQUEST_BYTES = 16 * 1024;
/** A list in base64, with the rest of its request. */
const MAX_UPLOAD_REQUEST_BYTES = Math.ceil((MAX_UPLOAD_BYTES * 4) / 3) + 16 * 1024;

/** Builds the API over the pipeline's ports. */
export function createConsoleApi(deps: ConsoleApiDependencies): OpenAPIHono<ConsoleEnv> {
  const app = new OpenAPIHono<ConsoleEnv>({
    // A request that does not parse gets one line naming the field, never the validator's whole report.
    defaultHook: (result, context) => {
      if (result.success) return;
      const issue = result.error.issues[0];
      const field = issue?.path.join('.') ?? '';
      return context.json(
        { error: `${field ? `${field}: ` : ''}${issue?.message ?? 'not understood'}` },
        400,
      );
    },
  });
  app.use(
    '*',
    secureHeaders({ contentSecurityPolicy: CONTENT_SECURITY_POLICY, referrerPolicy: 'no-referrer' }),
  );
  // Answers about people and money are never kept by a browser's or a proxy's cache.
  app.use('/api/*', async (context, next) => {
    await next();
    context.header('Cache-Control', 'no-store');
  });
  // No request of the console's is large but a list uploaded locally: a big body is refused before it is read.
  const uploadLimit = bodyLimit({
    maxSize: MAX_UPLOAD_REQUEST_BYTES,
    onError: (context) =>
      context.json({ error: `the console takes lists up to ${MAX_UPLOAD_BYTES / 1024 / 1024} MB` }, 413),
  });
  const requestLimit = bodyLimit({
    maxSize: MAX_REQUEST_BYTES,
    onError: (context) => context.json({ error: `a request is at most ${MAX_REQUEST_BYTES / 1024} KB` }, 413),
  });
  app.use('/api/*', (context, next) =>
    context.req.path.startsWith('/api/uploads') ? uploadLimit(context, next) : requestLimit(context, next),
  );
  // A POST or PUT is JSON or nothing: a form another site's page submits cannot set this type (a defence the
  // session cookie's SameSite=Strict doubles), and a body in another format is refused before any handler reads it.
  app.use('/api/*', async (context, next) => {
    const type = context.req.header('content-type') ?? '';
    if (['POST', 'PUT'].includes(context.req.method) && !/^application\/json\b/i.test(type))
      return context.json({ error: 'send the request as JSON (Content-Type: application/json)' }, 415);
    return next();
  });
  addIdentityRoute(app, deps.authenticator);
  addBatchRoutes(app, deps);
  // A process answers many requests: each decided batch's rows in review are read once in a while, not each time.
  const reviewRows: ReviewRowsCache = new Map();
  addReviewRoutes(app, deps.authenticator, deps.review, reviewRows);
  addResultRoutes(app, deps.authenticator, deps.results);
  // What an erasure removed must not stay in the kept review rows (their customer columns).
  addSubjectRoutes(app, deps.authenticator, deps.subjects, () => reviewRows.clear());
  addSpendRoute(app, deps.authenticator, deps.spend);
  if (deps.localUsers) addLocalSessionRoutes(app, deps.authenticator, deps.localUsers);
  if (deps.uploads) addUploadRoutes(app, deps.authenticator, deps.uploads);
  if (deps.policies) addPolicyListRoute(app, deps.authenticator, deps.policies);
  if (deps.uploadTickets)
    addUploadTicketRoute(app, deps.authenticator, { uploadTickets: deps.uploadTickets, logger: deps.logger });
  app.doc31(CONSOLE_ROUTES.openApi.path, {
    openapi: '3.1.0',
    info: { title: 'credit-screen console', version: '1' },
  });
  app.notFound((context) => context.json({ error: 'no such route' }, 404));
  app.onError((error, context) => {
    // The validator's own refusal (a body that is not JSON): said in one line.
    if (error instanceof HTTPException && error.status < 500)
      return context.json({ error: 'the request body is not JSON' }, error.status);
    // The error may quote a document or a name: the log gets its kind, the person one line.
    deps.logger.error('console request failed', { path: context.req.routePath, error: error.name });
    return context.json({ error: 'the console could not answer this time; try again' }, 500);
  });
  return app;
}
