import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zenCreditPolicyLoader } from '../../../src/adapters/decision/zen-credit-policy.ts';
import { MemoryLogger } from '../../../src/adapters/memory/memory-logger.ts';
import { RecordingEventPublisher } from '../../../src/adapters/memory/recording-event-publisher.ts';
import { checkPolicyUpload } from '../../../src/application/policies/check-policy-upload.ts';
import { policyKey } from '../../../src/contract/index.ts';
import type { BureauGateway, CreditPolicyLoader } from '../../../src/domain/ports/index.ts';
import { DECISION_COLUMNS, SUMMARY_COLUMNS } from '../../../src/domain/summary/index.ts';
import { distinctDocuments } from '../../factories/customer-lists.ts';
import { type MemoryPipeline, startMemoryPipeline } from '../../factories/memory-pipeline.ts';
import { reportFigures } from '../../factories/report-figures.ts';
import { screenListOn } from '../../factories/screen-list.ts';

const POLICY_FILE = 'samples/policies/pessoa-fisica.json';

let test: MemoryPipeline;
let bureau: BureauGateway;
beforeAll(async () => {
  test = await startMemoryPipeline();
  bureau = test.bureau;
  test.objects.put(policyKey('pessoa-fisica.json'), readFileSync(POLICY_FILE));
}, 60_000);
afterAll(async () => {
  await test?.stop();
});

/** Screens a list end to end on the memory adapters (see test/factories/screen-list.ts). */
const screenList = (
  csv: string,
  metadata?: Record<string, string>,
  options?: Parameters<typeof screenListOn>[4],
) => screenListOn(test, bureau, csv, metadata, options);

/** The batch's rows as the store holds them. */
async function collectRows(batchId: string) {
  const rows = [];
  for await (const page of test.adapters.batchRows.rows(batchId)) rows.push(...page);
  return rows;
}

/** The real engine, counting the decisions its policies make. */
function countingLoader(): CreditPolicyLoader & { decided: number } {
  const counting = {
    decided: 0,
    async load(name: string, contents: Uint8Array | string) {
      const loaded = await zenCreditPolicyLoader.load(name, contents);
      if (!loaded.ok) return loaded;
      const { policy } = loaded;
      return {
        ...loaded,
        policy: {
          ...policy,
          name: policy.name,
          sha256: policy.sha256,
          customerColumnsRead: policy.customerColumnsRead,
          decide: (input: Parameters<typeof policy.decide>[0]) => {
            counting.decided++;
            return policy.decide(input);
          },
        },
      };
    },
  };
  return counting;
}

