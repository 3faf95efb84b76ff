import { describe, expect, it } from 'vitest';
import type { BatchPage, CreatedUser } from '../../src/contract/index.ts';
import { CONSOLE_ROUTES, type ConsoleRouteName, consolePath, resultKeys } from '../../src/contract/index.ts';
import { consoleApiHarness } from './console-api-harness.ts';

const SIGNED_IN_ROUTES = (Object.keys(CONSOLE_ROUTES) as ConsoleRouteName[]).filter(
  (name) => CONSOLE_ROUTES[name].roles !== 'public',
);

/** A route's path with a well-formed batch id in it. */
const pathOf = (name: ConsoleRouteName) => consolePath(name, { batchId: 'batch-1', row: '1' });

/** A request to route `name` of its method (an empty JSON body when it takes one). */
const requestOf = (name: ConsoleRouteName, session?: string) => {
  const method = CONSOLE_ROUTES[name].method.toUpperCase();
  return { method, session, ...(method === 'POST' || method === 'PUT' ? { body: {} } : {}) };
};

describe('the console API', () => {
  it('refuses every route but the public ones to nobody signed in, in one line', async () => {
    const { call } = await consoleApiHarness();

    const answers = await Promise.all(
      SIGNED_IN_ROUTES.map(async (name) => {
        const response = await call(pathOf(name), requestOf(name));
        return [name, response.status, await response.json()];
      }),
    );

    expect(answers).toEqual(
      SIGNED_IN_ROUTES.map((name) => [name, 401, { error: 'sign in to the console first' }]),
    );
  });

  it('lets each role call only the routes that name it', async () => {
    const { call, signInAs } = await consoleApiHarness();
    const sessions = {
      analyst: await signInAs('Ana Analista', ['analyst']),
      manager: await signInAs('Marta Gerente', ['manager']),
      dpo: await signInAs('Davi Encarregado', ['dpo']),
      admin: await signInAs('Alice Admin', ['admin']),
    };

    const allowed = async (session: string, name: ConsoleRouteName) => {
      const response = await call(pathOf(name), requestOf(name, session));
      // Allowed: neither refusal of a sign-in or a role (a missing batch's 404, a body's 400 are the route's own).
      return response.status !== 401 && response.status !== 403;
    };

    for (const [role, session] of Object.entries(sessions))
      for (const name of SIGNED_IN_ROUTES.filter((route) => route !== 'signOut')) {
        const roles = CONSOLE_ROUTES[name].roles;
        const expected = roles === 'signed-in' || (roles as readonly string[]).includes(role);
        expect([role, name, await allowed(session, name)]).toEqual([role, name, expected]);
      }
  });

  it('records the signed-in manager as who approved, whatever the request says', async () => {
    const { call, signInAs, batch, store, queue } = await consoleApiHarness();
    await batch('batch-big', { rows: 4, awaitingApproval: true });
    const manager = await signInAs('Marta Gerente', ['manager']);

    const response = await call(consolePath('approval', { batchId: 'batch-big' }), {
      method: 'POST',
      body: { decision: 'approved', by: 'someone else' },
      session: manager,
    });

    expect([response.status, await response.json()]).toEqual([
      200,
      { batchId: 'batch-big', outcome: 'approved', rows: 4, by: 'Marta Gerente' },
    ]);
    expect(await store.getBatch('batch-big')).toMatchObject({
      status: 'running',
      approval: 'approved',
      approvalBy: 'Marta Gerente',
    });
    expect(queue.dispatch).toEqual([{ version: 1, batchId: 'batch-big' }]);
  });

  it('refuses to approve a batch that is not waiting, naming its state, and sends nothing', async () => {
    const { call, signInAs, batch, queue } = await consoleApiHarness();
    await batch('batch-running');
    const manager = await signInAs('Marta Gerente', ['manager']);

    const response = await call(consolePath('approval', { batchId: 'batch-running' }), {
      method: 'POST',
      body: { decision: 'approved' },
      session: manager,
    });

    expect([response.status, await response.json()]).toEqual([
      409,
      { error: 'batch batch-running is running, not waiting for approval' },
    ]);
    expect([queue.dispatch, queue.work]).toEqual([[], []]);
  });

  it('cancels a running batch for a manager: its queued rows are never sent', async () => {
    const { call, signInAs, batch, store } = await consoleApiHarness();
    await batch('batch-run', { rows: 5 });
    const manager = await signInAs('Marta Gerente', ['manager']);

    const response = await call(consolePath('cancel', { batchId: 'batch-run' }), {
      method: 'POST',
      body: {},
      session: manager,
    });

    expect([response.status, await response.json()]).toEqual([
      200,
      { batchId: 'batch-run', cancelledRows: 5, by: 'Marta Gerente' },
    ]);
    expect(await store.getBatch('batch-run')).toMatchObject({ cancelRequested: true, cancelled: 5 });
  });

  it('lists batches newest first, a page at a time, with what each has spent', async () => {
    const { call, signInAs, batch } = await consoleApiHarness();
    for (const id of ['b1', 'b2', 'b3']) await batch(id);
    const analyst = await signInAs('Ana Analista', ['analyst']);

    const first = (await (await call('/api/batches?limit=2', { session: analyst })).json()) as BatchPage;
    const second = (await (
      await call('/api/batches?limit=2&page=1', { session: analyst })
    ).json()) as BatchPage;

    expect([first.batches.map((b: { batchId: string }) => b.batchId), first.hasMore]).toEqual([
      ['b3', 'b2'],
      true,
    ]);
    expect([second.batches.map((b: { batchId: string }) => b.batchId), second.hasMore]).toEqual([
      ['b1'],
      false,
    ]);
    expect(first.batches[0]).toMatchObject({
      status: 'running',
      rows: 3,
      spent: 0,
      quote: { toBuy: 3, estimatedCost: 8.1 },
    });
    expect(first.batches[0]).not.toHaveProperty('sourceKey');
  });

  it.each([
    ['/api/batches?limit=0', 'limit: Too small: expected number to be >=1'],
    [
      '/api/batches?limit=100&page=10',
      'page: the console lists the newest 1000 batches; older ones are read with the command line',
    ],
    ['/api/batches/not%20an%20id', 'batchId: not a batch id'],
    ['/api/batches/no-such-batch', 'no batch no-such-batch'],
  ])('answers %s with one line', async (path, error) => {
    const { call, signInAs } = await consoleApiHarness();
    const analyst = await signInAs('Ana Analista', ['analyst']);

    const response = await call(path, { session: analyst });

    expect([response.status >= 400 && response.status < 500, await response.json()]).toEqual([
      true,
      { error },
    ]);
  });

  it('signs in once per link, with a session cookie no script can read', async () => {
    const { call, users, signInWith } = await consoleApiHarness();
    const token = users.ownerLinkToken();

    const first = await call('/api/session', { method: 'POST', body: { token } });
    const again = await call('/api/session', { method: 'POST', body: { token } });

    expect(first.status).toBe(200);
    expect(first.headers.get('set-cookie')).toMatch(
      /^credit_screen_session_7474=[\w-]{43}; Path=\/api; HttpOnly; SameSite=Strict$/,
    );
    expect([again.status, await again.json()]).toEqual([
      401,
      { error: 'this sign-in link was used already or has expired; ask for a new one' },
    ]);
    await expect(signInWith('made-up')).rejects.toThrow('sign-in refused: 401');
  });

  it('ends a session on sign-out', async () => {
    const { call, signInAs } = await consoleApiHarness();
    const session = await signInAs('Ana Analista', ['analyst']);

    const out = await call('/api/session', { method: 'DELETE', session });
    const after = await call('/api/me', { session });

    expect([out.status, after.status]).toEqual([204, 401]);
  });

  it('lets an admin create a user whose link signs them in with the roles given', async () => {
    const { call, users, signInWith } = await consoleApiHarness();
    const owner = await signInWith(users.ownerLinkToken());

    const created = await call('/api/users', {
      method: 'POST',
      body: { name: ' Rita Revisora ', roles: ['analyst'] },
      session: owner,
    });
    const { user, signInToken } = (await created.json()) as CreatedUser;
    const me = await call('/api/me', { session: await signInWith(signInToken) });

    expect(created.status).toBe(201);
    expect(await me.json()).toEqual({ subject: user.subject, name: 'Rita Revisora', roles: ['analyst'] });
    expect(user.createdBy).toBe((await users.list())[0]?.name);
  });

  it('refuses a second user of the same name: what people do is recorded under their names', async () => {
    const { call, users, signInWith } = await consoleApiHarness();
    const owner = await signInWith(users.ownerLinkToken());
    await call('/api/users', {
      method: 'POST',
      body: { name: 'Rita Revisora', roles: ['analyst'] },
      session: owner,
    });

    const again = await call('/api/users', {
      method: 'POST',
      body: { name: 'rita revisora', roles: ['manager'] },
      session: owner,
    });

    expect([again.status, await again.json()]).toEqual([
      409,
      { error: 'there is a user named rita revisora already: give a name that tells them apart' },
    ]);
  });

  it.each([
    [
      { name: 'Rita\nRevisora', roles: ['analyst'] },
      'name: the name holds a line break: the audit log keeps it as one line, so write it on one line',
    ],
    [{ name: 'Rita', roles: [] }, 'roles: a user needs a role'],
    [
      { name: 'Rita', roles: ['root'] },
      'roles.0: Invalid option: expected one of "analyst"|"manager"|"dpo"|"admin"',
    ],
  ])('refuses a user %j in one line', async (body, error) => {
    const { call, users, signInWith } = await consoleApiHarness();
    const owner = await signInWith(users.ownerLinkToken());

    const response = await call('/api/users', { method: 'POST', body, session: owner });

    expect([response.status, await response.json()]).toEqual([400, { error }]);
  });

  it.each([
    [
      'text/plain',
      '{"decision":"approved"}',
      415,
      'send the request as JSON (Content-Type: application/json)',
    ],
    ['application/json', '{"decision":', 400, 'the request body is not JSON'],
    ['application/json', '', 400, 'the request body is not JSON'],
    [
      'application/json',
      '{"decision":"yes"}',
      400,
      'decision: Invalid option: expected one of "approved"|"rejected"',
    ],
  ])(
    'refuses an approval sent as %s %j in one line, and sends nothing',
    async (type, body, status, error) => {
      const { app, signInAs, batch, queue } = await consoleApiHarness();
      await batch('batch-big', { awaitingApproval: true });
      const manager = await signInAs('Marta Gerente', ['manager']);

      const response = await app.request(consolePath('approval', { batchId: 'batch-big' }), {
        method: 'POST',
        headers: { Cookie: manager, 'Content-Type': type },
        body,
      });

      expect([response.status, await response.json()]).toEqual([status, { error }]);
      expect(queue.dispatch).toEqual([]);
    },
  );

  it('publishes its OpenAPI document without sign-in, with every other route and who may call it', async () => {
    const { call } = await consoleApiHarness();

    const document = (await (await call('/api/openapi.json')).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { description?: string }>>;
    };

    const documented = Object.entries(
      document.paths as Record<string, Record<string, { description?: string }>>,
    ).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => [method, path, operation.description ?? null]),
    );
    const expected = (Object.keys(CONSOLE_ROUTES) as ConsoleRouteName[])
      .filter((name) => name !== 'openApi')
      .map((name) => {
        const { method, path, roles } = CONSOLE_ROUTES[name];
        return [
          method,
          path,
          roles === 'public' ? null : `Roles: ${roles === 'signed-in' ? 'any' : roles.join(', ')}.`,
        ];
      });
    expect(document.openapi).toBe('3.1.0');
    expect(documented.sort()).toEqual(expected.sort());
  });

  it('answers with a policy that runs no inline script and is never cached', async () => {
    const { call } = await consoleApiHarness();

    const response = await call('/api/me');

    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain('unsafe-inline');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});

