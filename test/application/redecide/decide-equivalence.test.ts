/**
 * A decision is the policy's, exactly: policies that ZEN evaluates identically decide a stored batch identically,
 * whichever way their author wrote a cell (issue: a home-made evaluator once read `"2" or "4"` in a table cell as
 * `$ == ("2" or "4")`, and approved customers the policy sent to review). Each pair is written both ways and
 * re-decides the same generated batch; `decisions.csv` must be the same text, and the variants' rules must have
 * fired (a pair no row reaches proves nothing). The marked evaluation (rules read from marks) is held to ZEN's
 * traced one the same way.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../emulator/seeded-random.ts';
import { type LoadOptions, loadZenCreditPolicy } from '../../../src/adapters/decision/zen-credit-policy.ts';
import { redecide } from '../../../src/application/redecide/redecide.ts';
import type { ResultFiles } from '../../../src/application/redecide/result-files.ts';
import type { CreditPolicy } from '../../../src/domain/ports/index.ts';
import { reportColumns, SummaryCsvWriter } from '../../../src/domain/summary/index.ts';
import { personReport } from '../../factories/decision-reports.ts';
import { makeCpf } from '../../factories/documents.ts';

const SAMPLE = JSON.parse(readFileSync('samples/policies/pessoa-fisica.json', 'utf8'));
const COLUMNS = ['customer_id', 'requested_amount', 'vip'];
const ROWS = 600;

/** A stored batch of people around the policy's edges: irregular CPF codes, scores near 850, VIP flags. */
function storedBatch(): ResultFiles {
  const random = new SeededRandom('equivalent policies');
  const pick = <T>(values: readonly T[]): T => values[random.integer(0, values.length - 1)] as T;
  const writer = new SummaryCsvWriter('standard', COLUMNS, false);
  let summary = writer.header();
  let reports = '';
  for (let row = 1; row <= ROWS; row++) {
    const report = {
      ...personReport({
        score: pick([null, 120, 499, 500, 699, 700, 849, 850, 851, 990]),
        status: pick(['0', '0', '0', '2', '3', '4', '5', '8', '9', '1', null]),
        pendingDebts: pick([
          [0, 0],
          [1, 800],
          [2, null],
        ] as const),
      }),
      document: makeCpf(random),
    };
    reports += `${JSON.stringify(report)}\n`;
    summary += writer.row({
      row,
      document: report.document,
      documentType: 'cpf',
      bureau: 'a',
      status: 'screened',
      statusDetail: '',
      chargeState: 'charged',
      report: reportColumns(report),
      decision: null,
      passThrough: [`C-${row}`, pick(['R$ 1.000,00', '5000', '', 'a combinar']), pick(['', '0', '1', 'sim'])],
    });
  }
  const texts = { summary, reports };
  async function* chunks(text: string): AsyncGenerator<Uint8Array> {
    const bytes = Buffer.from(text, 'utf8');
    for (let start = 0; start < bytes.length; start += 4093) yield bytes.subarray(start, start + 4093);
  }
  return { where: 'memory', manifest: null, defaultOut: tmpdir(), open: (file) => chunks(texts[file]) };
}

type Graph = { nodes: { id: string; content?: { rules?: Record<string, string>[] } }[]; edges: unknown[] };

/** The sample policy with cells of two rules rewritten. */
function sampleWith(cells: Record<string, Record<string, string>>): Graph {
  const graph = structuredClone(SAMPLE) as Graph;
  for (const node of graph.nodes)
    for (const rule of node.content?.rules ?? []) Object.assign(rule, cells[rule._id as string] ?? {});
  return graph;
}

async function load(graph: unknown, options: LoadOptions = {}): Promise<CreditPolicy> {
  const loaded = await loadZenCreditPolicy('variante.json', JSON.stringify(graph), options);
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.policy;
}

async function decisionsCsv(policy: CreditPolicy): Promise<string> {
  let text = '';
  await redecide(storedBatch(), policy, {
    write: async (more) => {
      text += more;
    },
  });
  return text;
}

