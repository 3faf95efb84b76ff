import { readFileSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { templateDifferences, templatesToCompare } from '../factories/template-baseline.ts';

/**
 * The synthesized template against the one committed before the construct was split: a refactoring of the construct
 * must not move a logical id, a property, a grant or an output. Code asset hashes are normalised (they follow the
 * Lambda code). After an intended change to the template, rewrite the baseline with
 * `UPDATE_TEMPLATE_BASELINE=1 npx vitest run test/lib/template-unchanged.test.ts` and review its diff.
 */

const BASELINE = new URL('../fixtures/template-baseline.json', import.meta.url);

let templates: Record<string, unknown>;
beforeAll(() => {
  templates = templatesToCompare();
  if (process.env.UPDATE_TEMPLATE_BASELINE === '1')
    writeFileSync(BASELINE, `${JSON.stringify(templates, null, 2)}\n`);
}, 120_000);

describe('the synthesized template', () => {
  it.each(['defaultStack', 'everyProp'])('%s matches the committed baseline', (name) => {
    const baseline = JSON.parse(readFileSync(BASELINE, 'utf8')) as Record<string, unknown>;

    const differences = templateDifferences(baseline[name], templates[name]);

    expect(differences).toEqual([]);
  });
});

describe('templateDifferences', () => {
  const template = {
    Resources: {
      PipelineQueue1: { Type: 'AWS::SQS::Queue', Properties: { VisibilityTimeout: 360 } },
      PipelineKey1: { Type: 'AWS::KMS::Key', Properties: { EnableKeyRotation: true } },
    },
  };

  it('names the resource and property whose value changed', () => {
    const changed = structuredClone(template);
    changed.Resources.PipelineQueue1.Properties.VisibilityTimeout = 300;

    expect(templateDifferences(template, changed)).toEqual([
      'Resources.PipelineQueue1.Properties.VisibilityTimeout: expected 360, got 300',
    ]);
  });

  it('names a resource whose logical id went missing and the one that appeared', () => {
    const { PipelineKey1: key, ...rest } = template.Resources;
    const renamed = { Resources: { ...rest, PipelineKey2: key } };

    expect(templateDifferences(template, renamed)).toEqual([
      'Resources.PipelineKey1: missing (expected {"Type":"AWS::KMS::Key","Properties":{"EnableKeyRotation":true}})',
      'Resources.PipelineKey2: unexpected (got {"Type":"AWS::KMS::Key","Properties":{"EnableKeyRotation":true}})',
    ]);
  });
});
