import { Duration, type RemovalPolicy, type SecretValue, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpUserPoolAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { CONSOLE_ROLES, CONSOLE_ROUTES, type ConsoleRouteSpec, S3_LAYOUT } from '../../src/contract/index.ts';
import { auditChangesDenied } from './audit-log.ts';
import type { FunctionFactory } from './functions.ts';
import type { PipelineQueues } from './queues.ts';

/** The console in AWS: who signs in (the user pool and its groups), and the API they call. Off unless given. */
export interface ConsoleProps {
  /**
   * Where the hosted sign-in may send people back to: the console's site (its CloudFront address, or the
   * customer's own domain for it).
   * @default none: the user pool signs people in through its API only until the site's address is given
   */
  readonly callbackUrls?: readonly string[];
  /**
   * The customer's own sign-in (SSO) by OpenID Connect: people sign in there; their roles are still the user pool's
   * groups an admin puts them in.
   * @default none
   */
  readonly oidc?: {
    readonly name: string;
    readonly issuerUrl: string;
    readonly clientId: string;
    readonly clientSecret: SecretValue;
  };
  /**
   * The customer's own sign-in (SSO) by SAML 2.0, from the metadata document at this URL.
   * @default none
   */
  readonly saml?: { readonly name: string; readonly metadataUrl: string };
  /**
   * Requests per second the API accepts from everyone together, steady and in a burst (API Gateway throttling).
   * @default { ratePerSecond: 20, burst: 40 }
   */
  readonly throttle?: { readonly ratePerSecond: number; readonly burst: number };
}

/** What the console adds to the stack. */
export interface ConsoleResources {
  readonly userPool: cognito.UserPool;
  readonly userPoolClient: cognito.UserPoolClient;
  readonly api: apigw.HttpApi;
  readonly apiFunction: NodejsFunction;
}

const DEFAULT_THROTTLE = { ratePerSecond: 20, burst: 40 };

/** The user pool: no self sign-up, MFA required, threat protection enforced, one group per console role. */
function createUserPool(scope: Construct, props: ConsoleProps, removalPolicy: RemovalPolicy) {
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
    ...(props.callbackUrls && props.callbackUrls.length > 0
      ? {
          oAuth: {
            flows: { authorizationCodeGrant: true },
            scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL],
            callbackUrls: [...props.callbackUrls],
            logoutUrls: [...props.callbackUrls],
          },
        }
      : {}),
  });
  return { userPool, userPoolClient };
}

/** The routes the console serves in AWS: every route of the contract's table but the local console's own. */
const awsConsoleRoutes = (): [string, ConsoleRouteSpec][] =>
  Object.entries(CONSOLE_ROUTES).filter(([, route]) => !('local' in route));

/**
 * The console's HTTP API: one route per contract route, each behind the user pool's JWT authorizer but the
 * OpenAPI document; throttled; access-logged to an encrypted log group. The function answers them all.
 */
export function createConsole(
  scope: Construct,
  options: {
    readonly props: ConsoleProps;
    readonly fn: FunctionFactory;
    readonly key: kms.IKey;
    readonly logGroupPrefix: string;
    readonly removalPolicy: RemovalPolicy;
  },
): ConsoleResources {
  const { props } = options;
  const { userPool, userPoolClient } = createUserPool(scope, props, options.removalPolicy);
  const apiFunction = options.fn('ConsoleApi', 'console-api/handler.ts', { spec: 'consoleApi' });
  const api = new apigw.HttpApi(scope, 'ConsoleHttpApi', {
    description: 'credit-screen console API',
    createDefaultStage: false,
  });
  const accessLogs = new logs.LogGroup(scope, 'ConsoleApiAccessLogs', {
    logGroupName: `${options.logGroupPrefix}ConsoleApiAccess`,
    retention: logs.RetentionDays.THREE_MONTHS,
    encryptionKey: options.key,
    removalPolicy: options.removalPolicy,
  });
  const throttle = props.throttle ?? DEFAULT_THROTTLE;
  new apigw.CfnStage(scope, 'ConsoleApiStage', {
    apiId: api.apiId,
    stageName: '$default',
    autoDeploy: true,
    defaultRouteSettings: {
      throttlingRateLimit: throttle.ratePerSecond,
      throttlingBurstLimit: throttle.burst,
    },
    // No path, no query string, no header: a log line names no one.
    accessLogSettings: {
      destinationArn: accessLogs.logGroupArn,
      format: JSON.stringify({
        requestId: '$context.requestId',
        time: '$context.requestTime',
        method: '$context.httpMethod',
        route: '$context.routeKey',
        status: '$context.status',
        latencyMs: '$context.responseLatency',
        subject: '$context.authorizer.claims.sub',
      }),
    },
  });
  const integration = new HttpLambdaIntegration('ConsoleApiIntegration', apiFunction);
  const authorizer = new HttpUserPoolAuthorizer('ConsoleAuthorizer', userPool, {
    userPoolClients: [userPoolClient],
  });
  for (const [, route] of awsConsoleRoutes())
    api.addRoutes({
      path: route.path,
      methods: [route.method.toUpperCase() as apigw.HttpMethod],
      integration,
      ...(route.roles === 'public' ? {} : { authorizer }),
    });
  Validations.of(api).acknowledge({
    id: 'AwsSolutions-APIG4',
    reason:
      "Every route but the OpenAPI document has the user pool's JWT authorizer; the document describes the API and holds no data.",
  });
  return { userPool, userPoolClient, api, apiFunction };
}

/** What the console's function reads and writes. */
export interface ConsoleGrants {
  readonly table: dynamodb.ITable;
  readonly bucket: s3.IBucket;
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
export function grantConsole(apiFunction: NodejsFunction, resources: ConsoleGrants): void {
  resources.table.grantReadWriteData(apiFunction);
  apiFunction.addToRolePolicy(auditChangesDenied(resources.table));
  resources.bucket.grantRead(apiFunction, `${S3_LAYOUT.results}*`);
  // The export of final decisions rewrites a finished batch's summary.csv.
  resources.bucket.grantPut(apiFunction, `${S3_LAYOUT.results}*`);
  resources.queues.dispatch.grantSendMessages(apiFunction);
  resources.queues.finalise.grantSendMessages(apiFunction);
  resources.eventBus.grantPutEventsTo(apiFunction);
  resources.auditKeySecret.grantRead(apiFunction);
}
