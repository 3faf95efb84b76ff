import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import {
  AssetHashType,
  Aws,
  DockerImage,
  Duration,
  FileSystem,
  Lazy,
  type RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as deployment from 'aws-cdk-lib/aws-s3-deployment';
import type { Construct } from 'constructs';
import { CONSOLE_WEB_DIRECTORY, consolePagesBuild } from '../../src/contract/console-pages.ts';

/** Where the pages find the API and the sign-in, written beside them at deploy (`/console-config.json`). */
export interface ConsoleSiteConfig {
  readonly apiUrl: string;
  /** The user pool as an OpenID Connect issuer, its hosted sign-in, and the pages' client. */
  readonly signIn: { readonly authority: string; readonly clientId: string; readonly domain: string };
  /** Where downloads and the report page come from (presigned links to the pipeline's bucket). */
  readonly resultsOrigin: string;
}

/** The console's site: private pages behind CloudFront. */
export interface ConsoleSite {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  /** `https://<distribution>` with no trailing slash. */
  readonly url: string;
}

/**
 * The pages' bucket and their distribution: the bucket is private (only CloudFront, through origin access control,
 * reads it), TLS only, and every answer carries the console's security headers (a CSP with no inline script). An
 * address the pages route themselves (`/lotes/…`) answers `index.html`.
 */
export function createConsoleSite(
  scope: Construct,
  options: { readonly removalPolicy: RemovalPolicy; readonly connectTo: () => readonly string[] },
): ConsoleSite {
  const bucket = new s3.Bucket(scope, 'ConsolePages', {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    removalPolicy: options.removalPolicy,
  });
  const headers = new cloudfront.ResponseHeadersPolicy(scope, 'ConsoleHeaders', {
    securityHeadersBehavior: {
      contentSecurityPolicy: {
        contentSecurityPolicy: Lazy.string({ produce: () => siteContentSecurityPolicy(options.connectTo()) }),
        override: true,
      },
      strictTransportSecurity: {
        accessControlMaxAge: Duration.days(365),
        includeSubdomains: true,
        override: true,
      },
      frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
      contentTypeOptions: { override: true },
      referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
    },
  });
  const distribution = new cloudfront.Distribution(scope, 'ConsoleDistribution', {
    comment: 'credit-screen console',
    defaultRootObject: 'index.html',
    defaultBehavior: {
      origin: origins.S3BucketOrigin.withOriginAccessControl(bucket),
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      responseHeadersPolicy: headers,
    },
    // The pages route their own addresses: a path S3 does not hold (403 through OAC) is the app's.
    errorResponses: [403, 404].map((httpStatus) => ({
      httpStatus,
      responseHttpStatus: 200,
      responsePagePath: '/index.html',
      ttl: Duration.seconds(0),
    })),
  });
  Validations.of(distribution).acknowledge(
    {
      id: 'AwsSolutions-CFR1',
      reason:
        'The console is for the customer’s own staff wherever they sign in from; the user pool gates it.',
    },
    {
      id: 'AwsSolutions-CFR2',
      reason: 'No WAF by default: the pages are static; the API is throttled and every route authenticated.',
    },
    {
      id: 'AwsSolutions-CFR3',
      reason: 'The pages hold no data; the API has its own access log, which names no one.',
    },
    {
      id: 'AwsSolutions-CFR4',
      reason:
        'The cloudfront.net address and its certificate, whose TLS policy CloudFront fixes; the customer’s own ' +
        'domain, with its certificate and TLS 1.2, is set on the distribution (exposed as `site.distribution`).',
    },
  );
  Validations.of(bucket).acknowledge({
    id: 'AwsSolutions-S1',
    reason: 'The pages are public code built from the repository; CloudFront alone reads them.',
  });
  return { bucket, distribution, url: `https://${distribution.distributionDomainName}` };
}

/** Puts the built pages and their configuration in the site's bucket, and empties CloudFront's copy of them. */
export function deployConsolePages(scope: Construct, site: ConsoleSite, config: ConsoleSiteConfig): void {
  new deployment.BucketDeployment(scope, 'ConsolePagesDeployment', {
    destinationBucket: site.bucket,
    distribution: site.distribution,
    sources: [pagesAsset(), deployment.Source.jsonData('console-config.json', config)],
  });
  const handler = Stack.of(scope).node.tryFindChild(
    'Custom::CDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C',
  );
  if (handler)
    Validations.of(handler).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'CDK grants its deploy-time copier cloudfront:CreateInvalidation and GetInvalidation on * to empty the ' +
        'console distribution’s cache once the new pages are in; it runs only while the stack deploys.',
    });
}

/**
 * The built pages as an asset: Vite builds them at synth on this machine, as NodejsFunction's esbuild builds the
 * functions; the asset changes when the sources do.
 */
function pagesAsset() {
  return deployment.Source.asset(CONSOLE_WEB_DIRECTORY, {
    assetHashType: AssetHashType.CUSTOM,
    assetHash: pagesSourceHash(),
    exclude: ['dist', 'node_modules'],
    bundling: {
      // Never pulled: the local build always answers (CDK asks for an image all the same).
      image: DockerImage.fromRegistry('unused-the-pages-build-locally'),
      local: {
        tryBundle(outputDir: string) {
          const build = consolePagesBuild(outputDir);
          execFileSync(build.command, [...build.args], { env: build.env, stdio: 'inherit' });
          return true;
        },
      },
    },
  });
}

/**
 * What the built pages are made of: their own sources, the contract and domain files they import, and the locked
 * dependencies; a change to any of them is a new asset (web/ alone would miss a changed route or schema).
 */
function pagesSourceHash(): string {
  const root = join(CONSOLE_WEB_DIRECTORY, '..');
  const parts = [
    FileSystem.fingerprint(CONSOLE_WEB_DIRECTORY, { exclude: ['dist', 'node_modules'] }),
    FileSystem.fingerprint(join(root, 'src', 'contract')),
    FileSystem.fingerprint(join(root, 'src', 'domain')),
    FileSystem.fingerprint(join(root, 'package-lock.json')),
  ];
  return createHash('sha256').update(parts.join('\n')).digest('hex');
}

/**
 * The site's CSP: the API's own (nothing inline, nothing framed from elsewhere but the report), plus the API, the
 * sign-in and the results bucket it connects to and frames.
 */
export function siteContentSecurityPolicy(connectTo: readonly string[]): string {
  const elsewhere = connectTo.join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${elsewhere}`,
    `frame-src 'self' ${elsewhere}`,
    "frame-ancestors 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    `form-action 'self' ${elsewhere}`,
  ].join('; ');
}

/** The hosted sign-in's address for `prefix` in the stack's region. */
export const signInDomainUrl = (scope: Construct, prefix: string) =>
  `https://${prefix}.auth.${Stack.of(scope).region}.amazoncognito.com`;

/** The user pool as an OpenID Connect issuer. */
export const userPoolIssuer = (userPoolId: string) =>
  `https://cognito-idp.${Aws.REGION}.amazonaws.com/${userPoolId}`;
