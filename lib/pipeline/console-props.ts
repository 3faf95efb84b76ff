import type { SecretValue } from 'aws-cdk-lib';

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
   * Serve the console's pages: built at synth (Vite, from `web/`), kept in a private bucket behind CloudFront,
   * signing people in through the user pool's hosted sign-in (authorization code with PKCE).
   * @default true
   */
  readonly site?: boolean;
  /**
   * The prefix of the hosted sign-in's address, `<prefix>.auth.<region>.amazoncognito.com` (unique in the region;
   * lowercase letters, digits and hyphens).
   * @default `credit-screen-` and a hash of the construct's path
   */
  readonly signInDomainPrefix?: string;
  /**
   * Requests per second the API accepts from everyone together, steady and in a burst (API Gateway throttling).
   * @default { ratePerSecond: 20, burst: 40 }
   */
  readonly throttle?: { readonly ratePerSecond: number; readonly burst: number };
}
