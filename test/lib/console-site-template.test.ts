import { describe, expect, it } from 'vitest';
import { resolveValue, synthesizeStack } from '../factories/synthesized-stack.ts';

const withConsole = () => synthesizeStack({ console: {} });

/** The one resource of `type` in the template, its properties resolved to strings where CDK wrote intrinsics. */
function only(template: ReturnType<typeof withConsole>['template'], type: string) {
  const found = Object.entries(template.findResources(type));
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  const [id, resource] = found[0] as [string, { Properties: Record<string, unknown> }];
  return { id, properties: resolveValue(resource.Properties) as Record<string, unknown> };
}

describe('the console’s site in the template', () => {
  it('keeps the pages in a private bucket that only this distribution reads, through origin access control', () => {
    const { template } = withConsole();
    const distribution = only(template, 'AWS::CloudFront::Distribution');
    const pages = Object.entries(template.findResources('AWS::S3::Bucket')).find(([id]) =>
      id.startsWith('PipelineConsolePages'),
    );
    const [pagesId, pagesBucket] = pages as [string, { Properties: Record<string, unknown> }];
    const policy = Object.values(template.findResources('AWS::S3::BucketPolicy'))
      .map(
        (resource) =>
          resolveValue(resource.Properties) as { Bucket: string; PolicyDocument: { Statement: never[] } },
      )
      .find((resource) => resource.Bucket === `<${pagesId}>`);

    const statements = policy?.PolicyDocument.Statement ?? [];
    const allows = statements.filter((statement: { Effect: string }) => statement.Effect === 'Allow');
    expect(pagesBucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(allows).toEqual([
      expect.objectContaining({
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Condition: {
          StringEquals: {
            'AWS:SourceArn': `arn:aws:cloudfront::123456789012:distribution/<${distribution.id}>`,
          },
        },
      }),
    ]);
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    const config = distribution.properties.DistributionConfig as unknown as {
      Origins: { OriginAccessControlId?: string; S3OriginConfig?: { OriginAccessIdentity: string } }[];
      DefaultCacheBehavior: { ViewerProtocolPolicy: string };
    };
    expect(config.Origins).toHaveLength(1);
    expect(config.Origins[0]?.OriginAccessControlId).toMatch(/^<.+\.Id>$/);
    expect(config.Origins[0]?.S3OriginConfig?.OriginAccessIdentity ?? '').toBe('');
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
  });

  it('sends a CSP with no inline script, HSTS, no framing and no referrer with every page', () => {
    const { template } = withConsole();

    const headers = only(template, 'AWS::CloudFront::ResponseHeadersPolicy').properties as unknown as {
      ResponseHeadersPolicyConfig: { SecurityHeadersConfig: Record<string, Record<string, unknown>> };
    };

    const security = headers.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const csp = String(resolveValue(security.ContentSecurityPolicy?.ContentSecurityPolicy));
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    // Each origin the pages reach, exactly: the API, the hosted sign-in, the user pool's issuer, the pipeline's bucket.
    const api = Object.keys(template.findResources('AWS::ApiGatewayV2::Api'))[0];
    const bucket = Object.keys(template.findResources('AWS::S3::Bucket')).find((id) =>
      id.startsWith('PipelineBucket'),
    );
    const signIn = (only(template, 'AWS::Cognito::UserPoolDomain').properties as { Domain: string }).Domain;
    expect(/connect-src ([^;]+)/.exec(csp)?.[1]?.split(' ')).toEqual([
      "'self'",
      `<${api}.ApiEndpoint>`,
      `https://${signIn}.auth.sa-east-1.amazoncognito.com`,
      'https://cognito-idp.sa-east-1.amazonaws.com',
      `https://<${bucket}.RegionalDomainName>`,
    ]);
    expect(csp).not.toContain('*');
    expect(security.StrictTransportSecurity).toMatchObject({ AccessControlMaxAgeSec: 31_536_000 });
    expect(security.FrameOptions).toMatchObject({ FrameOption: 'DENY' });
    expect(security.ReferrerPolicy).toMatchObject({ ReferrerPolicy: 'no-referrer' });
  });

  it('lets the pages call the API with their token, and returns people to the site after the hosted sign-in', () => {
    const { template } = withConsole();
    const distribution = only(template, 'AWS::CloudFront::Distribution');
    const site = `https://<${distribution.id}.DomainName>`;

    const api = only(template, 'AWS::ApiGatewayV2::Api').properties as {
      CorsConfiguration: { AllowOrigins: string[]; AllowHeaders: string[] };
    };
    const client = only(template, 'AWS::Cognito::UserPoolClient').properties as Record<string, unknown>;
    const domain = only(template, 'AWS::Cognito::UserPoolDomain').properties as { Domain: string };

    // Any origin may ask; a call without the token the site's tab holds is refused by the authorizer.
    expect(api.CorsConfiguration.AllowOrigins).toEqual(['*']);
    expect(api.CorsConfiguration.AllowHeaders).toEqual(['authorization', 'content-type']);
    expect(client).toMatchObject({
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      CallbackURLs: [`${site}/`],
      LogoutURLs: [`${site}/`],
    });
    expect(domain.Domain).toMatch(/^credit-screen-123456789012-[0-9a-f]{8}$/);
  });

  it('takes upload forms at the pipeline’s bucket, and lets the API sign puts under incoming/ only', () => {
    const { template } = withConsole();
    const pipelineBucket = Object.entries(template.findResources('AWS::S3::Bucket')).find(([id]) =>
      id.startsWith('PipelineBucket'),
    )?.[1] as { Properties: Record<string, unknown> };
    const puts = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes('PipelineConsoleApi'))
      .flatMap(
        (policy) => resolveValue(policy.Properties.PolicyDocument.Statement) as Record<string, unknown>[],
      )
      .filter((statement) => JSON.stringify(statement.Action).includes('s3:PutObject'))
      .flatMap((statement) => [statement.Resource].flat());

    expect(resolveValue(pipelineBucket.Properties.CorsConfiguration)).toEqual({
      CorsRules: [
        {
          AllowedOrigins: ['*'],
          AllowedMethods: ['POST'],
          AllowedHeaders: ['*'],
          MaxAge: 3600,
        },
      ],
    });
    expect(puts.map((resource) => String(resource).replace(/^<.+\.Arn>/, '<bucket>')).sort()).toEqual([
      '<bucket>/incoming/*',
      '<bucket>/results/*',
    ]);
  });

  it('lets the API list the pool’s reviewers, and nothing else of the pool', () => {
    const { template } = withConsole();
    const pool = only(template, 'AWS::Cognito::UserPool');
    const apiFunction = Object.entries(template.findResources('AWS::Lambda::Function')).find(([id]) =>
      id.startsWith('PipelineConsoleApi'),
    )?.[1] as { Properties: { Environment: { Variables: Record<string, unknown> } } };
    const cognito = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes('PipelineConsoleApi'))
      .flatMap(
        (policy) => resolveValue(policy.Properties.PolicyDocument.Statement) as Record<string, unknown>[],
      )
      .filter((statement) => JSON.stringify(statement.Action).includes('cognito-idp'));

    expect(resolveValue(apiFunction.Properties.Environment.Variables.CONSOLE_USER_POOL_ID)).toBe(
      `<${pool.id}>`,
    );
    expect(cognito).toEqual([
      { Effect: 'Allow', Action: 'cognito-idp:ListUsersInGroup', Resource: `<${pool.id}.Arn>` },
    ]);
  });

  it('deploys the pages with where the API and the sign-in are, and serves no site when told not to', () => {
    const { template } = withConsole();
    const { template: without } = synthesizeStack({ console: { site: false } });

    const deployments = Object.values(template.findResources('Custom::CDKBucketDeployment')).map(
      (resource) => resolveValue(resource.Properties) as { DestinationBucketName: string },
    );

    const pages = deployments.find((deployment) =>
      deployment.DestinationBucketName.startsWith('<PipelineConsolePages'),
    );
    // console-config.json's values, as the deployment resolves them: the API, the pool and its client.
    const markers = Object.assign(
      {},
      ...((pages as unknown as { SourceMarkers?: Record<string, string>[] })?.SourceMarkers ?? []),
    ) as Record<string, string>;
    const id = (type: string) => Object.keys(template.findResources(type))[0];
    expect(Object.values(markers)).toEqual(
      expect.arrayContaining([
        `<${id('AWS::ApiGatewayV2::Api')}.ApiEndpoint>`,
        `<${id('AWS::Cognito::UserPool')}>`,
        `<${id('AWS::Cognito::UserPoolClient')}>`,
      ]),
    );
    expect(Object.keys(without.findResources('AWS::CloudFront::Distribution'))).toEqual([]);
  });
});
