import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { once } from '../application/finalise/finish-batch.ts';
import { checkList, type ListCheckRequest, ListRefused } from '../application/ingest/check-list.ts';
import { ListCheckView, UploadRequest, UploadResult } from '../contract/index.ts';
import type { ReportHistory } from '../domain/ports/index.ts';
import type { Bureau } from '../domain/report/index.ts';
import type { Authenticator, ConsoleEnv } from './console-env.ts';
import { json, refusals } from './openapi-parts.ts';
import { guard, routeBasics } from './route-guard.ts';

/** What the local console's uploads need: the stored reports, how lists are quoted, the pipeline. */
export interface UploadDependencies {
  readonly reportHistory: Pick<ReportHistory, 'latestReports'>;
  /** How a list is quoted and read, for a bureau: as the pipeline's settings say. */
  quoting(bureau: Bureau): Omit<ListCheckRequest, 'bureau' | 'nowMs'>;
  /** Puts a list where customers drop theirs and has it ingested, as S3's notification would. */
  submit(upload: {
    readonly fileName: string;
    readonly bytes: Uint8Array;
    readonly bureau: Bureau;
    readonly policy: string | null;
  }): Promise<UploadResult>;
}

/** Registers the local console's upload: the check and quote, and the upload itself. */
export function addUploadRoutes(
  app: OpenAPIHono<ConsoleEnv>,
  authenticator: Authenticator,
  deps: UploadDependencies,
) {
  const check = createRoute({
    ...routeBasics('checkUpload'),
    middleware: [guard('checkUpload', authenticator)] as const,
    request: { body: json(UploadRequest, 'The list and how it would be screened', true) },
    responses: {
      200: json(ListCheckView, 'What the list holds and what it would cost'),
      ...refusals(400, 401, 403),
    },
  });
  app.openapi(check, async (context) => {
    const { content, bureau } = context.req.valid('json');
    try {
      const request = { ...deps.quoting(bureau), bureau, nowMs: Date.now() };
      const checked = await checkList(once(Buffer.from(content, 'base64')), request, deps);
      const { quote, layout } = checked;
      return context.json(
        {
          encoding: layout.encoding,
          delimiter: layout.delimiter,
          documentColumns: [...layout.documentColumns],
          otherColumns: [...layout.passThroughColumns],
          rows: checked.rows,
          valid: checked.valid,
          invalid: checked.invalid,
          duplicates: checked.duplicates,
          unique: checked.unique,
          reusable: quote.reusable,
          toBuy: quote.to_buy,
          pricePerQuery: quote.price_per_query,
          estimatedCost: quote.estimated_cost,
          estimatedSeconds: quote.estimated_seconds,
          problems: [...checked.problems],
        },
        200,
      );
    } catch (error) {
      if (error instanceof ListRefused) return context.json({ error: error.message }, 400);
      throw error;
    }
  });
  const upload = createRoute({
    ...routeBasics('upload'),
    middleware: [guard('upload', authenticator)] as const,
    request: { body: json(UploadRequest, 'The list and how to screen it', true) },
    responses: { 201: json(UploadResult, 'Uploaded: its batch'), ...refusals(400, 401, 403) },
  });
  app.openapi(upload, async (context) => {
    const { fileName, content, bureau, policy } = context.req.valid('json');
    return context.json(
      await deps.submit({ fileName, bytes: Buffer.from(content, 'base64'), bureau, policy }),
      201,
    );
  });
}
