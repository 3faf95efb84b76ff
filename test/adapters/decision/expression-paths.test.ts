import { describe, expect, it } from 'vitest';
import { pathExpression, pathsRead } from '../../../src/adapters/decision/expression-paths.ts';

describe('pathsRead', () => {
  it.each<[string, string[][]]>([
    ['< 600', []],
    ['score < 600 and protests_count > 0', [['score'], ['protests_count']]],
    ['input.requested_amount * 0.5', [['input', 'requested_amount']]],
    ['input["valor solicitado"] > 1000', [['input', 'valor solicitado']]],
    ['"ATIVA", "score"', []],
    ["'texto com score'", []],
    ['min([input.requested_amount, 200000])', [['input', 'requested_amount']]],
    ['[{code: "X", text: "y"}]', []],
    ['a ? b : c', [['a'], ['b'], ['c']]],
    ['some(input.items, #.amount > limite)', [['input', 'items'], ['limite']]],
    // A ZEN template string (written with a `$` and `{`, not a JavaScript placeholder).
    [`\`valor \${input.requested_amount} reais\``, [['input', 'requested_amount']]],
    ['$ != null and $ < 18', [['$']]],
    ['$.ratio * 2', [['$', 'ratio']]],
    ['[300..500)', []],
    ['1e3 + x', [['x']]],
    ['score == null ? 0 : score', [['score']]],
  ])('%s reads %j', (expression, paths) => {
    expect(pathsRead(expression)).toEqual(paths);
  });
});

describe('pathExpression', () => {
  it('writes a path as ZEN reads it', () => {
    expect(pathExpression(['input', 'requested_amount'])).toBe('input.requested_amount');
    expect(pathExpression(['input', 'valor solicitado'])).toBe('input["valor solicitado"]');
    expect(pathExpression(['score'])).toBe('score');
  });
});
