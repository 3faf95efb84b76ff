import { Aws, Duration, Names, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { CONSOLE_ROLES, S3_LAYOUT } from '../../src/contract/index.ts';
import { auditChangesDenied } from './audit-log.ts';
import { createConsoleHttpApi } from './console-api.ts';
import type { ConsoleProps } from './console-props.ts';
import {
  type ConsoleSite,
  createConsoleSite,
  deployConsolePages,
  signInDomainUrl,
  userPoolIssuer,
} from './console-site.ts';
import type { FunctionFactory } from './functions.ts';
import type { PipelineQueues } from './queues.ts';
import { acknowledgeDeploymentHandler } from './shipped-policies.ts';

export type { ConsoleProps } from './console-props.ts';

/** What the console adds to the stack. */
export interface ConsoleResources {
  readonly userPool: cognito.UserPool;
  readonly userPoolClient: cognito.UserPoolClient;
  readonly api: apigw.HttpApi;
  readonly apiFunction: NodejsFunction;
  /** The pages' bucket and distribution; undefined when `site` is false. */
  readonly site: ConsoleSite | undefined;
}

/** The customer's own sign-in (OIDC, SAML) when given: the providers the client offers, the pool's own first. */
function addFederation(
  scope: Construct,
  userPool: cognito.UserPool,
  props: ConsoleProps,
): cognito.UserPoolClientIdentityProvider[] {
  const providers = [cognito.UserPoolClientIdentityProvider.COGNITO];
  if (props.oidc) {
    new cognito.UserPoolIdentityProviderOidc(scope, 'ConsoleOidc', {
      userPool,
      name: props.oidc.name,
      issuerUrl: props.oidc.issuerUrl,
      clientId: props.oidc.clientId,
      // A SecretValue from Secrets Manager is a dynamic reference in the template, resolved at deploy: never the value.
      clientSecret: props.oidc.clientSecret.unsafeUnwrap(),
      scopes: ['openid', 'email'],
      attributeMapping: { email: cognito.ProviderAttribute.other('email') },
    });
    providers.push(cognito.UserPoolClientIdentityProvider.custom(props.oidc.name));
  }
  if (props.saml) {
    new cognito.UserPoolIdentityProviderSaml(scope, 'ConsoleSaml', {
      userPool,
      name: props.saml.name,
      metadata: cognito.UserPoolIdentityProviderSamlMetadata.url(props.saml.metadataUrl),
    });
    providers.push(cognito.UserPoolClientIdentityProvider.custom(props.saml.name));
  }
  return providers;
}

/** The user pool: no self sign-up, MFA required, threat protection enforced, one group per console role. */
function createUserPool(
  scope: Construct,
  props: ConsoleProps,
  removalPolicy: RemovalPolicy,
  siteUrl: string | null,
) {
  const userPool = new cognito.UserPool(scope, 'ConsoleUsers', {
    selfSignUpEnabled: false,
    signInAliases: { email: true },
    mfa: cognito.Mfa.REQUIRED,
    mfaSecondFactor: { otp: true, sms: false },
    passwordPolicy: {
      minLength: 12,
      requireDigits: true,
      requireLowercase: true,
      requireUppercase: true,
      requireSymbols: true,
    },
    accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
    // The e-mail is the name recorded beside what a person does: only an admin changes it, never its owner.
    keepOriginal: { email: true },
    featurePlan: cognito.FeaturePlan.PLUS,
    standardThreatProtectionMode: cognito.StandardThreatProtectionMode.FULL_FUNCTION,
    deletionProtection: true,
    removalPolicy,
  });
  for (const role of CONSOLE_ROLES)
    new cognito.CfnUserPoolGroup(scope, `ConsoleGroup-${role}`, {
      userPoolId: userPool.userPoolId,
      groupName: role,
      description: `credit-screen console: ${role}`,
    });
  const returnUrls = [...(siteUrl === null ? [] : [`${siteUrl}/`]), ...(props.callbackUrls ?? [])];
  const providers = addFederation(scope, userPool, props);
  const userPoolClient = userPool.addClient('ConsoleClient', {
    generateSecret: false,
    // People may not change their own attributes through the client: who they are is the pool's word.
    writeAttributes: new cognito.ClientAttributes(),
    authFlows: { userSrp: true },
    preventUserExistenceErrors: true,
    supportedIdentityProviders: providers,
    idTokenValidity: Duration.hours(1),
    accessTokenValidity: Duration.hours(1),
    refreshTokenValidity: Duration.hours(8),
    ...(returnUrls.length > 0
      ? {
          oAuth: {
            // The code flow; a client without a secret, so Cognito requires PKCE of the pages.
            flows: { authorizationCodeGrant: true },
            scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL],
            callbackUrls: returnUrls,
            logoutUrls: returnUrls,
          },
        }
      : {}),
  });
  // Unique in the region across accounts: the account's id is in it, and the construct's place in the app.
  const domainPrefix =
    props.signInDomainPrefix ??
    `credit-screen-${Aws.ACCOUNT_ID}-${Names.uniqueId(userPool).slice(-8).toLowerCase()}`;
  userPool.addDomain('ConsoleSignIn', { cognitoDomain: { domainPrefix } });
  return { userPool, userPoolClient, domainPrefix };
}