describe('the console API’s review', () => {
  it.each([
    [{ decision: 'approve', reason: '  ' }, 400, 'reason: say why the decision is changed'],
    [
      { decision: 'decline', creditLimit: 5000, reason: 'x' },
      400,
      'creditLimit: a decline has no credit limit',
    ],
    [
      { decision: 'approve', reason: 'a\u001bb' },
      400,
      'reason: the reason holds a control character (a tab, an escape, …), which the audit log does not keep',
    ],
    [
      { decision: 'approve', reason: 'ok' },
      409,
      'batch batch-run is running: its decisions are known once it completes',
    ],
  ])('refuses an override %j in one line, recording nothing', async (body, status, error) => {
    const { call, signInAs, batch, overrides, events } = await consoleApiHarness();
    await batch('batch-run');
    const analyst = await signInAs('Ana Analista', ['analyst']);

    const response = await call(consolePath('override', { batchId: 'batch-run', row: '1' }), {
      method: 'POST',
      body,
      session: analyst,
    });

    expect([response.status, await response.json()]).toEqual([status, { error }]);
    expect(await overrides.overridesOf('batch-run')).toEqual([]);
    expect(events.events).toEqual([]);
  });

  it('refuses a request body over its limit before reading it', async () => {
    const { app, signInAs } = await consoleApiHarness();
    const analyst = await signInAs('Ana Analista', ['analyst']);

    const response = await app.request(consolePath('override', { batchId: 'b', row: '1' }), {
      method: 'POST',
      headers: { Cookie: analyst, 'Content-Type': 'application/json' },
      body: JSON.stringify({ decision: 'approve', reason: 'x'.repeat(20_000) }),
    });

    expect([response.status, await response.json()]).toEqual([413, { error: 'a request is at most 16 KB' }]);
  });
});

