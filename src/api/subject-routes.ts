import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import {
  ErasureRefused,
  eraseSubject,
  type SubjectErasureDependencies,
} from '../application/data-subject/subject-erasure.ts';
import {
  exportSubject,
  type SubjectExport,
  type SubjectExportDependencies,
} from '../application/data-subject/subject-export.ts';
import {
  SubjectErasureRequest,
  SubjectErasureResult,
  SubjectRequest,
  SubjectSummary,
} from '../contract/index.ts';
import type { AuditEntry } from '../domain/audit/index.ts';
import { maskDocument } from '../domain/documents/index.ts';
import type { Logger } from '../domain/ports/index.ts';
import type { Authenticator, ConsoleEnv } from './console-env.ts';
import { json, refusals } from './openapi-parts.ts';
import { guard, routeBasics } from './route-guard.ts';

/**
 * What the data-subject routes read, and what an erasure changes (given to the local console only: see the route's
 * note in the contract).
 */
export type SubjectDependencies = SubjectExportDependencies & {
  readonly logger: Logger;
  readonly erasure?: SubjectErasureDependencies;
};

/** Why the console's export reads everything held about a person, as the audit log records it. */
const ACCESS_REASON = 'data subject access request (LGPD art. 18, II), exported in the console';

/** An audit entry in one line, as the DPO reads it (no document: entries never hold one). */
function detailOf(entry: AuditEntry): string {
  switch (entry.kind) {
    case 'bureau_request':
      return `bureau ${entry.bureau.toUpperCase()}, ${entry.httpStatus ?? 'no answer'}, ${entry.charge}; ${entry.purpose}; ${entry.legalBasis}`;
    case 'decision':
      return `${entry.decision} by ${entry.policy.name}${entry.reasons.length > 0 ? ` (${entry.reasons.join(', ')})` : ''}`;
    case 'override':
      return `${entry.previous} → ${entry.decision} by ${entry.by}: ${entry.reason}`;
    case 'erasure':
      return `erased by ${entry.by}: ${entry.reason}`;
    case 'access':
      return `everything held read by ${entry.by}: ${entry.reason}`;
  }
}

/** What the screen shows of an export: the document masked, counts, the trail. */
function summaryOf(held: SubjectExport): SubjectSummary {
  return {
    document: maskDocument(held.document),
    batches: held.batches.map((batch) => ({
      batchId: batch.batchId,
      status: batch.status,
      createdAt: batch.createdAt,
      rows: batch.rows.map((row) => row.row),
      overrides: batch.overrides.length,
      erased: batch.rows.every((row) => (row.erasedAt ?? null) !== null),
    })),
    reports: held.reports.length,
    rawResponses: held.rawResponses.length,
    audit: held.audit.map((entry) => ({
      at: entry.at,
      kind: entry.kind,
      batchId: entry.batchId,
      row: entry.row,
      detail: detailOf(entry),
    })),
  };
}

/** Registers the DPO's routes: look a document up, export what is held about it, erase it. */
export function addSubjectRoutes(
  app: OpenAPIHono<ConsoleEnv>,
  authenticator: Authenticator,
  deps: SubjectDependencies,
  /** Told after an erasure: what the API keeps of the batches' rows must be read again. */
  onErased: () => void,
): void {
  const lookup = createRoute({
    ...routeBasics('subjectLookup'),
    middleware: [guard('subjectLookup', authenticator)] as const,
    request: { body: json(SubjectRequest, 'The document', true) },
    responses: { 200: json(SubjectSummary, 'What is held, masked'), ...refusals(400, 401, 403) },
  });
  app.openapi(lookup, async (context) =>
    context.json(summaryOf(await exportSubject(context.req.valid('json').document, deps)), 200),
  );
  const exported = createRoute({
    ...routeBasics('subjectExport'),
    middleware: [guard('subjectExport', authenticator)] as const,
    request: { body: json(SubjectRequest, 'The document', true) },
    responses: {
      200: { description: 'Everything held, as a JSON file to hand to the subject' },
      ...refusals(400, 401, 403),
    },
  });
  app.openapi(exported, async (context) => {
    // Recorded in the audit log under the signed-in person: reading everything held about someone is itself an act.
    const held = await exportSubject(context.req.valid('json').document, deps, {
      by: context.get('identity').name,
      reason: ACCESS_REASON,
    });
    deps.logger.info('data subject exported in the console', { subject: context.get('identity').subject });
    context.header('Content-Disposition', 'attachment; filename="titular.json"');
    return context.json(held, 200);
  });
  if (deps.erasure) addErasureRoute(app, authenticator, deps.erasure, { logger: deps.logger, onErased });
}

function addErasureRoute(
  app: OpenAPIHono<ConsoleEnv>,
  authenticator: Authenticator,
  deps: SubjectErasureDependencies,
  { logger, onErased }: { readonly logger: Logger; readonly onErased: () => void },
): void {
  const erase = createRoute({
    ...routeBasics('subjectErase'),
    middleware: [guard('subjectErase', authenticator)] as const,
    request: { body: json(SubjectErasureRequest, 'The document, typed twice, and why', true) },
    responses: { 200: json(SubjectErasureResult, 'Erased'), ...refusals(400, 401, 403, 409) },
  });
  app.openapi(erase, async (context) => {
    const { document, reason } = context.req.valid('json');
    const by = context.get('identity');
    try {
      const erased = await eraseSubject({ document, reason, by: by.name }, deps);
      onErased();
      logger.info('data subject erased in the console', { subject: by.subject });
      return context.json(
        {
          erasedAt: erased.erasedAt,
          batches: erased.batches.length,
          rows: erased.batches.reduce((total, batch) => total + batch.rows.length, 0),
          storedReports: erased.storedReports,
          overrides: erased.overrides,
          auditEntriesKept: erased.auditEntriesKept,
          by: by.name,
        },
        200,
      );
    } catch (error) {
      if (error instanceof ErasureRefused) return context.json({ error: error.message }, 409);
      throw error;
    }
  });
}