/** A policy that approves a customer unless blocked, written with a table or a switch around one condition. */
function vipPolicy(condition: string, kind: 'table' | 'switch'): unknown {
  const decide = (id: string, decision: string) => ({
    id,
    type: 'expressionNode',
    name: `Decide ${decision}`,
    content: { expressions: [{ id: `${id}-d`, key: 'decision', value: `"${decision}"` }] },
  });
  const nodes =
    kind === 'table'
      ? [
          {
            id: 't',
            type: 'decisionTableNode',
            name: 'VIP',
            content: {
              hitPolicy: 'first',
              inputs: [{ id: 'c', name: 'Condição', field: null }],
              outputs: [{ id: 'o', name: 'decision', field: 'decision' }],
              rules: [
                { _id: 'vip', c: condition, o: '"approve"' },
                { _id: 'resto', c: '', o: '"review"' },
              ],
            },
          },
        ]
      : [
          {
            id: 's',
            type: 'switchNode',
            name: 'VIP',
            content: {
              hitPolicy: 'first',
              statements: [
                { id: 'vip', condition },
                { id: 'resto', condition: '' },
              ],
            },
          },
          decide('a', 'approve'),
          decide('r', 'review'),
        ];
  const edges =
    kind === 'table'
      ? [
          { id: 'e1', sourceId: 'in', targetId: 't' },
          { id: 'e2', sourceId: 't', targetId: 'out' },
        ]
      : [
          { id: 'e1', sourceId: 'in', targetId: 's' },
          { id: 'e2', sourceId: 's', sourceHandle: 'vip', targetId: 'a' },
          { id: 'e3', sourceId: 's', sourceHandle: 'resto', targetId: 'r' },
          { id: 'e4', sourceId: 'a', targetId: 'out' },
          { id: 'e5', sourceId: 'r', targetId: 'out' },
        ];
  // `bloqueado` is true, false or null from the customer's `vip` column: what `x ?? y` is for.
  const signal = {
    id: 'sinal',
    type: 'expressionNode',
    name: 'Sinal',
    content: {
      passThrough: true,
      expressions: [
        { id: 'b', key: 'bloqueado', value: 'input.vip == 1 ? true : (input.vip == 0 ? false : null)' },
      ],
    },
  };
  const first = kind === 'table' ? 't' : 's';
  return {
    nodes: [
      { id: 'in', type: 'inputNode', name: 'Entrada' },
      signal,
      ...nodes,
      { id: 'out', type: 'outputNode', name: 'Saída' },
    ],
    edges: [
      { id: 'e0', sourceId: 'in', targetId: 'sinal' },
      { id: 'e1', sourceId: 'sinal', targetId: first },
      ...edges.slice(1),
    ],
  };
}

const count = (csv: string, pattern: RegExp) => csv.split('\n').filter((line) => pattern.test(line)).length;

describe('equivalent policies decide a stored batch identically', () => {
  it('a list of values or the same values joined by "or" (the irregular-CPF row)', async () => {
    const listed = await decisionsCsv(await load(SAMPLE));
    const joined = await decisionsCsv(
      await load(sampleWith({ 'pf-cpf-irregular': { situacao: '"2" or "4" or "5" or "8" or "9"' } })),
    );

    expect(joined).toBe(listed);
    expect(count(listed, /CPF_IRREGULAR/)).toBeGreaterThan(20);
  });

  it('a comparison alone or with its column’s field named (the score-A row)', async () => {
    const alone = await decisionsCsv(await load(SAMPLE));
    const named = await decisionsCsv(await load(sampleWith({ 'pf-score-a': { score: 'score >= 850' } })));

    expect(named).toBe(alone);
    expect(count(alone, /,approve,[^,]*,A,/)).toBeGreaterThan(10);
  });

  it.each(['table', 'switch'] as const)(
    '`not (x ?? y)` written with and without its parentheses, in a %s',
    async (kind) => {
      const bracketed = await decisionsCsv(await load(vipPolicy('not (bloqueado ?? false)', kind)));
      const bare = await decisionsCsv(await load(vipPolicy('not bloqueado ?? false', kind)));

      expect(bare).toBe(bracketed);
      expect(count(bracketed, /,approve,/)).toBeGreaterThan(50);
      expect(count(bracketed, /,review,/)).toBeGreaterThan(50);
    },
  );

  it('the rules read from marks are the rules ZEN’s trace names, row for row', async () => {
    const marked = await decisionsCsv(await load(SAMPLE));
    const traced = await decisionsCsv(await load(SAMPLE, { withTrace: true }));

    expect(marked).toBe(traced);
  });
});