describe('the console API’s results', () => {
  /** A batch of three rows, completed with a manifest that lists its summary and reports (no changes). */
  async function completedBatch(harness: Awaited<ReturnType<typeof consoleApiHarness>>, batchId: string) {
    await harness.batch(batchId);
    for (const row of [1, 2, 3]) {
      const claim = await harness.store.claimRow(batchId, row, 30);
      if (claim.claimed)
        await harness.store.settleRow(batchId, row, claim.claimToken, { outcome: 'failed', reason: 'down' });
    }
    await harness.store.claimFinalisation(batchId);
    await harness.store.completeBatch(batchId, 'manifest');
    await harness.objects.putJson(resultKeys(batchId).manifest, {
      files: { summary: resultKeys(batchId).summary, reports: resultKeys(batchId).reports },
    });
  }

  it('links a finished batch’s file for a few minutes, named by the batch', async () => {
    const harness = await consoleApiHarness();
    await completedBatch(harness, 'batch-done');
    const analyst = await harness.signInAs('Ana Analista', ['analyst']);

    const response = await harness.call(consolePath('download', { batchId: 'batch-done' }), {
      method: 'POST',
      body: { file: 'summary' },
      session: analyst,
    });

    expect([response.status, await response.json()]).toEqual([
      200,
      {
        url: 'https://links.example/results/batch-done/summary.csv?as=batch-done-summary.csv',
        expiresAt: '2026-11-29T12:05:00.000Z',
        fileName: 'batch-done-summary.csv',
      },
    ]);
  });

  it.each([
    ['batch-run', 'summary', 409, 'batch batch-run is running: its results come when it completes'],
    ['batch-done', 'changes', 404, 'batch batch-done has no changes.csv'],
    ['batch-none', 'summary', 404, 'no batch batch-none'],
    [
      'batch-done',
      'manifest',
      400,
      'file: Invalid option: expected one of "summary"|"reports"|"changes"|"report"',
    ],
  ])('refuses a link to %s’s %s in one line', async (batchId, file, status, error) => {
    const harness = await consoleApiHarness();
    await harness.batch('batch-run');
    await completedBatch(harness, 'batch-done');
    const analyst = await harness.signInAs('Ana Analista', ['analyst']);

    const response = await harness.call(consolePath('download', { batchId }), {
      method: 'POST',
      body: { file },
      session: analyst,
    });

    expect([response.status, await response.json()]).toEqual([status, { error }]);
  });

  it('refuses to export the decisions of a batch screened without a policy', async () => {
    const harness = await consoleApiHarness();
    await completedBatch(harness, 'batch-done');
    const manager = await harness.signInAs('Marta Gerente', ['manager']);

    const response = await harness.call(consolePath('exportDecisions', { batchId: 'batch-done' }), {
      method: 'POST',
      body: {},
      session: manager,
    });

    expect([response.status, await response.json()]).toEqual([
      409,
      { error: 'batch batch-done was screened without a policy: its rows have no decision' },
    ]);
  });
});

