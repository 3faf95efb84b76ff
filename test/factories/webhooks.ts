import { App, Stack } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { WebhookProps } from '../../lib/credit-screen-pipeline.ts';

// Imported resources carry their literal ARNs, so they may be made in a scope of their own.
const imports = new Stack(new App(), 'Imports');
export const WEBHOOK_SECRET = secretsmanager.Secret.fromSecretCompleteArn(
  imports,
  'ErpSecret',
  'arn:aws:secretsmanager:sa-east-1:123456789012:secret:credit-screen/erp-webhook-AbCdEf',
);
export const ALERT_TOPIC = sns.Topic.fromTopicArn(
  imports,
  'Alerts',
  'arn:aws:sns:sa-east-1:123456789012:credit-alerts',
);

/** One webhook per kind of auth: an ERP with an API key, a CRM with basic auth and documents, a chat with OAuth. */
export const WEBHOOKS: readonly WebhookProps[] = [
  {
    name: 'erp',
    url: 'https://erp.example.com/hooks/credit',
    events: ['BatchCompleted', 'BatchAwaitingApproval', 'BudgetExhausted'],
    auth: { type: 'apiKey', header: 'X-Api-Key', secret: WEBHOOK_SECRET, secretField: 'key' },
  },
  {
    name: 'crm',
    url: 'https://crm.example.com/credit',
    events: ['PortfolioChanged', 'DocumentChanged'],
    changeKinds: ['new_protest', 'score_drop'],
    includeDocuments: true,
    auth: { type: 'basic', username: 'credit-screen', secret: WEBHOOK_SECRET },
  },
  {
    name: 'chat',
    url: 'https://chat.example.com/in/credit',
    events: ['PolicyRejected'],
    rateLimitPerSecond: 2,
    auth: {
      type: 'oauth',
      tokenUrl: 'https://login.example.com/oauth2/token',
      clientId: 'credit-screen',
      secret: WEBHOOK_SECRET,
    },
  },
];