/**
 * The console: its user pool, its HTTP API (see {@link createConsoleHttpApi}) and, unless turned off, its site, whose
 * pages sign in through the pool's hosted sign-in and call the API.
 */
function createConsole(
  scope: Construct,
  options: {
    readonly props: ConsoleProps;
    readonly fn: FunctionFactory;
    readonly key: kms.IKey;
    readonly logGroupPrefix: string;
    readonly removalPolicy: RemovalPolicy;
    /** The pipeline's bucket, whose presigned links the pages open. */
    readonly resultsBucket: s3.Bucket;
  },
): ConsoleResources {
  const { props } = options;
  // The site's CSP names each origin the pages reach exactly (read once they exist: the API comes after the site).
  const reached: { api?: string; signIn?: string } = {};
  const site =
    props.site === false
      ? undefined
      : createConsoleSite(scope, {
          removalPolicy: options.removalPolicy,
          connectTo: () => [
            reached.api ?? '',
            reached.signIn ?? '',
            `https://cognito-idp.${Stack.of(scope).region}.amazonaws.com`,
            // Presigned downloads, the report page and upload forms.
            `https://${options.resultsBucket.bucketRegionalDomainName}`,
          ],
        });
  const { userPool, userPoolClient, domainPrefix } = createUserPool(
    scope,
    props,
    options.removalPolicy,
    site?.url ?? null,
  );
  const { api, apiFunction } = createConsoleHttpApi(scope, {
    ...options,
    userPool,
    userPoolClient,
    siteUrl: site?.url ?? null,
  });
  reached.api = api.apiEndpoint;
  reached.signIn = signInDomainUrl(scope, domainPrefix);
  if (site) {
    deployConsolePages(scope, site, {
      apiUrl: api.apiEndpoint,
      signIn: {
        authority: userPoolIssuer(userPool.userPoolId),
        clientId: userPoolClient.userPoolClientId,
        domain: signInDomainUrl(scope, domainPrefix),
      },
      resultsOrigin: `https://${options.resultsBucket.bucketRegionalDomainName}`,
    });
    acknowledgeDeploymentHandler(Stack.of(scope), site.bucket);
  }
  return { userPool, userPoolClient, api, apiFunction, site };
}

/** The console (see {@link createConsole}), its function granted what it reads and writes. */
export function addConsole(
  scope: Construct,
  props: ConsoleProps,
  parts: Omit<Parameters<typeof createConsole>[1], 'props' | 'resultsBucket'> & ConsoleGrants,
): ConsoleResources {
  const made = createConsole(scope, { ...parts, props, resultsBucket: parts.bucket });
  // The pages post uploads straight to the bucket (a ticket's form). Any origin may read S3's answer: the post itself
  // needs a form the API signed for one key, and naming the site here would make a cycle with the site's CSP, which
  // names this bucket exactly.
  if (made.site)
    parts.bucket.addCorsRule({
      allowedOrigins: ['*'],
      allowedMethods: [s3.HttpMethods.POST],
      allowedHeaders: ['*'],
      maxAge: 3600,
    });
  grantConsole(made.apiFunction, parts);
  return made;
}

/** What the console's function reads and writes. */
export interface ConsoleGrants {
  readonly table: dynamodb.ITable;
  readonly bucket: s3.Bucket;
  readonly queues: PipelineQueues;
  readonly eventBus: events.IEventBus;
  readonly auditKeySecret: secretsmanager.ISecret;
}

/**
 * Least privilege for the console's function: the table (batches, rows, overrides, audit entries, which it may
 * append to but never change), the results it reads a decided batch from (and whose summary an export rewrites), the dispatch and finalise queues (an
 * approval, a cancel that settles the last rows), the event bus (OverrideRecorded) and the audit key. No bureau
 * token: the console buys nothing itself.
 */
function grantConsole(apiFunction: NodejsFunction, resources: ConsoleGrants): void {
  resources.table.grantReadWriteData(apiFunction);
  apiFunction.addToRolePolicy(auditChangesDenied(resources.table));
  resources.bucket.grantRead(apiFunction, `${S3_LAYOUT.results}*`);
  // The export of final decisions rewrites a finished batch's summary.csv.
  resources.bucket.grantPut(apiFunction, `${S3_LAYOUT.results}*`);
  // The upload tickets it signs are puts of this role's: under incoming/ and nowhere else.
  resources.bucket.grantPut(apiFunction, `${S3_LAYOUT.incoming}*`);
  resources.queues.dispatch.grantSendMessages(apiFunction);
  resources.queues.finalise.grantSendMessages(apiFunction);
  resources.eventBus.grantPutEventsTo(apiFunction);
  resources.auditKeySecret.grantRead(apiFunction);
}
