import { join } from 'node:path';
import type { Command } from 'commander';
import { createConsoleApi } from '../../src/api/console-api.ts';
import { policyNames } from '../../src/application/policies/policy-names.ts';
import { DEFAULT_SETTINGS } from '../../src/contract/index.ts';
import { consolePages } from '../console/console-pages.ts';
import { startConsoleServer } from '../console/console-server.ts';
import { startConsoleWorkers } from '../console/console-workers.ts';
import { LocalDownloadLinks } from '../console/local-downloads.ts';
import { localUploads } from '../console/local-uploads.ts';
import { CONSOLE_USERS_FILE, LocalConsoleUsers } from '../console/local-users.ts';
import { addTableAction } from '../option-parsers.ts';
import type { CommandOptions } from '../option-types.ts';
import { type PipelineConnection, withConnection } from '../pipeline-connection.ts';

/**
 * Resolves on Ctrl-C or a `kill`, and keeps handling them until the console has stopped: a terminal's Ctrl-C reaches
 * both the launcher and the console, and the launcher passes its own on, so a second signal must not end the process
 * before its workers have stopped (a call under way would be left charge unknown).
 */
function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => resolve();
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, stop);
  });
}

async function runConsole(options: CommandOptions<'console'>): Promise<void> {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const pages = await consolePages(say);
  let bureau: Awaited<ReturnType<typeof startConsoleWorkers>> = null;
  try {
    // The batches uploaded here wait for a manager above the threshold given, as `screen --approve-above` does.
    const approval = options.approveAbove === undefined ? {} : { approvalThreshold: options.approveAbove };
    await withConnection(
      { state: options.state },
      async (connection) => {
        bureau = await startConsoleWorkers(connection, options, say);
        await serveUntilStopped(connection, options, pages);
      },
      approval,
    );
  } finally {
    // Once the workers have stopped with the connection: none is left calling the bureau.
    await (bureau as Awaited<ReturnType<typeof startConsoleWorkers>>)?.close();
  }
}

async function serveUntilStopped(
  connection: PipelineConnection,
  options: CommandOptions<'console'>,
  pages: string,
) {
  const users = await LocalConsoleUsers.open(join(options.state, CONSOLE_USERS_FILE));
  let origin = '';
  const downloads = new LocalDownloadLinks(connection.objects, () => origin);
  const api = createConsoleApi({
    authenticator: users,
    localUsers: users,
    batches: {
      batchRecords: connection.store,
      batchRows: connection.store,
      queue: connection.queue,
      logger: connection.logger,
    },
    review: {
      batchRecords: connection.store,
      batchRows: connection.store,
      objects: connection.objects,
      overrides: connection.overrides,
      reviewCases: connection.reviewCases,
      sla: (connection.local?.settings ?? DEFAULT_SETTINGS).reviewSla,
      reviewers: users,
      events: connection.events,
      logger: connection.logger,
      audit: connection.audit,
    },
    results: {
      batchRecords: connection.store,
      objects: connection.objects,
      overrides: connection.overrides,
      downloads,
    },
    subjects: { ...connection, reportHistory: connection.store, erasure: connection },
    spend: { budget: connection.budget, bureaus: (connection.local?.settings ?? DEFAULT_SETTINGS).bureaus },
    uploads: connection.local ? localUploads(connection, connection.local) : undefined,
    policies: () => policyNames(connection.objects),
    logger: connection.logger,
  });
  const server = await startConsoleServer({ api, pagesDirectory: pages, port: options.port, downloads });
  origin = server.url;
  users.port = Number(new URL(server.url).port);
  // The token rides in the fragment: the browser never sends it to the server, so no log can keep it.
  process.stdout.write(`console: ${server.url}/#token=${users.ownerLinkToken()}\n`);
  await untilStopped();
  await server.close();
}

export function registerConsoleCommand(program: Command): void {
  addTableAction(
    program
      .command('console')
      .description('Open the console: batches, approvals and users in a browser, on this machine only'),
    'console',
    async (options) => runConsole(options),
  );
}
