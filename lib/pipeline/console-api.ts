import type { RemovalPolicy } from 'aws-cdk-lib';
import { Duration, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpUserPoolAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as cognito from 'aws-cdk-lib/aws-cognito';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import {
  CONSOLE_ENVIRONMENT_VARIABLES,
  CONSOLE_ROUTES,
  type ConsoleRouteSpec,
} from '../../src/contract/index.ts';
import type { ConsoleProps } from './console-props.ts';
import type { FunctionFactory } from './functions.ts';

const DEFAULT_THROTTLE = { ratePerSecond: 20, burst: 40 };

/** The methods the pages call the API with (the contract's routes use no others). */
const CORS_METHODS = [
  apigw.CorsHttpMethod.GET,
  apigw.CorsHttpMethod.POST,
  apigw.CorsHttpMethod.PUT,
  apigw.CorsHttpMethod.DELETE,
];

/** The routes the console serves in AWS: every route of the contract's table but the local console's own. */
const awsConsoleRoutes = (): [string, ConsoleRouteSpec][] =>
  Object.entries(CONSOLE_ROUTES).filter(([, route]) => !('local' in route));

/** What the console's API is built from. */
interface ConsoleApiOptions {
  readonly props: ConsoleProps;
  readonly fn: FunctionFactory;
  readonly key: kms.IKey;
  readonly logGroupPrefix: string;
  readonly removalPolicy: RemovalPolicy;
  readonly userPool: cognito.IUserPool;
  readonly userPoolClient: cognito.IUserPoolClient;
  /** The site the pages are served from, the one origin the API answers in a browser; null: none. */
  readonly siteUrl: string | null;
}

/**
 * The console's HTTP API: one route per contract route, each behind the user pool's JWT authorizer but the
 * OpenAPI document; throttled; access-logged to an encrypted log group. The function answers them all.
 */
export function createConsoleHttpApi(
  scope: Construct,
  options: ConsoleApiOptions,
): { readonly api: apigw.HttpApi; readonly apiFunction: NodejsFunction } {
  const apiFunction = options.fn('ConsoleApi', 'console-api/handler.ts', { spec: 'consoleApi' });
  const api = new apigw.HttpApi(scope, 'ConsoleHttpApi', {
    description: 'credit-screen console API',
    createDefaultStage: false,
    // The pages call the API from the site's origin, with the ID token in the Authorization header. Any origin may
    // ask: without a token a call is refused, and the token lives in the site's own tab. Naming the site here would
    // make a cycle with the site's CSP, which names this API exactly.
    ...(options.siteUrl !== null
      ? {
          corsPreflight: {
            allowOrigins: ['*'],
            allowHeaders: ['authorization', 'content-type'],
            allowMethods: CORS_METHODS,
            maxAge: Duration.hours(1),
          },
        }
      : {}),
  });
  addThrottledStage(scope, api, options);
  const integration = new HttpLambdaIntegration('ConsoleApiIntegration', apiFunction);
  const authorizer = new HttpUserPoolAuthorizer('ConsoleAuthorizer', options.userPool, {
    userPoolClients: [options.userPoolClient],
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
  // A manager gives rows in review to the pool's reviewers: the function lists the groups that review, nothing more.
  apiFunction.addEnvironment(CONSOLE_ENVIRONMENT_VARIABLES.userPoolId, options.userPool.userPoolId);
  apiFunction.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['cognito-idp:ListUsersInGroup'],
      resources: [options.userPool.userPoolArn],
    }),
  );
  return { api, apiFunction };
}

/** The API's one stage: throttled, its requests logged without a path, a query string or a header. */
function addThrottledStage(scope: Construct, api: apigw.HttpApi, options: ConsoleApiOptions): void {
  const accessLogs = new logs.LogGroup(scope, 'ConsoleApiAccessLogs', {
    logGroupName: `${options.logGroupPrefix}ConsoleApiAccess`,
    retention: logs.RetentionDays.THREE_MONTHS,
    encryptionKey: options.key,
    removalPolicy: options.removalPolicy,
  });
  const throttle = options.props.throttle ?? DEFAULT_THROTTLE;
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
}
