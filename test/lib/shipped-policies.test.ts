import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { synthesizeStack } from '../factories/synthesized-stack.ts';

const SAMPLE = 'samples/policies/pessoa-fisica.json';

/** A policy file in a temporary folder, under the given name. */
function policyFile(name: string, contents: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'shipped-policy-')), name);
  writeFileSync(file, contents);
  return file;
}

describe('policies shipped with the deployment (the construct’s policies prop)', () => {
  it('copies each policy to policies/ at deploy, keeping the policies uploaded beside them', () => {
    const { template, app, stack } = synthesizeStack({
      policies: [{ file: SAMPLE }, { file: 'samples/policies/pessoa-juridica.json', name: 'empresas.json' }],
      settings: { defaultPolicy: 'empresas.json' },
    });

    template.hasResourceProperties('Custom::CDKBucketDeployment', {
      DestinationBucketKeyPrefix: 'policies/',
      Prune: false,
      RetainOnDelete: true,
    });
    const deployment = Object.values(template.findResources('Custom::CDKBucketDeployment'))[0];
    expect(deployment?.Properties.SourceObjectKeys).toHaveLength(2);
    expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('policyNotShipped'))).toEqual(
      [],
    );
    const report = new AwsSolutionsChecks(app).validateScope(stack);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });

  it('refuses at synth a policy with a cell that does not compile, in one line naming the file and the node', () => {
    const broken = policyFile('quebrada.json', readFileSync(SAMPLE, 'utf8').replace('"> 0"', '"> > 5 (("'));

    expect(() => synthesizeStack({ policies: [{ file: broken }] })).toThrow(
      new RegExp(`^CreditScreenPipeline: policy file ${broken}: .*Restrições[^\\n]*$`),
    );
  });

  it('refuses at synth a file that is not JSON, one whose output has no decision, and one that is missing', () => {
    const notJson = policyFile('texto.json', 'decision: approve');
    const noDecision = policyFile(
      'sem-decisao.json',
      readFileSync(SAMPLE, 'utf8').replaceAll('"decision"', '"resultado"'),
    );

    expect(() => synthesizeStack({ policies: [{ file: notJson }] })).toThrow(
      /^CreditScreenPipeline: policy file .*texto\.json: [^\n]+$/,
    );
    expect(() => synthesizeStack({ policies: [{ file: noDecision }] })).toThrow(
      /^CreditScreenPipeline: policy file .*sem-decisao\.json: .*no node writes a "decision" field \(approve, review or decline\)$/,
    );
    expect(() => synthesizeStack({ policies: [{ file: '/nowhere/politica.json' }] })).toThrow(
      /^CreditScreenPipeline: policy file \/nowhere\/politica\.json cannot be read/,
    );
  });

  it('refuses a name that is not a policy file name, or one shipped twice', () => {
    expect(() => synthesizeStack({ policies: [{ file: SAMPLE, name: '../x.json' }] })).toThrow(
      'policy name "../x.json" is not a policy file name',
    );
    expect(() => synthesizeStack({ policies: [{ file: SAMPLE }, { file: SAMPLE }] })).toThrow(
      'policy pessoa-fisica.json is shipped twice',
    );
  });

  it('warns at synth when defaultPolicy names a policy the deployment does not ship', () => {
    const { stack, template } = synthesizeStack({ settings: { defaultPolicy: 'padrao.json' } });

    const warnings = Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('padrao\\.json'));
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0]?.entry.data)).toContain('upload policies/padrao.json');
    expect(Object.keys(template.findResources('Custom::CDKBucketDeployment'))).toEqual([]);
  });
});