describe('the console API’s data subjects', () => {
  it('finds nothing held about a document never screened, and shows it masked', async () => {
    const { call, signInAs } = await consoleApiHarness();
    const dpo = await signInAs('Davi Encarregado', ['dpo']);

    const response = await call('/api/subjects/lookup', {
      method: 'POST',
      body: { document: '529.982.247-25' },
      session: dpo,
    });

    expect([response.status, await response.json()]).toEqual([
      200,
      { document: '***.982.247-**', batches: [], reports: 0, rawResponses: 0, audit: [] },
    ]);
  });

  it.each([
    [
      { document: '529.982.247-00', confirmation: '529.982.247-00', reason: 'x' },
      'document: bad CPF check digit',
    ],
    [
      { document: '52998224725', confirmation: '11144477735', reason: 'Pedido 42' },
      'confirmation: the confirmation is not the same document',
    ],
    [
      { document: '52998224725', confirmation: '529.982.247-25', reason: ' ' },
      'reason: say why (the request’s reference)',
    ],
  ])('refuses an erasure %j in one line, before anything is erased', async (body, error) => {
    const { call, signInAs } = await consoleApiHarness();
    const dpo = await signInAs('Davi Encarregado', ['dpo']);

    const response = await call('/api/subjects/erase', { method: 'POST', body, session: dpo });

    expect([response.status, await response.json()]).toEqual([400, { error }]);
  });
});

