import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalConsoleUsers } from '../../cli/console/local-users.ts';
import { HmacDocumentKeys } from '../../src/adapters/audit/hmac-document-keys.ts';
import { MemoryAuditLog } from '../../src/adapters/memory/memory-audit-log.ts';
import { memoryBatchStore } from '../../src/adapters/memory/memory-batch-store.ts';
import { MemoryDecisionOverrides } from '../../src/adapters/memory/memory-decision-overrides.ts';
import { MemoryLogger } from '../../src/adapters/memory/memory-logger.ts';
import { MemoryObjectStore } from '../../src/adapters/memory/memory-object-store.ts';
import { MemoryReviewCases } from '../../src/adapters/memory/memory-review-cases.ts';
import { RecordingEventPublisher } from '../../src/adapters/memory/recording-event-publisher.ts';
import { createConsoleApi } from '../../src/api/console-api.ts';
import type { Authenticator } from '../../src/api/console-env.ts';
import type { ConsoleRole } from '../../src/contract/index.ts';
import type { SubjectErasureStore, UploadTickets } from '../../src/domain/ports/index.ts';
import { quoteOf } from '../../src/domain/spend/index.ts';
import { asStores, queuedRows } from '../factories/batch-records.ts';
import { RecordingWorkQueue } from '../factories/recording-ports.ts';

/** The console API over memory stores, with local users: what a test calls, and what it looks at afterwards. */
export async function consoleApiHarness(
  options: { readonly authenticator?: Authenticator; readonly uploadTickets?: UploadTickets } = {},
) {
  const store = memoryBatchStore();
  const queue = new RecordingWorkQueue();
  const logger = new MemoryLogger();
  const users = await LocalConsoleUsers.open(
    join(mkdtempSync(join(tmpdir(), 'console-users-')), 'users.json'),
  );
  // As the console sets it once it listens: the session cookie is named by its port.
  users.port = 7474;
  /** The lists the upload route handed to the pipeline. */
  const submitted: { fileName: string; bytes: Uint8Array; bureau: string; policy: string | null }[] = [];
  const objects = new MemoryObjectStore();
  /** The uploads the ticket route signed, as it asked for them. */
  const tickets: { key: string; metadata: Readonly<Record<string, string>>; maxBytes: number }[] = [];
  const overrides = new MemoryDecisionOverrides();
  const reviewCases = new MemoryReviewCases();
  const events = new RecordingEventPublisher();
  const auditLog = new MemoryAuditLog();
  const audit = {
    log: auditLog,
    documentKeys: new HmacDocumentKeys(async () => 'console-test-audit-key'.repeat(3)),
  };
  /** Links as the API asked for them: a fake URL naming the key and the file. */
  const downloads = {
    linkTo: async (key: string, fileName: string) => ({
      url: `https://links.example/${key}?as=${fileName}`,
      expiresAt: '2026-11-29T12:05:00.000Z',
    }),
  };
  const app = createConsoleApi({
    authenticator: options.authenticator ?? users,
    batches: { ...asStores(store), queue, logger },
    review: {
      batchRecords: store,
      batchRows: store,
      objects,
      overrides,
      reviewCases,
      reviewers: users,
      events,
      logger,
      audit,
    },
    results: { batchRecords: store, objects, overrides, downloads },
    subjects: {
      batchRecords: store,
      batchRows: store,
      reportHistory: store,
      overrides,
      logger,
      audit,
      erasure: {
        // The API tests stop an erasure at its request's checks; the browser test erases through the real stores.
        subjectErasure: {} as SubjectErasureStore,
        batchRecords: store,
        objects,
        audit,
      },
    },
    uploads: {
      reportHistory: store,
      quoting: () => ({ maxRows: 1000, pricePerQuery: 2.7, ratePerSecond: 10, freshnessHours: 24 }),
      submit: async (upload) => {
        submitted.push(upload);
        return { batchId: 'batch-uploaded', outcome: 'queued', reason: null };
      },
    },
    spend: {
      budget: { spent: async () => ({ a: 120, b: 0 }) },
      bureaus: {
        a: { pricePerQuery: 2.7, monthlyChargeCap: 1000 },
        b: { pricePerQuery: 8.4, monthlyChargeCap: null },
      },
      now: () => Date.parse('2026-11-29T12:00:00Z'),
    },
    policies: async () => ['pessoa-fisica.json'],
    uploadTickets: options.uploadTickets ?? {
      ticketFor: async (upload) => {
        tickets.push(upload);
        return {
          url: 'https://uploads.example/',
          fields: { key: upload.key, ...upload.metadata },
          key: upload.key,
          expiresAt: '2026-11-29T12:05:00.000Z',
          maxBytes: upload.maxBytes,
        };
      },
    },
    localUsers: users,
    logger,
  });

  /** Sends a request as the browser would, with the session's cookie when given one. */
  const call = (path: string, init: { method?: string; body?: unknown; session?: string } = {}) =>
    app.request(path, {
      method: init.method ?? 'GET',
      headers: {
        ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...(init.session === undefined ? {} : { Cookie: init.session }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });

  /** Signs in through the sign-in route with a link token; the session's cookie (`name=value`). */
  async function signInWith(token: string): Promise<string> {
    const response = await call('/api/session', { method: 'POST', body: { token } });
    if (response.status !== 200) throw new Error(`sign-in refused: ${response.status}`);
    return (response.headers.get('set-cookie') ?? '').split(';')[0] as string;
  }

  /** A new user with these roles, signed in. */
  async function signInAs(name: string, roles: ConsoleRole[]): Promise<string> {
    const owner = await users.list();
    const created = await users.create({ name, roles }, owner[0] as never);
    return signInWith(created.signInToken);
  }

  /** A batch of `rows` queued rows; waiting for approval when `awaitingApproval`, else running. */
  async function batch(
    batchId: string,
    options: { rows?: number; awaitingApproval?: boolean; createdAt?: number } = {},
  ) {
    const rows = options.rows ?? 3;
    await store.createBatch({
      batchId,
      sourceBucket: 'b',
      sourceKey: `incoming/${batchId}.csv`,
      bureau: 'a',
      excelSummary: false,
    });
    await store.writeRows(batchId, queuedRows(rows, batchId));
    const quote = quoteOf({ bureau: 'a', unique: rows, reusable: 0, pricePerQuery: 2.7, ratePerSecond: 10 });
    await store.finishIngest(
      batchId,
      { rows, invalid: 0, duplicates: 0, toScreen: rows, cached: 0 },
      { quote, awaitingApproval: options.awaitingApproval ?? false },
    );
  }

  return {
    app,
    store,
    queue,
    logger,
    users,
    objects,
    overrides,
    events,
    auditLog,
    submitted,
    tickets,
    call,
    signInWith,
    signInAs,
    batch,
  };
}
