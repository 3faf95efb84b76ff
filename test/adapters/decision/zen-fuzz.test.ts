/**
 * No value can kill a run: the product's real input shapes, with hostile values in every figure and customer column
 * (huge, tiny, negative, -0, not finite, exponents, 27-digit contract numbers, Unicode digits, junk), decided by the
 * sample policies and by policies whose arithmetic overflows, each run in a child process
 * (test/fixtures/zen-fuzz-child.ts) that must end normally with every input decided. The sample policies must never
 * stop the engine; a hostile one may, and then only the rows that made it stop are `POLICY_ERROR` reviews.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'vitest';

const CHILD = fileURLToPath(new URL('../../fixtures/zen-fuzz-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const INPUTS = 400;

interface Outcome {
  readonly refused?: string;
  readonly decided?: number;
  readonly outcomes?: Record<string, number>;
  readonly restarts?: number;
}

/**
 * Decides {@link INPUTS} hostile inputs with `policy` in a child process of its own. Asynchronous, so the four runs of
 * this file go side by side instead of one blocking the worker after another.
 */
async function fuzz(
  policy: string,
  seed: string,
  signal: AbortSignal,
): Promise<{ status: number | null; outcome: Outcome; stderr: string }> {
  const run = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', CHILD, policy, String(INPUTS), seed],
    // Ended with the test (its signal), so a child never outlives a test that timed out.
    { cwd: ROOT, encoding: 'utf8', signal },
  ).then(
    ({ stdout, stderr }) => ({ status: 0, stdout, stderr }),
    (error: { code?: number | string; stdout?: string; stderr?: string }) => ({
      status: typeof error.code === 'number' ? error.code : null,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? String(error),
    }),
  );
  const line = run.stdout.trim().split('\n').pop() ?? '{}';
  return { status: run.status, outcome: JSON.parse(line || '{}') as Outcome, stderr: run.stderr };
}

/** A policy that approves everyone and computes figures from the customer's columns on the way. */
function computing(expressions: Record<string, string>): string {
  const directory = mkdtempSync(join(tmpdir(), 'credit-screen-fuzz-'));
  const file = join(directory, 'hostil.json');
  const items = Object.entries({ ...expressions, decision: '"approve"' }).map(([key, value], index) => ({
    id: `x${index}`,
    key,
    value,
  }));
  writeFileSync(
    file,
    JSON.stringify({
      nodes: [
        { id: 'in', type: 'inputNode', name: 'Entrada' },
        { id: 'calc', type: 'expressionNode', name: 'Cálculo', content: { expressions: items } },
        { id: 'out', type: 'outputNode', name: 'Saída' },
      ],
      edges: [
        { id: 'e1', sourceId: 'in', targetId: 'calc' },
        { id: 'e2', sourceId: 'calc', targetId: 'out' },
      ],
    }),
  );
  return file;
}

describe('hostile values through ZEN', () => {
  it.concurrent.for(['pessoa-fisica.json', 'pessoa-fisica-restritiva.json', 'pessoa-juridica.json'])(
    'samples/policies/%s decides every hostile input and never stops the engine',
    async (name, { expect, signal }) => {
      const { status, outcome, stderr } = await fuzz(
        join(ROOT, 'samples/policies', name),
        `fuzz ${name}`,
        signal,
      );

      expect(status, stderr).toBe(0);
      expect(outcome.decided).toBe(INPUTS);
      expect(outcome.restarts).toBe(0);
      expect(outcome.outcomes?.stopped).toBeUndefined();
    },
  );

  it.concurrent('a policy whose products overflow: every input decided, the rows that stop the engine reviewed', async ({
    expect,
    signal,
  }) => {
    const policy = computing({
      quadrado: 'input.valor * input.valor',
      cubo: 'input.renda * input.renda * input.renda',
      razao: 'input.requested_amount / input.renda',
    });

    const { status, outcome, stderr } = await fuzz(policy, 'fuzz overflow', signal);

    expect(status, stderr).toBe(0);
    expect(outcome.decided).toBe(INPUTS);
    const { approve = 0, review = 0, stopped = 0 } = outcome.outcomes ?? {};
    expect(approve + review + stopped).toBe(INPUTS);
    // Some rows do stop it (a 15-digit amount squared is past 2^64), and then a fresh process carries on.
    expect(stopped).toBeGreaterThan(0);
    expect(outcome.restarts).toBeGreaterThanOrEqual(1);
    expect(approve).toBeGreaterThan(0);
  });
});
