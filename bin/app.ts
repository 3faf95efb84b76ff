/**
 * CDK app: `npx cdk synth` / `npx cdk deploy`. Settings come from context (cdk.json, or `-c name=value`):
 * bureauBaseUrl (required to deploy), tokenSecretArn, tokenSecretKeyArn, rateLimitPerSecond, workerConcurrency, freshnessHours,
 * retentionDays, excelSummary, defaultBureau, rebuyChargeUnknown, stackName, console (true deploys the console),
 * consoleCallbackUrls (comma-separated addresses the console's sign-in returns to).
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { BUREAUS, type Bureau, isBureau, perBureau } from '../lib/credit-screen-pipeline.ts';
import { CreditScreenStack } from '../lib/credit-screen-stack.ts';

const app = new App();
const context = (name: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(name);
  return value === undefined || value === null || value === '' ? undefined : String(value);
};
const number = (name: string): number | undefined => {
  const value = context(name);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed))
    throw new Error(`context ${name} must be a number, got ${JSON.stringify(value)}`);
  return parsed;
};
const rate = number('rateLimitPerSecond');
const bureauContext = (name: string): Bureau | undefined => {
  const value = context(name);
  if (value === undefined) return undefined;
  if (!isBureau(value))
    throw new Error(`context ${name} must be a bureau (${BUREAUS.join(', ')}), got ${JSON.stringify(value)}`);
  return value;
};

try {
  buildStack();
} catch (error) {
  // A setting or a shipped file the construct refuses is one line, as the construct wrote it, not a stack trace.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

function buildStack(): void {
  new CreditScreenStack(app, context('stackName') ?? 'CreditScreen', {
    description: 'credit-screen: batch credit screening of CPF/CNPJ lists',
    tokenSecretArn: context('tokenSecretArn'),
    tokenSecretKeyArn: context('tokenSecretKeyArn'),
    pipeline: {
      bureauBaseUrl: context('bureauBaseUrl') ?? 'https://bureau-gateway.invalid',
      bureaus: rate === undefined ? undefined : perBureau(() => ({ rateLimitPerSecond: rate })),
      workerConcurrency: number('workerConcurrency'),
      freshnessHours: number('freshnessHours'),
      retentionDays: number('retentionDays'),
      excelSummary: context('excelSummary') === 'true',
      rebuyChargeUnknown: context('rebuyChargeUnknown') === 'true',
      defaultBureau: bureauContext('defaultBureau'),
      console:
        context('console') === 'true'
          ? {
              callbackUrls: context('consoleCallbackUrls')
                ?.split(',')
                .map((url) => url.trim()),
            }
          : undefined,
    },
  });
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
