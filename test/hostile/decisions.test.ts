import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { distinctDocuments } from '../factories/customer-lists.ts';
import { parseSummary } from '../factories/pipeline.ts';
import { runCli } from '../factories/run-cli.ts';
import { caseFolder, expectOneLineRefusal, runInProcess } from './harness.ts';

// The hostile-input corpus, round four (issue #36): decisions. A customer column holding a number no engine can
// hold (a 27-digit contract number) is a code, decided like any row; a reason written as one string is a reason;
// a policy whose answers break the decision contract is refused before anything is bought; and a batch its policy
// could not decide at all does not end green.

const PESSOA_FISICA = join(process.cwd(), 'samples/policies/pessoa-fisica.json');
const CONTRACT = '123456789012345678901234567';

/** A list of `count` people with a contract number and an amount asked. */
async function list(folder: string, count: number, amount = '20000'): Promise<string> {
  const people = distinctDocuments(count * 3, `decisions ${folder}`)
    .filter((document) => document.length === 11)
    .slice(0, count);
  const path = join(folder, 'clientes.csv');
  await writeFile(
    path,
    `cpf,contrato,requested_amount\n${people.map((cpf, index) => `${cpf},${index === 0 ? CONTRACT : `${CONTRACT.slice(0, -1)}${index % 10}`},${amount}`).join('\n')}\n`,
  );
  return path;
}

/** A policy with one expression node writing the given results. */
async function policy(folder: string, name: string, expressions: Record<string, string>): Promise<string> {
  const path = join(folder, name);
  await writeFile(
    path,
    JSON.stringify({
      nodes: [
        { id: 'in', type: 'inputNode', name: 'Entrada' },
        {
          id: 'calc',
          type: 'expressionNode',
          name: 'Resultado',
          content: {
            expressions: Object.entries(expressions).map(([key, value], index) => ({
              id: `x${index}`,
              key,
              value,
            })),
          },
        },
        { id: 'out', type: 'outputNode', name: 'Saída' },
      ],
      edges: [
        { id: 'e1', sourceId: 'in', targetId: 'calc' },
        { id: 'e2', sourceId: 'calc', targetId: 'out' },
      ],
    }),
  );
  return path;
}

describe('decisions on hostile values', () => {
  it('a 27-digit contract number in a column: exit 0, every screened row decided by the policy', async () => {
    const folder = await caseFolder('contract-number');
    await list(folder, 8);

    const result = await runCli(
      [
        'screen',
        'clientes.csv',
        '--policy',
        PESSOA_FISICA,
        '--no-state',
        '--out',
        'results',
        '--rate-limit',
        '50',
      ],
      { cwd: folder },
    );

    expect(result.code, result.stderr).toBe(0);
    const rows = parseSummary(
      await readFile(join(folder, 'results', 'summary.csv'), 'utf8'),
    ) as unknown as Record<string, string>[];
    expect(rows.filter((row) => row.status === 'screened')).toHaveLength(8);
    for (const row of rows) {
      expect(['approve', 'review', 'decline']).toContain(row.decision);
      expect(row.decision_reasons).not.toContain('POLICY_ERROR');
    }
    expect(rows[0]?.contrato).toBe(CONTRACT);
  }, 180_000);

  it('a reason written as one string is a reason, in check and in the decisions', async () => {
    const folder = await caseFolder('one-string-reason');
    const file = await policy(folder, 'motivo.json', { decision: '"approve"', reasons: '"OK"' });
    await list(folder, 3);

    const checked = await runInProcess(['check', 'clientes.csv', '--policy', file], folder);
    const screened = await runCli(
      ['screen', 'clientes.csv', '--policy', file, '--no-state', '--out', 'results', '--rate-limit', '50'],
      { cwd: folder },
    );

    expect(checked.code, checked.stderr).toBe(0);
    expect(screened.code, screened.stderr).toBe(0);
    const rows = parseSummary(
      await readFile(join(folder, 'results', 'summary.csv'), 'utf8'),
    ) as unknown as Record<string, string>[];
    expect(rows.map((row) => [row.decision, row.decision_reasons])).toEqual([
      ['approve', 'OK'],
      ['approve', 'OK'],
      ['approve', 'OK'],
    ]);
  }, 180_000);

  it.each([
    ['check', ['check', 'clientes.csv']],
    ['screen', ['screen', 'clientes.csv', '--no-state', '--yes']],
  ])(
    'a policy whose answers break the contract is refused by %s in one line, nothing started',
    async (_, args) => {
      const folder = await caseFolder('unfit-policy');
      const file = await policy(folder, 'limite.json', { decision: '"approve"', credit_limit: '"alto"' });
      await list(folder, 3);

      const result = await runInProcess([...args, '--policy', file], folder);

      expectOneLineRefusal(
        result,
        /--policy .*limite\.json: its answer does not fit the decision contract in node "Resultado", for a person .*: credit_limit: /,
      );
    },
  );

  it('a batch its policy could not decide at all ends with one error line and a non-zero exit', async () => {
    const folder = await caseFolder('undecidable');
    // Decides a typical customer (an amount asked), fails on every row of this list (the amount is text).
    const file = await policy(folder, 'valor.json', {
      decision: 'input.requested_amount > 1000 ? "approve" : "review"',
    });
    await list(folder, 3, 'a combinar');

    const result = await runCli(
      ['screen', 'clientes.csv', '--policy', file, '--no-state', '--out', 'results', '--rate-limit', '50'],
      { cwd: folder },
    );

    expect(result.code).not.toBe(0);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^credit-screen: the policy valor\.json could not decide any row: every decision is POLICY_ERROR/,
    );
    const rows = parseSummary(
      await readFile(join(folder, 'results', 'summary.csv'), 'utf8'),
    ) as unknown as Record<string, string>[];
    // On a loaded machine a call may time out; its row then ends failed, charge unknown (not bought again), with
    // no decision. Every row the bureau answered is sent to review.
    const answered = rows.filter((row) => row.status === 'screened');
    expect(answered.length).toBeGreaterThan(0);
    expect(answered.map((row) => row.decision)).toEqual(answered.map(() => 'review'));
    expect(rows.filter((row) => row.status !== 'screened').map((row) => row.charge_state)).toEqual(
      rows.filter((row) => row.status !== 'screened').map(() => 'charge_unknown'),
    );

    const decided = await runInProcess(['decide', 'results', '--policy', file], folder);

    expect(decided.code).toBe(1);
    expect(decided.stderr).toMatch(
      /^credit-screen: valor\.json could not decide any of the 3 rows: every decision is POLICY_ERROR \(a review\); the first: the engine failed: /,
    );
  }, 180_000);
});
