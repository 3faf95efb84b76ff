import { describe, expect, it } from 'vitest';
import { consolePath, resultKeys } from '../../src/contract/index.ts';
import { consoleApiHarness } from './console-api-harness.ts';

type Harness = Awaited<ReturnType<typeof consoleApiHarness>>;

/** A completed batch decided by a policy, its rows 1 and 2 in review (as finalise lists them in review.jsonl). */
async function decidedBatch(harness: Harness, batchId: string, inReview = 2): Promise<void> {
  await harness.store.createBatch({
    batchId,
    sourceBucket: 'b',
    sourceKey: `incoming/a/${batchId}.csv`,
    bureau: 'a',
    excelSummary: false,
    policy: { name: 'pessoa-fisica.json', sha256: 'ab'.repeat(32), key: `work/${batchId}/policy.json` },
  });
  await harness.store.finishIngest(batchId, { rows: 3, invalid: 0, duplicates: 0, toScreen: 0, cached: 0 });
  await harness.store.claimFinalisation(batchId);
  await harness.store.completeBatch(batchId, resultKeys(batchId).manifest);
  const keys = resultKeys(batchId);
  await harness.objects.putJson(keys.manifest, {
    files: { summary: keys.summary, reports: keys.reports, review: keys.review },
  });
  const line = (row: number) =>
    `${JSON.stringify({
      row,
      document: `5299822472${row}`,
      documentType: 'cpf',
      reasons: [{ code: 'PROBABILIDADE_ALTA', text: 'Probabilidade de inadimplência de 30% ou mais' }],
      risk_band: 'C',
      credit_limit: 5000,
      customer: { cliente: `C${row}` },
    })}\n`;
  harness.objects.put(keys.review, Array.from({ length: inReview }, (_, index) => line(index + 1)).join(''));
}

const assignee = (batchId: string, row: number) => consolePath('assign', { batchId, row: String(row) });

describe('the console API’s review cases', () => {
  it('gives a free row to the first who takes it and refuses the second in one line (409)', async () => {
    const harness = await consoleApiHarness();
    await decidedBatch(harness, 'batch-cases');
    const ana = await harness.signInAs('Ana Analista', ['analyst']);
    const bia = await harness.signInAs('Bia Analista', ['analyst']);

    const taken = await harness.call(assignee('batch-cases', 1), {
      method: 'PUT',
      body: { to: 'me', expected: null },
      session: ana,
    });
    const again = await harness.call(assignee('batch-cases', 1), {
      method: 'PUT',
      body: { to: 'me', expected: null },
      session: bia,
    });

    expect(taken.status).toBe(200);
    await expect(taken.json()).resolves.toMatchObject({ assignee: { name: 'Ana Analista' } });
    expect([again.status, await again.json()]).toEqual([
      409,
      { error: 'row 1 was assigned by someone else meanwhile: reload the queue' },
    ]);
  });

  it('lets a manager alone give a row to a reviewer, named as the directory names them (403 otherwise)', async () => {
    const harness = await consoleApiHarness();
    await decidedBatch(harness, 'batch-give');
    const ana = await harness.signInAs('Ana Analista', ['analyst']);
    await harness.signInAs('Bia Analista', ['analyst']);
    const marta = await harness.signInAs('Marta Gerente', ['manager']);
    const reviewers = await harness.call('/api/reviewers', { session: marta });
    const { reviewers: people } = (await reviewers.json()) as {
      reviewers: { subject: string; name: string }[];
    };
    const anaSubject = people.find((person) => person.name === 'Ana Analista')?.subject as string;
    const biaSubject = people.find((person) => person.name === 'Bia Analista')?.subject as string;

    const byAnalyst = await harness.call(assignee('batch-give', 2), {
      method: 'PUT',
      body: { to: { subject: biaSubject }, expected: null },
      session: ana,
    });
    const byManager = await harness.call(assignee('batch-give', 2), {
      method: 'PUT',
      body: { to: { subject: anaSubject }, expected: null },
      session: marta,
    });
    const toNobodyKnown = await harness.call(assignee('batch-give', 1), {
      method: 'PUT',
      body: { to: { subject: 'someone-else' }, expected: null },
      session: marta,
    });

    expect([byAnalyst.status, await byAnalyst.json()]).toEqual([
      403,
      { error: 'only a manager gives a row to someone else' },
    ]);
    await expect(byManager.json()).resolves.toMatchObject({
      assignee: { subject: anaSubject, name: 'Ana Analista' },
    });
    expect([toNobodyKnown.status, await toNobodyKnown.json()]).toEqual([
      404,
      { error: 'no reviewer has that id' },
    ]);
  });

  it.each([
    ['assign', { to: 'everyone', expected: null }, 400],
    ['comment', { text: 'linha\u0007com sino' }, 400],
    ['comment', { text: '   ' }, 400],
    ['comment', { text: 'x'.repeat(1001) }, 400],
  ] as const)('refuses a %s of %j in one line, changing nothing', async (route, body, status) => {
    const harness = await consoleApiHarness();
    await decidedBatch(harness, 'batch-bad');
    const ana = await harness.signInAs('Ana Analista', ['analyst']);

    const response = await harness.call(consolePath(route, { batchId: 'batch-bad', row: '1' }), {
      method: route === 'assign' ? 'PUT' : 'POST',
      body,
      session: ana,
    });
    const kept = await harness.call(consolePath('reviewCase', { batchId: 'batch-bad', row: '1' }), {
      session: ana,
    });

    expect(response.status).toBe(status);
    expect(Object.keys((await response.json()) as object)).toEqual(['error']);
    await expect(kept.json()).resolves.toMatchObject({ assignee: null, comments: [] });
  });

  it('refuses a case for a row its policy did not send to review (404)', async () => {
    const harness = await consoleApiHarness();
    await decidedBatch(harness, 'batch-missing');
    const ana = await harness.signInAs('Ana Analista', ['analyst']);

    const response = await harness.call(consolePath('comment', { batchId: 'batch-missing', row: '3' }), {
      method: 'POST',
      body: { text: 'nota' },
      session: ana,
    });

    expect([response.status, await response.json()]).toEqual([
      404,
      { error: 'row 3 of batch batch-missing was not sent to review' },
    ]);
  });

  it('reads a huge batch’s rows in review only as far as the console lists them', async () => {
    const harness = await consoleApiHarness();
    await decidedBatch(harness, 'batch-huge', 25_000);
    const ana = await harness.signInAs('Ana Analista', ['analyst']);

    const response = await harness.call('/api/review?batchId=batch-huge&limit=200&page=49', { session: ana });

    // The console pages through the oldest 10,000 waiting; twice that is read, for rows overridden among them.
    expect(response.status).toBe(200);
    await expect(response.json()).resolves.toMatchObject({ total: 20_000, batches: 1 });
  });
});
