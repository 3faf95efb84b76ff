import type { ConsoleRole } from './console-roles.ts';

/**
 * Every route of the console's HTTP API: its method, path (OpenAPI style, `{name}` for a parameter) and the roles
 * that may call it (`public`: no sign-in). The API registers these, the browser calls these, the construct routes
 * these: a route is defined here once. Plain data, so the browser bundle takes it without a schema library.
 */
export const CONSOLE_ROUTES = {
  openApi: { method: 'get', path: '/api/openapi.json', roles: 'public', summary: 'This API, as OpenAPI 3.1' },
  signIn: {
    method: 'post',
    path: '/api/session',
    roles: 'public',
    local: true,
    summary: 'Exchanges a one-time sign-in token for a session (local console only)',
  },
  signOut: {
    method: 'delete',
    path: '/api/session',
    roles: 'signed-in',
    local: true,
    summary: 'Ends the session',
  },
  me: { method: 'get', path: '/api/me', roles: 'signed-in', summary: 'Who is signed in, with their roles' },
  batches: {
    method: 'get',
    path: '/api/batches',
    roles: ['analyst', 'manager'],
    summary: 'Batches, newest first, a page at a time',
  },
  batch: {
    method: 'get',
    path: '/api/batches/{batchId}',
    roles: ['analyst', 'manager'],
    summary: 'Where one batch stands',
  },
  approval: {
    method: 'post',
    path: '/api/batches/{batchId}/approval',
    roles: ['manager'],
    summary: 'Approves or rejects the spend of a batch waiting for approval',
  },
  cancel: {
    method: 'post',
    path: '/api/batches/{batchId}/cancel',
    roles: ['manager'],
    summary: 'Cancels a running batch: queued documents are never bought',
  },
  redrive: {
    method: 'post',
    path: '/api/batches/{batchId}/redrive',
    roles: ['manager'],
    summary:
      'Sends a finished batch’s failed rows back: those no call of which was charged, or, when asked, those that may have been',
  },
  spend: {
    method: 'get',
    path: '/api/spend',
    roles: ['analyst', 'manager'],
    summary: 'What this month has bought per bureau, at what cost, against each bureau’s monthly cap',
  },
  download: {
    method: 'post',
    path: '/api/batches/{batchId}/downloads',
    roles: ['analyst', 'manager'],
    summary: 'A short-lived link to one of a finished batch’s result files',
  },
  exportDecisions: {
    method: 'post',
    path: '/api/batches/{batchId}/export',
    roles: ['analyst', 'manager'],
    summary: 'Writes each row’s final decision (a person’s, else the policy’s) into the batch’s summary.csv',
  },
  policies: {
    method: 'get',
    path: '/api/policies',
    roles: ['analyst', 'manager'],
    summary: 'The credit policies an upload may name',
  },
  checkUpload: {
    method: 'post',
    path: '/api/uploads/check',
    roles: ['analyst', 'manager'],
    // In AWS a list goes straight to S3 (a presigned POST): checked there by ingest's first pass.
    local: true,
    summary: 'Reads a customer list as ingest would and quotes it: nothing is written or bought',
  },
  uploadTicket: {
    method: 'post',
    path: '/api/uploads/ticket',
    roles: ['analyst', 'manager'],
    cloud: true,
    summary: 'Signs the browser’s upload of one list straight to S3 under incoming/ (AWS only)',
  },
  upload: {
    method: 'post',
    path: '/api/uploads',
    roles: ['analyst', 'manager'],
    local: true,
    summary: 'Uploads a customer list under incoming/, as a batch to screen with the bureau and policy named',
  },
  review: {
    method: 'get',
    path: '/api/review',
    roles: ['analyst', 'manager'],
    summary: 'Rows waiting for a person, across the finished batches (or one), oldest batch first',
  },
  reviewCase: {
    method: 'get',
    path: '/api/batches/{batchId}/rows/{row}/case',
    roles: ['analyst', 'manager'],
    summary: 'A row in review: its figures, the rules that fired, who holds it, its comments and overrides',
  },
  assign: {
    method: 'put',
    path: '/api/batches/{batchId}/rows/{row}/assignee',
    roles: ['analyst', 'manager'],
    summary: 'Takes a row in review, gives it back, or (a manager) gives it to someone',
  },
  reviewers: {
    method: 'get',
    path: '/api/reviewers',
    roles: ['manager'],
    summary: 'The people a manager may give a row in review to',
  },
  comment: {
    method: 'post',
    path: '/api/batches/{batchId}/rows/{row}/comments',
    roles: ['analyst', 'manager'],
    summary: 'Adds the signed-in person’s comment to a row in review',
  },
  override: {
    method: 'post',
    path: '/api/batches/{batchId}/rows/{row}/override',
    roles: ['analyst', 'manager'],
    summary: 'Records the signed-in person’s final decision on a decided row, beside the policy’s',
  },
  subjectLookup: {
    method: 'post',
    path: '/api/subjects/lookup',
    roles: ['dpo'],
    summary:
      'What is held about a document (masked), and its audit trail: the document travels in the body only',
  },
  subjectExport: {
    method: 'post',
    path: '/api/subjects/export',
    roles: ['dpo'],
    summary: 'Everything held about a document, as one JSON file (LGPD art. 18, II)',
  },
  subjectErase: {
    method: 'post',
    path: '/api/subjects/erase',
    roles: ['dpo'],
    // An erasure scans the table and rewrites files: more than a request's 29 s in AWS, where it is still done with
    // `credit-screen subject --erase --stack` until it runs as a job of its own.
    local: true,
    summary: 'Erases a document’s personal data (LGPD art. 18, VI), confirmed by typing it again',
  },
  users: {
    method: 'get',
    path: '/api/users',
    roles: ['admin'],
    local: true,
    summary: 'The local users and their roles',
  },
  createUser: {
    method: 'post',
    path: '/api/users',
    roles: ['admin'],
    local: true,
    summary: 'Creates a local user and returns their one-time sign-in link',
  },
} as const satisfies Record<string, ConsoleRouteSpec>;

/** One route of the console's API. */
export interface ConsoleRouteSpec {
  readonly method: 'get' | 'post' | 'put' | 'delete';
  readonly path: `/api/${string}`;
  /** Who may call it: `public` (no sign-in), `signed-in` (anyone signed in) or the roles listed. */
  readonly roles: 'public' | 'signed-in' | readonly ConsoleRole[];
  readonly summary: string;
  /** Served by the local console only (in AWS the user pool signs people in and keeps the users). */
  readonly local?: true;
  /** Served in AWS only (the local console takes a list itself). */
  readonly cloud?: true;
}

export type ConsoleRouteName = keyof typeof CONSOLE_ROUTES;

/** A route's path with its parameters filled in (each encoded), as the browser calls it. */
export function consolePath(
  name: ConsoleRouteName,
  parameters: Readonly<Record<string, string>> = {},
): string {
  return CONSOLE_ROUTES[name].path.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = parameters[key];
    if (value === undefined) throw new Error(`route ${name} needs its ${key}`);
    return encodeURIComponent(value);
  });
}