describe('the console API’s spend', () => {
  it('answers the month’s queries per bureau, their cost and the caps', async () => {
    const { call, signInAs } = await consoleApiHarness();
    const manager = await signInAs('Marta Gerente', ['manager']);

    const response = await call('/api/spend', { session: manager });

    expect([response.status, await response.json()]).toEqual([
      200,
      {
        month: '2026-11',
        bureaus: [
          { bureau: 'a', queries: 120, pricePerQuery: 2.7, cost: 324, cap: 1000 },
          { bureau: 'b', queries: 0, pricePerQuery: 8.4, cost: 0, cap: null },
        ],
      },
    ]);
  });
});

describe('the console API’s redrive', () => {
  it('sends a finished batch’s failed rows back for a manager, none of them possibly charged', async () => {
    const harness = await consoleApiHarness();
    await harness.batch('batch-failed');
    for (const row of [1, 2, 3]) {
      const claim = await harness.store.claimRow('batch-failed', row, 30);
      if (claim.claimed)
        await harness.store.settleRow('batch-failed', row, claim.claimToken, {
          outcome: 'failed',
          reason: 'down',
        });
    }
    await harness.store.claimFinalisation('batch-failed');
    await harness.store.completeBatch('batch-failed', 'manifest');
    const manager = await harness.signInAs('Marta Gerente', ['manager']);

    const response = await harness.call(consolePath('redrive', { batchId: 'batch-failed' }), {
      method: 'POST',
      body: {},
      session: manager,
    });

    expect([response.status, await response.json()]).toEqual([
      200,
      { batchId: 'batch-failed', outcome: 'redriven', requeued: 3, left: 0 },
    ]);
    expect(harness.queue.work.map((message) => message.row).sort()).toEqual([1, 2, 3]);
  });
});
