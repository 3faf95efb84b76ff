import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { CONSOLE_ROLES, CONSOLE_ROUTES } from '../../src/contract/index.ts';
import { synthesizeStack } from '../factories/synthesized-stack.ts';

const withConsole = () => synthesizeStack({ console: { callbackUrls: ['https://console.example.com/'] } });

describe('the console in the template (the construct’s console prop)', () => {
  it('is not deployed unless asked for', () => {
    const { template } = synthesizeStack();

    expect(Object.keys(template.findResources('AWS::Cognito::UserPool'))).toEqual([]);
    expect(Object.keys(template.findResources('AWS::ApiGatewayV2::Api'))).toEqual([]);
  });

  it('puts every route of the contract but the local console’s behind the user pool’s JWT authorizer', () => {
    const { template } = withConsole();

    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map((route) => [
      route.Properties.RouteKey as string,
      route.Properties.AuthorizationType as string,
    ]);
    const expected = Object.values(CONSOLE_ROUTES)
      .filter((route) => !('local' in route))
      .map((route) => [
        `${route.method.toUpperCase()} ${route.path}`,
        route.roles === 'public' ? 'NONE' : 'JWT',
      ]);
    expect(routes.sort()).toEqual(expected.sort());
    const [authorizer] = Object.values(template.findResources('AWS::ApiGatewayV2::Authorizer'));
    expect(authorizer?.Properties).toMatchObject({
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
    });
  });

  it('signs people in only as an admin made them, with MFA, one group per role', () => {
    const { template } = withConsole();

    const [pool] = Object.values(template.findResources('AWS::Cognito::UserPool'));
    const groups = Object.values(template.findResources('AWS::Cognito::UserPoolGroup')).map(
      (group) => group.Properties.GroupName,
    );
    expect(pool?.Properties).toMatchObject({
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      MfaConfiguration: 'ON',
      UserPoolAddOns: { AdvancedSecurityMode: 'ENFORCED' },
    });
    expect(groups.sort()).toEqual([...CONSOLE_ROLES].sort());
  });

  it('throttles the API and logs its requests without a path or a query string', () => {
    const { template } = withConsole();

    const [stage] = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
    const format = JSON.parse(stage?.Properties.AccessLogSettings.Format as string) as Record<string, string>;
    expect(stage?.Properties.DefaultRouteSettings).toEqual({
      ThrottlingRateLimit: 20,
      ThrottlingBurstLimit: 40,
    });
    expect(Object.values(format)).not.toContain('$context.path');
    expect(JSON.stringify(format)).not.toMatch(/querystring|path\b|header/i);
  });

  it('is cdk-nag clean', () => {
    const { app, stack } = withConsole();

    const report = new AwsSolutionsChecks(app).validateScope(stack);

    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });
});