describe('decisions in the pipeline (the worker decides as it settles; the finaliser what it could not)', () => {
  it('decides each row in the worker, with the report in hand: the finaliser evaluates nothing again', async () => {
    const documents = distinctDocuments(10, 'decided by workers');
    const csv = `cpf_cnpj,requested_amount\n${[...documents, documents[1]].map((cell) => `${cell},"R$ 20.000,00"`).join('\n')}\n`;
    const finaliser = countingLoader();

    const { batchId, summary, reports } = await screenList(
      csv,
      { policy: 'pessoa-fisica.json' },
      { finaliserLoader: finaliser },
    );

    const stored = await collectRows(batchId);
    expect(stored.filter((row) => row.state === 'screened').every((row) => row.decision)).toBe(true);
    expect(finaliser.decided).toBe(0);
    for (const row of stored.filter((line) => line.state === 'screened'))
      expect(summary[row.row - 1]?.decision).toBe(row.decision?.decision);
    expect(summary[10]?.decision).toBe(summary[1]?.decision); // the duplicate repeats its first occurrence
    expect(reports.every((line) => (line.decision?.trace.length ?? 0) > 0)).toBe(true);
  });

  it('decides in the finaliser exactly what the workers would have: the same rows, the same decisions', async () => {
    const documents = distinctDocuments(30, 'decided either way');
    const csv = `cpf_cnpj,requested_amount\n${documents.map((cell, index) => `${cell},${index % 3 ? 5000 : 90000}`).join('\n')}\n`;
    const finaliser = countingLoader();

    const byWorkers = await screenList(csv, { policy: 'pessoa-fisica.json' });
    const byFinaliser = await screenList(
      csv,
      { policy: 'pessoa-fisica.json' },
      { workerDecides: false, finaliserLoader: finaliser },
    );

    expect(finaliser.decided).toBe(30);
    const decisionsOf = (summary: typeof byWorkers.summary) =>
      summary.map((line) => [
        line.document,
        line.decision,
        line.decision_reasons,
        line.risk_band,
        line.credit_limit,
      ]);
    expect(decisionsOf(byFinaliser.summary)).toEqual(decisionsOf(byWorkers.summary));
    expect(new Set(byWorkers.summary.map((line) => line.decision)).size).toBeGreaterThan(1);
  });

  it('decides every row with a report, repeats the decision on duplicates, and says which policy decided', async () => {
    const documents = distinctDocuments(12, 'decided batch');
    const rows = [...documents, documents[0] as string, 'not-a-document'];
    const csv = `cpf_cnpj,requested_amount\n${rows.map((cell) => `${cell},5000`).join('\n')}\n`;

    const { manifest, summary, reports, header } = await screenList(csv, { policy: 'pessoa-fisica.json' });

    expect(header).toEqual([...SUMMARY_COLUMNS, ...DECISION_COLUMNS, 'requested_amount']);
    const screened = summary.filter((line) => line.status === 'screened');
    expect(screened).toHaveLength(12);
    for (const line of screened) expect(['approve', 'review', 'decline']).toContain(line.decision);
    const duplicate = summary.find((line) => line.status === 'duplicate');
    expect(duplicate?.decision).toBe(summary[0]?.decision);
    expect(duplicate?.decision_reasons).toBe(summary[0]?.decision_reasons);
    expect(summary.find((line) => line.status === 'invalid_document')?.decision).toBe('');
    expect(manifest?.policy).toEqual({
      name: 'pessoa-fisica.json',
      sha256: createHash('sha256').update(readFileSync(POLICY_FILE)).digest('hex'),
    });
    const counts = manifest?.decisions?.counts ?? { approve: 0, review: 0, decline: 0 };
    expect(counts.approve + counts.review + counts.decline).toBe(13); // 12 screened and the duplicate
    expect(reports).toHaveLength(12);
    for (const line of reports) expect(line.decision?.trace.length).toBeGreaterThan(0);
    // No policy error: every decision came from the policy's own rules.
    expect(summary.some((line) => (line.decision_reasons ?? '').includes('POLICY_ERROR'))).toBe(false);
  });

  it('shows the decision mix, the reasons given most and who to act on in report.html, as summary.csv has them', async () => {
    const documents = distinctDocuments(40, 'decided page');
    const csv = `cpf_cnpj,requested_amount\n${documents.map((cell, index) => `${cell},${index % 2 ? 5000 : 250000}`).join('\n')}\n`;

    const { manifest, summary, page } = await screenList(csv, { policy: 'pessoa-fisica.json' });

    const figures = reportFigures(page);
    const rowsDecided = (value: string) => summary.filter((line) => line.decision === value).length;
    expect(rowsDecided('decline') + rowsDecided('review')).toBeGreaterThan(0);
    for (const value of ['approve', 'review', 'decline'])
      expect(figures[`decision:${value}`], value).toBe(rowsDecided(value));
    expect(figures['decision:none']).toBe(summary.filter((line) => line.decision === '').length);
    for (const reason of manifest?.decisions?.reasons ?? [])
      expect(figures[`reason:${reason.code}`], reason.code).toBe(
        summary.filter((line) =>
          (line.decision_reasons ?? '')
            .split(' | ')
            .some((cell) => cell.startsWith(`${reason.code}:`) || cell === reason.code),
        ).length,
      );
    expect(page).toContain('pessoa-fisica.json');
    // The declined and review tables list those rows, in row order (up to the page's limit of 15).
    for (const [id, value] of [
      ['declined', 'decline'],
      ['review', 'review'],
    ] as const) {
      const table = page.split(`id="${id}"`)[1]?.split('</table>')[0] ?? '';
      const shown = [...table.matchAll(/<td class="num" data-label="[^"]+">(\d+)<\/td>/g)].map((match) =>
        Number(match[1]),
      );
      const expected = summary
        .filter((line) => line.decision === value && line.status === 'screened')
        .map((line) => Number(line.row))
        .slice(0, 15);
      expect(shown, id).toEqual(expected);
    }
  });

  it('repeats a first occurrence’s report figures and decision on its duplicates', async () => {
    const [first, second] = distinctDocuments(2, 'lost targets') as [string, string];

    const { summary } = await screenList(`cpf_cnpj\n${first}\n${second}\n${first}\n`, {
      policy: 'pessoa-fisica.json',
    });

    expect(summary.map((line) => line.status)).toEqual(['screened', 'screened', 'duplicate']);
    expect(summary[2]?.score).toBe(summary[0]?.score);
    expect(summary[2]?.decision).toBe(summary[0]?.decision);
  });

  it('puts a re-screen’s decision changes first: the previous report decided again by the same policy', async () => {
    const documents = distinctDocuments(150, 'decision moves');
    const list = `cpf_cnpj,requested_amount\n${documents.map((document) => `${document},"R$ 900.000,00"`).join('\n')}\n`;
    await screenList(list, { policy: 'pessoa-fisica.json' });
    test.emulator.setEpoch(1);
    try {
      const { manifest, summary, changes } = await screenList(
        list,
        {},
        {
          portfolio: { name: 'carteira', policy: 'pessoa-fisica.json' },
        },
      );

      const moves = changes.filter((line) => (line.change ?? '').startsWith('decision_'));
      expect(moves.length).toBeGreaterThan(0);
      expect(manifest?.changes?.counts.decision_worsened ?? 0).toBe(
        moves.filter((line) => line.change === 'decision_worsened').length,
      );
      for (const move of moves) {
        expect(move.before).not.toBe(move.after);
        expect(summary.find((line) => line.document === move.document)?.decision).toBe(move.after);
      }
    } finally {
      test.emulator.setEpoch(0);
    }
  });

  it('writes no decision columns for a batch without a policy, as before', async () => {
    const { manifest, header, reports, page } = await screenList(
      `cpf\n${distinctDocuments(2, 'undecided').join('\n')}\n`,
    );

    expect(header).toEqual([...SUMMARY_COLUMNS]);
    expect(page).not.toContain('id="decisions"');
    expect(manifest?.policy).toBeNull();
    expect(manifest?.decisions).toBeNull();
    expect(reports.every((line) => line.decision === undefined)).toBe(true);
  });

  it('refuses a file whose upload names a policy that is not in the bucket, before anything is bought', async () => {
    const charged = test.emulator.stats().charged;

    const { manifest } = await screenList(`cpf\n${distinctDocuments(2, 'missing policy').join('\n')}\n`, {
      policy: 'nao-existe.json',
    });

    expect(manifest?.status).toBe('file_rejected');
    expect(manifest?.failure).toEqual({
      code: 'policy_not_found',
      message: 'the policy nao-existe.json is not in the bucket (policies/nao-existe.json)',
    });
    expect(test.emulator.stats().charged).toBe(charged);
  });

  it('refuses a file whose upload names a policy its upload check rejected, before anything is bought', async () => {
    const charged = test.emulator.stats().charged;
    const broken = readFileSync(POLICY_FILE, 'utf8').replace('"> 0"', '"> > 5 (("');
    test.objects.put(policyKey('rejeitada.json'), broken);
    const events = new RecordingEventPublisher();
    const verdict = await checkPolicyUpload(
      { key: policyKey('rejeitada.json') },
      { ...test.adapters, events, policyLoader: zenCreditPolicyLoader, logger: new MemoryLogger() },
    );

    const { manifest } = await screenList(`cpf\n${distinctDocuments(2, 'rejected policy').join('\n')}\n`, {
      policy: 'rejeitada.json',
    });

    expect(events.events.map((event) => event.detailType)).toEqual(['PolicyRejected']);
    expect(manifest?.status).toBe('file_rejected');
    expect(manifest?.failure).toEqual({
      code: 'policy_rejected',
      message: `the policy rejeitada.json was rejected when it was uploaded: ${verdict?.problem}`,
    });
    expect(test.emulator.stats().charged).toBe(charged);
  });

  it('sends every row to review with POLICY_ERROR when the batch’s policy copy no longer compiles, never approve', async () => {
    test.objects.put(policyKey('quebrada.json'), '{"nodes": [], "edges": []}');

    const { summary, manifest } = await screenList(
      `cpf\n${distinctDocuments(3, 'broken policy').join('\n')}\n`,
      { policy: 'quebrada.json' },
    );

    expect(summary.map((line) => line.decision)).toEqual(['review', 'review', 'review']);
    expect(summary.every((line) => (line.decision_reasons ?? '').startsWith('POLICY_ERROR'))).toBe(true);
    expect(manifest?.decisions?.counts).toEqual({ approve: 0, review: 3, decline: 0 });
  });
});
