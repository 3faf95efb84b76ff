import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { type ExportDecisionsDependencies, exportDecisions } from '../application/review/export-decisions.ts';
import {
  BatchIdParams,
  type BatchManifest,
  DownloadLink,
  DownloadRequest,
  ExportResult,
  type ResultFile,
  resultKeys,
} from '../contract/index.ts';
import type { DownloadLinks } from '../domain/ports/index.ts';
import type { Authenticator, ConsoleEnv } from './console-env.ts';
import { json, refusals } from './openapi-parts.ts';
import { refused } from './review-views.ts';
import { guard, routeBasics } from './route-guard.ts';

/** What the results routes read: the batches' records and results, their overrides, and how to link a file. */
export interface ResultDependencies extends ExportDecisionsDependencies {
  readonly downloads: DownloadLinks;
}

const FILE_NAMES: Readonly<Record<ResultFile, string>> = {
  summary: 'summary.csv',
  reports: 'reports.jsonl',
  changes: 'changes.csv',
  report: 'report.html',
};

/** The key of `file` in a finished batch's results, from its manifest; null when the batch has no such file. */
function keyOf(manifest: BatchManifest, batchId: string, file: ResultFile): string | null {
  const files = manifest.files;
  if (file === 'summary') return files?.summary ?? resultKeys(batchId).summary;
  if (file === 'reports') return files?.reports ?? resultKeys(batchId).reports;
  return files?.[file] ?? null;
}

/** Registers the links to a batch's result files and the export of its final decisions. */
export function addResultRoutes(
  app: OpenAPIHono<ConsoleEnv>,
  authenticator: Authenticator,
  deps: ResultDependencies,
): void {
  const download = createRoute({
    ...routeBasics('download'),
    middleware: [guard('download', authenticator)] as const,
    request: { params: BatchIdParams, body: json(DownloadRequest, 'Which file', true) },
    responses: {
      200: json(DownloadLink, 'A link that works for a few minutes'),
      ...refusals(400, 401, 403, 404, 409),
    },
  });
  app.openapi(download, async (context) => {
    const { batchId } = context.req.valid('param');
    const { file } = context.req.valid('json');
    const batch = await deps.batchRecords.getBatch(batchId);
    if (batch === null) return context.json({ error: `no batch ${batchId}` }, 404);
    const manifestText = await deps.objects.readTextIfExists(resultKeys(batchId).manifest);
    if (batch.status !== 'completed' || manifestText === null)
      return context.json(
        { error: `batch ${batchId} is ${batch.status}: its results come when it completes` },
        409,
      );
    const key = keyOf(JSON.parse(manifestText) as BatchManifest, batchId, file);
    if (key === null) return context.json({ error: `batch ${batchId} has no ${FILE_NAMES[file]}` }, 404);
    const fileName = `${batchId}-${FILE_NAMES[file]}`;
    return context.json({ ...(await deps.downloads.linkTo(key, fileName)), fileName }, 200);
  });
  const exported = createRoute({
    ...routeBasics('exportDecisions'),
    middleware: [guard('exportDecisions', authenticator)] as const,
    request: { params: BatchIdParams },
    responses: { 200: json(ExportResult, 'Written into summary.csv'), ...refusals(400, 401, 403, 404, 409) },
  });
  app.openapi(exported, async (context) => {
    const { batchId } = context.req.valid('param');
    const written = await refused(() => exportDecisions(batchId, deps));
    if ('error' in written) return context.json({ error: written.error }, written.status);
    const { overridden, rows, stillInReview } = written;
    return context.json({ batchId, rows, overridden, stillInReview }, 200);
  });
}
