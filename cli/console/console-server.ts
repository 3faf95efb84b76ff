import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { CONTENT_SECURITY_POLICY } from '../../src/api/console-api.ts';
import { DOWNLOAD_PATH } from './local-downloads.ts';

/** A console listening on loopback. */
export interface ConsoleServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves the console's API and its pages (`pagesDirectory`, Vite's build) on 127.0.0.1 only: the API under `/api`,
 * the built files as they are, and the page itself for every other path (the browser routes). The pages carry the
 * same security policy as the API's answers.
 */
export async function startConsoleServer(options: {
  /** The console's API: every request under `/api/` goes to it. */
  readonly api: { fetch(request: Request): Response | Promise<Response> };
  readonly pagesDirectory: string;
  readonly port: number;
  /** Serves the local links to result files (under `/files/`), which carry their own headers. */
  readonly downloads: { serve(token: string): Response };
}): Promise<ConsoleServer> {
  const page = await readFile(join(options.pagesDirectory, 'index.html'), 'utf8');
  const site = new Hono();
  let port = 0;
  // Only requests addressed to this console: a page of another site whose name a DNS rebinding points at
  // 127.0.0.1 sends its own host name, and is refused before anything reads the session.
  site.use('*', async (context, next) => {
    const host = context.req.header('host');
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`)
      return context.text('this console answers only at its own address', 421);
    return next();
  });
  site.all('/api/*', (context) => options.api.fetch(context.req.raw));
  // GET only: a HEAD (Hono answers it with the GET route) must not use a one-time link up.
  site.on('HEAD', `${DOWNLOAD_PATH}:token`, (context) => context.body(null, 405));
  site.get(`${DOWNLOAD_PATH}:token`, (context) => options.downloads.serve(context.req.param('token')));
  site.use(
    '*',
    secureHeaders({ contentSecurityPolicy: CONTENT_SECURITY_POLICY, referrerPolicy: 'no-referrer' }),
  );
  site.use('/assets/*', serveStatic({ root: options.pagesDirectory }));
  site.get('/assets/*', (context) => context.text('not found', 404));
  site.get('*', (context) => context.html(page));
  const server = serve({ fetch: site.fetch, hostname: '127.0.0.1', port: options.port });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
